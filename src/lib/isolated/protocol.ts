/*
 * The messages between the service and a parser's worker thread (isolated/run.ts ⇄ isolated/serve.ts). Both ways
 * are pulled, one step at a time, so neither side ever holds more than a chunk of the file and a batch of items:
 * the worker asks for the next chunk of input when its parser wants it, and sends a batch of items only after the
 * service took the batch before.
 */

/** The service to the worker. */
export type ToWorker =
  /** The next chunk of the file (its buffer transferred), or the end of it. */
  | { t: 'chunk'; data: Uint8Array }
  | { t: 'end' }
  /** Reading the file failed on the service's side (storage): the parser's input errors with this message. */
  | { t: 'input-error'; message: string }
  /** The service took the last batch: the worker may send the next. */
  | { t: 'ack' };

/** An error as it crosses the thread: its class name and own fields (a line number, a limit) beside the message. */
export interface CrossedError {
  name: string;
  message: string;
  props: Record<string, string | number | boolean | undefined>;
}

/** The worker to the service. */
export type FromWorker =
  { t: 'pull' } | { t: 'items'; items: unknown[] } | { t: 'done' } | { t: 'fail'; error: CrossedError };

/** What the worker is started with. */
export interface WorkerStart {
  task: string;
  options: unknown;
}
