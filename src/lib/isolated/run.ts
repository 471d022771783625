import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CrossedError, FromWorker, ToWorker, WorkerStart } from './protocol.js';
import { AppError } from '../../errors.js';
import { ParseSlots, type Slot } from './slots.js';

/*
 * Parsing an uploaded file where a mistake cannot hurt the rest of the service: in a worker thread of its own, with
 * a heap limit (V8 stops the thread, not the process, when the parse needs more) and a budget of working time (the
 * time the worker spends without waiting for the service: a pathological file cannot keep a core busy for ever,
 * however slowly the service consumes what it sends). The file is streamed in, the items streamed out (serve.ts);
 * the caller holds a slot (slots.ts) for as long as the worker lives, so a bounded number run at once.
 */

export interface IsolationBudget {
  /** The worker's heap (V8's old generation), in MiB. */
  heapMb: number;
  /** Working time, in milliseconds: the worker's time spent parsing, not waiting for input or for the service. */
  workMs: number;
}

/** The process's parsers: how many run at once, and what each may use (AppContext.parsers, from the config). */
export interface Parsers {
  slots: ParseSlots;
  budget: IsolationBudget;
}

export function createParsers(o: {
  parsers: number;
  parsersPerTenant: number;
  parserMemoryMb: number;
  parserSeconds: number;
}): Parsers {
  return {
    slots: new ParseSlots(o.parsers, o.parsersPerTenant),
    budget: { heapMb: o.parserMemoryMb, workMs: o.parserSeconds * 1000 },
  };
}

/** How long a request waits for a parser before it answers 429: someone is waiting for the answer. */
export const REQUEST_WAIT_MS = 30_000;

/**
 * A slot of the tenant's for a request (a preview, an upload): waited for at most REQUEST_WAIT_MS, then a 429 that
 * says what to send again. Jobs wait for as long as it takes instead.
 */
export async function requestSlot(parsers: Parsers, tenantId: string, again: string): Promise<Slot> {
  const slot = await parsers.slots.acquire(tenantId, REQUEST_WAIT_MS);
  if (!slot) throw new AppError('RATE_LIMITED', `other files are being read right now; ${again} in a minute`);
  return slot;
}

/** The parse went past its budget; `limit` says which. The worker is gone, nothing else was touched. */
export class IsolationLimit extends Error {
  constructor(
    readonly limit: 'memory' | 'time',
    message: string,
  ) {
    super(message);
    this.name = 'IsolationLimit';
  }
}

/** An error the task threw in the worker: its class name and own fields kept, for the caller to map. */
export class IsolatedError extends Error {
  readonly errorName: string;
  readonly props: CrossedError['props'];
  constructor(error: CrossedError) {
    super(error.message);
    this.name = 'IsolatedError';
    this.errorName = error.name;
    this.props = error.props;
  }
}

export interface IsolatedRun {
  /** The worker script: a module that calls serveIsolated. A `.js` URL; run from sources, its `.ts` beside it. */
  script: URL;
  task: string;
  options?: unknown;
  /** The file's bytes. */
  input: AsyncIterable<Uint8Array>;
  budget: IsolationBudget;
  /** Held by the caller, released by the caller when the iteration ends (the worker is gone by then). */
  slot?: Slot;
}

/** The script to start: the built `.js`, or (tests and `tsx` runs, which have no build) its `.ts` through tsx. */
function workerEntry(script: URL): { file: string; execArgv: string[] } {
  const file = fileURLToPath(script);
  if (fs.existsSync(file)) return { file, execArgv: [] };
  const ts = file.replace(/\.js$/, '.ts');
  if (file.endsWith('.js') && fs.existsSync(ts)) return { file: ts, execArgv: ['--import', 'tsx'] };
  throw new Error(`the worker script ${file} does not exist`);
}

/** The items the task yields, in order. Ending the iteration early ends the worker. */
export async function* runIsolated<T>(run: IsolatedRun): AsyncGenerator<T> {
  const { file, execArgv } = workerEntry(run.script);
  const start: WorkerStart = { task: run.task, options: run.options ?? {} };
  const worker = new Worker(file, {
    workerData: start,
    execArgv,
    resourceLimits: {
      maxOldGenerationSizeMb: run.budget.heapMb,
      maxYoungGenerationSizeMb: Math.min(32, Math.max(4, Math.floor(run.budget.heapMb / 16))),
      // A parser's recursion stays shallow; the default stack is enough.
    },
    stdout: false,
    stderr: false,
  });
  const input = run.input[Symbol.asyncIterator]();

  // What the service waits for next, as a queue of settled messages and one waiter.
  const inbox: (FromWorker | { t: 'dead'; err: Error })[] = [];
  let wake: (() => void) | undefined;
  const deliver = (m: FromWorker | { t: 'dead'; err: Error }) => {
    inbox.push(m);
    const w = wake;
    wake = undefined;
    w?.();
  };

  // Working time: from each message the service sends (or the start) to the worker's next message.
  let worked = 0;
  let owedSince: number | undefined = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const arm = () => {
    owedSince = performance.now();
    clearTimeout(timer);
    timer = setTimeout(
      () => {
        timedOut = true;
        void worker.terminate();
      },
      Math.max(0, run.budget.workMs - worked),
    );
  };
  const settle = () => {
    if (owedSince !== undefined) worked += performance.now() - owedSince;
    owedSince = undefined;
    clearTimeout(timer);
  };
  arm();

  worker.on('message', (m: FromWorker) => {
    settle();
    deliver(m);
  });
  worker.on('error', (err) => {
    settle();
    deliver({ t: 'dead', err });
  });
  worker.on('exit', (code) => {
    settle();
    deliver({ t: 'dead', err: new Error(`the parser's worker stopped (exit code ${code})`) });
  });
  const post = (m: ToWorker, transfer?: ArrayBuffer[]) => {
    arm();
    worker.postMessage(m, transfer);
  };

  const overBudget = (err: Error): Error => {
    if (timedOut)
      return new IsolationLimit(
        'time',
        `reading the file took longer than the ${Math.round(run.budget.workMs / 1000)} s an upload may take`,
      );
    if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
      return new IsolationLimit(
        'memory',
        `reading the file needs more than the ${run.budget.heapMb} MiB of memory an upload may use`,
      );
    return err;
  };

  try {
    for (;;) {
      if (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const m = inbox.shift()!;
      if (m.t === 'dead') throw overBudget(m.err);
      if (m.t === 'pull') {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await input.next();
        } catch (err) {
          post({ t: 'input-error', message: err instanceof Error ? err.message : String(err) });
          throw err;
        }
        if (next.done) post({ t: 'end' });
        else {
          // A copy of its own, so the transfer never detaches a buffer the source pools.
          const data = new Uint8Array(next.value);
          post({ t: 'chunk', data }, [data.buffer]);
        }
      } else if (m.t === 'items') {
        // The worker prepares the next batch while these are consumed: two batches at most are ever held.
        post({ t: 'ack' });
        for (const item of m.items) yield item as T;
      } else if (m.t === 'done') {
        return;
      } else if (m.t === 'fail') {
        throw new IsolatedError(m.error);
      }
    }
  } finally {
    clearTimeout(timer);
    worker.removeAllListeners('exit');
    await worker.terminate();
    // A parser may stop before the end of its input (the first worksheet read): the source is closed either way.
    await input.return?.(undefined);
  }
}
