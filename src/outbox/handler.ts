import type { Config } from '../config.js';
import type { Db } from '../db/create-db.js';
import type { Parsers } from '../lib/isolated/run.js';
import type { FilesContext } from '../modules/files/files.service.js';
import type { TcasesChanged } from '../modules/test-cases/test-cases.service.js';
import type { OutboundGuard } from '../lib/ssrf.js';
import type { ClaimedJob } from './outbox.js';

/*
 * What a module declares about its background work, and what it is handed to do it. The module that owns a job's
 * tables writes its handler (webhooks/*.job.ts, runs/tracker-comment.job.ts, retention in audit and idempotency);
 * modules/index.ts lists them and src/jobs/ runs them, so no module imports src/jobs/.
 */

/** A job's handler ran on after another runner took its job over (its lease had expired): it stops, writing nothing. */
export class LeaseLost extends Error {
  constructor(readonly jobId: number) {
    super(`job ${jobId} was taken over by another runner`);
  }
}

/** What an import (or other tracked work) says when its job ran out of attempts with its runner not answering. */
export const stoppedMessage = (job: ClaimedJob): string =>
  `the import was stopped: its worker stopped answering ${job.attempt} ${job.attempt === 1 ? 'time' : 'times'} ` +
  '(the server restarted or stalled while it ran); start it again';

/**
 * The claim on one job, kept by the runner's heartbeat while the handler runs. A handler checks it before each
 * step and writes its progress through `write`, so an attempt that was superseded stops without writing.
 */
export interface JobLease {
  /** False once a renewal was refused or a check found the job taken over. */
  held(): boolean;
  /** Throws LeaseLost when the job is no longer held (asks the database). */
  check(): Promise<void>;
  /** Runs `write` in a transaction holding the job's row; throws LeaseLost, with nothing run, when it is not held. */
  write<T>(write: (trx: Db) => Promise<T>): Promise<T>;
}

/** What a handler gets besides its job(s): the clock, and the job's transitions to make in its own transaction. */
export interface JobContext {
  now(): number;
  /** The claim on `job`: see JobLease. */
  lease(job: ClaimedJob): JobLease;
  /** Marks jobs done inside `trx` (with the handler's own writes); answers how many were still held. */
  complete(trx: Db, jobs: ClaimedJob[]): Promise<number>;
  /** Puts the job back for another attempt after the back-off (or `delayMs`); failed once attempts are used up. */
  retry(
    trx: Db,
    job: ClaimedJob,
    error: string,
    delayMs?: number,
  ): Promise<{ held: boolean; final: boolean; nextAt?: number }>;
  /** The terminal failed state. */
  fail(trx: Db, job: ClaimedJob, error: string): Promise<boolean>;
  /** When the next attempt of `job` would be, or undefined when it was the last. */
  nextAttemptAt(job: ClaimedJob, delayMs?: number): number | undefined;
}

/**
 * One kind of job. `batch`: claimed up to `batch` at a time and given to one call: in the claim (`inClaim`,
 * fanning events out), or in flight in one of the runner's slots, a kind's calls in at most half of them
 * (webhook deliveries, sent side by side); otherwise one job per call, up to the runner's concurrency at once.
 * A handler that returns without finishing its job has it marked done; one that throws has it retried.
 */
export interface JobHandler {
  batch?: number;
  /**
   * Batch kinds only: run inside the claiming transaction, one runner at a time (in every process), so jobs are
   * handled in the order they were written. A batch that fails there is claimed again the ordinary way, so its
   * failures count attempts and back off.
   */
  inClaim?: boolean;
  run(db: Db, jobs: ClaimedJob[], ctx: JobContext): Promise<void>;
  /**
   * Told, inside the claim's transaction, of a job that ran out of attempts with its lease expired (its runner
   * stopped answering each time): the job is failed, and the handler ends what it tracks (an import's row).
   */
  exhausted?(trx: Db, job: ClaimedJob): Promise<void>;
}

export interface JobLog {
  info: (o: object, m: string) => void;
  error: (o: object, m: string) => void;
}

/** What job handlers and passes are handed, built once by the registry (src/jobs/index.ts) from the app's context. */
export interface JobEnv {
  config: Config;
  /** Every outbound request goes through it (AppContext.outboundGuard). */
  guard: OutboundGuard;
  /** Uploaded files are parsed through these (AppContext.parsers): the app's bound on parses at once. */
  parsers: Parsers;
  /** The app's file storages (AppContext.files): jobs read and remove uploads through them, as routes do. */
  files: FilesContext;
  /** D17: test-case writes tell open live runs (AppContext.tcasesChanged). */
  tcasesChanged: TcasesChanged;
  log?: JobLog;
}

/** A kind of job in the outbox and the handler that runs it. */
export interface QueuedJob {
  type: 'queued';
  kind: string;
  handler(env: JobEnv): JobHandler;
}

/**
 * A pass that every server process runs on an interval, never two at once (retention: deleting expired rows twice
 * is harmless, so processes need not agree who does it).
 */
export interface PeriodicJob {
  type: 'periodic';
  name: string;
  intervalMs: number;
  run(db: Db, env: JobEnv): Promise<void>;
}

export type JobDefinition = QueuedJob | PeriodicJob;
