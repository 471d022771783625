import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IsolatedError, IsolationLimit, runIsolated, type IsolationBudget } from './run.js';
import { ParseSlots } from './slots.js';

const WORKER = new URL('../../../test/helpers/isolated-worker.js', import.meta.url);
const BUDGET: IsolationBudget = { heapMb: 64, workMs: 20_000 };

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const run = <T>(task: string, input: AsyncIterable<Uint8Array> = Readable.from([]), budget = BUDGET) =>
  runIsolated<T>({ script: WORKER, task, input, budget });

describe('isolated parsing (a worker thread per parse)', () => {
  it("streams the file in and the items out, in order, the file's chunks whatever their size", async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`).join('\n');
    const chunks = Buffer.from(text)
      .toString('utf8')
      .match(/[\s\S]{1,777}/g)!
      .map((c) => Buffer.from(c));
    const items = await all(run<{ n: number; text: string }>('lines', Readable.from(chunks)));
    expect(items).toHaveLength(2000);
    expect(items[0]).toEqual({ n: 1, text: 'line 1' });
    expect(items[1999]).toEqual({ n: 2000, text: 'line 2000' });
  });

  it("brings the task's own error back with its class name and fields", async () => {
    const err = await all(run('lines', Readable.from([Buffer.from('a\nb\nboom\nc\n')]))).catch((e) => e);
    expect(err).toBeInstanceOf(IsolatedError);
    expect(err.message).toBe('line 3 went boom');
    expect(err.errorName).toBe('LineError');
    expect(err.props).toMatchObject({ line: 3 });
  });

  it('stops a parse that needs more memory than its budget, and the service goes on', async () => {
    const before = process.memoryUsage().rss;
    const err = await all(run('hog')).catch((e) => e);
    expect(err).toBeInstanceOf(IsolationLimit);
    expect(err.limit).toBe('memory');
    expect(err.message).toBe('reading the file needs more than the 64 MiB of memory an upload may use');
    // The service's thread still works, and another parse runs after it.
    expect(await all(run('lines', Readable.from([Buffer.from('x\n')])))).toEqual([{ n: 1, text: 'x' }]);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
  });

  it('stops a parse that works past its time budget', async () => {
    const err = await all(run('spin', Readable.from([]), { heapMb: 64, workMs: 500 })).catch((e) => e);
    expect(err).toBeInstanceOf(IsolationLimit);
    expect(err.limit).toBe('time');
  });

  it("counts only the worker's own time: a slow consumer does not use up its budget", async () => {
    const text = Array.from({ length: 600 }, (_, i) => `l${i}`).join('\n');
    let seen = 0;
    // 600 items in batches of 256: three pauses of 400 ms on the service's side, 1.2 s in all, past the 1 s budget.
    for await (const _item of run('lines', Readable.from([Buffer.from(text)]), {
      heapMb: 64,
      workMs: 1000,
    })) {
      if (++seen % 256 === 1) await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(seen).toBe(600);
  });

  it('holds at most two batches of a task that produces faster than the service takes', async () => {
    // Without the pull each side waits for, the worker would post items as fast as it makes them (about 1 KB each)
    // while the service sleeps: hundreds of MB in a second on the service's heap.
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let grew = 0;
    for await (const _item of run<{ i: number }>('flood')) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      grew = process.memoryUsage().heapUsed - before;
      break;
    }
    expect(grew).toBeLessThan(32 * 1024 * 1024);
  });

  it('ends the worker and closes the file when the caller stops early', async () => {
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 1e6; i++) yield Buffer.from(`${i}\n`);
      })(),
    );
    for await (const _item of run('lines', source)) break;
    expect(source.destroyed).toBe(true);
  });
});

describe('parse slots', () => {
  it('lets at most `total` run, at most `perTenant` of one tenant, and serves the others in arrival order', async () => {
    const slots = new ParseSlots(2, 1);
    const a1 = (await slots.acquire('a'))!;
    const a2 = slots.acquire('a');
    const b1 = (await slots.acquire('b'))!;
    const c1 = slots.acquire('c', 50);
    // a's second waits for a's first (its share), c for a free slot: neither is let in.
    expect(slots.inUse()).toBe(2);
    expect(await c1).toBeUndefined();
    b1.release();
    // b's slot freed: a is at its share, so it does not take it…
    expect(slots.inUse('a')).toBe(1);
    const c2 = (await slots.acquire('c'))!;
    expect(slots.inUse('c')).toBe(1);
    a1.release();
    const a2slot = (await a2)!;
    expect(slots.inUse('a')).toBe(1);
    a2slot.release();
    c2.release();
    c2.release();
    expect(slots.inUse()).toBe(0);
  });
});
