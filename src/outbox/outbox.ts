import type { Db } from '../db/create-db.js';
import { forShare } from '../db/dialect.js';
import type { JobsTable } from '../db/tables/jobs.js';
import { wakeJobRunners } from './wakers.js';

export { claimJobs, EXHAUSTED, type ClaimedJob, type ClaimOptions } from './claim.js';

// src/outbox/, beside db/ and not in it: db/ is the connection and its dialects, the outbox a table with rules
// (leases, queues) that modules write and src/jobs/ runs; below both, so neither folder imports the other.

/**
 * The job outbox: a job is a row of `jobs`, inserted in the transaction of the change that causes
 * it, so it exists exactly when the change does. Runners (src/jobs/runner.ts) claim rows with a lease; the
 * lease's token guards every later write, so a runner whose lease expired (it was presumed dead and another took
 * the job) changes nothing. Only this folder touches the table (admin.ts: the admin's view and retries).
 *
 * Fencing: the runner renews the lease of every job it holds while its handler runs; a renewal refused means
 * another runner took the job, and the handler stops at its next step. The handler's own progress writes go
 * through `whileHeld` (the job's row locked and checked for its token in the same transaction), so a superseded
 * attempt writes nothing. A job whose lease expired on its last attempt is not claimed again: it fails, and its
 * module is told (`exhausted`), so what it tracks does not stay running for ever.
 */

export type JobStatus = JobsTable['status'];

export interface NewJob {
  tenantId: string;
  kind: string;
  payload: unknown;
  queueKey?: string | null;
  /** When it may first run; now by default. */
  runAt?: string;
  maxAttempts?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 10;

const iso = (ms: number) => new Date(ms).toISOString();

/** Inserts jobs; call with the transaction of the change that causes them. One statement for any number. */
export async function enqueueJobs(trx: Db, jobs: NewJob[], nowMs = Date.now()): Promise<void> {
  if (jobs.length === 0) return;
  const now = iso(nowMs);
  await trx
    .insertInto('jobs')
    .values(
      jobs.map((j) => ({
        tenant_id: j.tenantId,
        kind: j.kind,
        queue_key: j.queueKey ?? null,
        payload: JSON.stringify(j.payload),
        status: 'pending' as const,
        max_attempts: j.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        run_at: j.runAt ?? now,
        created_at: now,
        locked_by: null,
        locked_until: null,
        last_error: null,
        finished_at: null,
      })),
    )
    .execute();
  // This app's runners are woken at once; other processes' by NOTIFY or their poll.
  wakeJobRunners(trx);
}

const held = (trx: Db, ids: number[], token: string) =>
  trx
    .updateTable('jobs')
    .where('id', 'in', ids)
    .where('locked_by', '=', token)
    .where('status', '=', 'running');

/** Marks claimed jobs done; answers how many were still held (a lost lease changes nothing). */
export async function completeJobs(
  trx: Db,
  ids: number[],
  token: string,
  nowMs = Date.now(),
): Promise<number> {
  if (ids.length === 0) return 0;
  const r = await held(trx, ids, token)
    .set({ status: 'done', locked_by: null, locked_until: null, finished_at: iso(nowMs) })
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Extends the lease of a job still running (the runner's heartbeat, while the handler runs); false when the lease
 * was lost already.
 */
export async function extendLease(db: Db, id: number, token: string, untilMs: number): Promise<boolean> {
  const r = await held(db, [id], token)
    .set({ locked_until: iso(untilMs) })
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Whether the claim `token` still holds job `id` (no other runner took it over). */
export async function stillHeld(db: Db, id: number, token: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('id', '=', id)
    .where('locked_by', '=', token)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Runs `write` in a transaction that first locks the job's row, found still held by `token` (PostgreSQL: FOR
 * SHARE, which a claim passes over; SQLite: the transaction's write lock): a superseded attempt writes nothing.
 * Answers undefined, with nothing run, when the job is no longer held.
 */
export async function whileHeld<T>(
  db: Db,
  id: number,
  token: string,
  write: (trx: Db) => Promise<T>,
): Promise<{ value: T } | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await forShare(
      trx,
      trx
        .selectFrom('jobs')
        .select('id')
        .where('id', '=', id)
        .where('locked_by', '=', token)
        .where('status', '=', 'running'),
    ).executeTakeFirst();
    if (!row) return undefined;
    return { value: await write(trx) };
  });
}

/** Puts a claimed job back to run at `runAtMs`; false when the lease was lost. */
export async function retryJob(
  trx: Db,
  id: number,
  token: string,
  runAtMs: number,
  error: string,
): Promise<boolean> {
  const r = await held(trx, [id], token)
    .set({ status: 'pending', locked_by: null, locked_until: null, run_at: iso(runAtMs), last_error: error })
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The terminal failed state: kept (visible, retryable by an admin) until retention removes it. */
export async function failJob(
  trx: Db,
  id: number,
  token: string,
  error: string,
  nowMs = Date.now(),
): Promise<boolean> {
  const r = await held(trx, [id], token)
    .set({
      status: 'failed',
      locked_by: null,
      locked_until: null,
      last_error: error,
      finished_at: iso(nowMs),
    })
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Exponential back-off with jitter: base·2^(attempt-1), capped, then a random half to all of it. */
export function backoffMs(
  attempt: number,
  random: () => number = Math.random,
  baseMs = 10_000,
  capMs = 3_600_000,
): number {
  const full = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

/** Deletes finished (done or failed) jobs older than `cutoff`, `batchSize` per statement; answers how many. */
export async function purgeFinishedJobs(db: Db, cutoff: string, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await db
      .deleteFrom('jobs')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where('finished_at', '<', cutoff)
          .where('status', 'in', ['done', 'failed'])
          .limit(batchSize),
      )
      .executeTakeFirst();
    const n = Number(r.numDeletedRows);
    total += n;
    if (n < batchSize) return total;
  }
}

/**
 * When the next job of these kinds falls due after `nowMs` (a retry's run_at, a lease's end), or undefined when
 * none will. Jobs already due are left out: they wait for a busy queue, whose job in flight wakes the runner.
 */
export async function nextDueAt(db: Db, kinds: string[], nowMs: number): Promise<number | undefined> {
  if (kinds.length === 0) return undefined;
  const now = iso(nowMs);
  const row = await db
    .selectFrom('jobs')
    .select((eb) => [
      eb
        .selectFrom('jobs')
        .select((e) => e.fn.min('run_at').as('t'))
        .where('status', '=', 'pending')
        .where('kind', 'in', kinds)
        .where('run_at', '>', now)
        .as('pending_at'),
      eb
        .selectFrom('jobs')
        .select((e) => e.fn.min('locked_until').as('t'))
        .where('status', '=', 'running')
        .where('kind', 'in', kinds)
        .where('locked_until', '>', now)
        .as('lease_at'),
    ])
    .limit(1)
    .executeTakeFirst();
  const times = [row?.pending_at, row?.lease_at]
    .filter((t): t is string => typeof t === 'string')
    .map((t) => Date.parse(t));
  return times.length > 0 ? Math.min(...times) : undefined;
}

export interface QueueStat {
  kind: string;
  /** Jobs waiting to run (pending, due or waiting for a retry's back-off). */
  depth: number;
  /** When the oldest of them was due (ms since the epoch), or undefined when none waits. */
  oldestDueMs: number | undefined;
}

/**
 * How many jobs of each kind wait and since when: one range read of `jobs_ready_idx` (kind, status, run_at) per
 * kind, so it costs the number of waiting jobs, not the table's history (the metrics scrape asks it).
 */
export async function queueStats(db: Db, kinds: readonly string[]): Promise<QueueStat[]> {
  return Promise.all(
    kinds.map(async (kind) => {
      const row = await db
        .selectFrom('jobs')
        .select((eb) => [eb.fn.countAll<number>().as('depth'), eb.fn.min('run_at').as('oldest')])
        .where('kind', '=', kind)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      const oldest = row?.oldest as string | null | undefined;
      return {
        kind,
        depth: Number(row?.depth ?? 0),
        oldestDueMs: oldest ? Date.parse(oldest) : undefined,
      };
    }),
  );
}
