import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import type { CrossedError, FromWorker, ToWorker, WorkerStart } from './protocol.js';

/*
 * The worker side of an isolated parse (run.ts is the service's side): the file arrives as a stream pulled chunk by
 * chunk from the service, the task's items go back in batches, each batch only once the service took the one
 * before. A worker script calls `serveIsolated` with its tasks and nothing else.
 */

/** A parse: the file's bytes in, items out (anything structured clone can carry). */
export type IsolatedTask = (input: Readable, options: unknown) => AsyncIterable<unknown>;

const BATCH = 256;

function crossed(err: unknown): CrossedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), props: {} };
  const props: CrossedError['props'] = {};
  for (const [k, v] of Object.entries(err)) {
    if (v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
      props[k] = v;
  }
  return { name: err.constructor.name, message: err.message, props };
}

export function serveIsolated(tasks: Record<string, IsolatedTask>): void {
  const port = parentPort;
  if (!port) throw new Error('serveIsolated runs in a worker thread');
  const start = workerData as WorkerStart;
  const send = (m: FromWorker) => port.postMessage(m);

  let acked: (() => void) | undefined;
  const input = new Readable({
    read() {
      send({ t: 'pull' });
    },
  });
  port.on('message', (m: ToWorker) => {
    if (m.t === 'chunk') input.push(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
    else if (m.t === 'end') input.push(null);
    else if (m.t === 'input-error') input.destroy(new Error(m.message));
    else if (m.t === 'ack') {
      const a = acked;
      acked = undefined;
      a?.();
    }
  });

  const flush = async (items: unknown[]) => {
    const taken = new Promise<void>((resolve) => (acked = resolve));
    send({ t: 'items', items });
    await taken;
  };

  void (async () => {
    try {
      const task = tasks[start.task];
      if (!task) throw new Error(`no isolated task "${start.task}"`);
      let batch: unknown[] = [];
      for await (const item of task(input, start.options)) {
        batch.push(item);
        if (batch.length >= BATCH) {
          await flush(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await flush(batch);
      send({ t: 'done' });
    } catch (err) {
      send({ t: 'fail', error: crossed(err) });
    } finally {
      // The service ends this thread once it has read the last message.
      input.destroy();
    }
  })();
}
