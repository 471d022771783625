import type { Db } from '../db/create-db.js';
import { claimsTakeWriteLock, forUpdateSkipLocked, lockKeyForTransaction } from '../db/dialect.js';
import type { SelectQueryBuilder } from 'kysely';
import type { JobsTable } from '../db/tables/jobs.js';
import type { Database } from '../db/schema.js';
import { wakeJobRunners } from './wakers.js';

// src/outbox/, beside db/ and not in it: db/ is the connection and its dialects, the outbox a table with rules
// (leases, queues) that modules write and src/jobs/ runs; below both, so neither folder imports the other.

/**
 * The job outbox: a job is a row of `jobs`, inserted in the transaction of the change that causes
 * it, so it exists exactly when the change does. Runners (src/jobs/runner.ts) claim rows with a lease; the
 * lease's token guards every later write, so a runner whose lease expired (it was presumed dead and another took
 * the job) changes nothing. Only this folder touches the table (admin.ts: the admin's view and retries).
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

export interface ClaimedJob {
  id: number;
  tenantId: string;
  kind: string;
  queueKey: string | null;
  payload: unknown;
  /** 1 on the first run; counts runs whose lease expired too. */
  attempt: number;
  maxAttempts: number;
  createdAt: string;
  /** The claim's token: the runner holds the job while the row carries it. */
  token: string;
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

export interface ClaimOptions {
  token: string;
  nowMs: number;
  leaseMs: number;
  limit: number;
  kinds: string[];
  /**
   * Claims of one key take turns (PostgreSQL: an advisory lock to the end of the transaction), and `within`
   * runs in the claiming transaction: work that must happen in claim order (fanning events out) is then done
   * by one runner at a time, oldest first. SQLite's claims take turns anyway.
   */
  serialKey?: string;
  within?: (trx: Db, jobs: ClaimedJob[]) => Promise<void>;
}

/**
 * Claims up to `limit` jobs that are due (pending with run_at passed, or running with an expired lease: its
 * runner died), oldest first. Of jobs sharing a queue key only the first due one is taken, and none while
 * another of its queue runs under a live lease, so a queue's jobs run one at a time, in order (a job waiting
 * for its retry lets the later ones pass).
 * PostgreSQL: FOR UPDATE SKIP LOCKED, so concurrent claims take different rows; SQLite: the transaction
 * (BEGIN IMMEDIATE) holds the write lock, so claims across processes take turns.
 */
export async function claimJobs(db: Db, o: ClaimOptions): Promise<ClaimedJob[]> {
  if (o.limit <= 0 || o.kinds.length === 0) return [];
  const now = iso(o.nowMs);
  // Where a claim takes the database's write lock (SQLite), writers take turns with the requests' own writes. A
  // read (which WAL never blocks) first tells whether anything is claimable; most wake-ups find nothing (a
  // webhook's next delivery waits behind the one in flight), and then no write lock is taken. PostgreSQL's claim
  // skips locked rows and blocks nobody, so it goes straight on.
  if (claimsTakeWriteLock(db) && !(await anyClaimable(db, o.kinds, now))) return [];
  return db.transaction().execute(async (trx) => {
    if (o.serialKey) await lockKeyForTransaction(trx, o.serialKey);
    // Queues with a job running under a live lease wait; their backlog is passed over in the index, not
    // checked row by row (a webhook with thousands of deliveries waiting behind one in flight).
    const busy = await busyQueues(trx, o.kinds, now);
    const idle = <O>(qb: SelectQueryBuilder<Database, 'jobs', O>): SelectQueryBuilder<Database, 'jobs', O> =>
      busy.length === 0
        ? qb
        : qb.where((eb) => eb.or([eb('queue_key', 'is', null), eb('queue_key', 'not in', busy)]));
    // Due jobs, oldest first: pending ones whose time has come, and running ones whose runner died.
    const candidates = [
      ...(await forUpdateSkipLocked(
        trx,
        idle(
          trx
            .selectFrom('jobs')
            .select(['id', 'queue_key'])
            .where('kind', 'in', o.kinds)
            .where('status', '=', 'running')
            .where('locked_until', '<', now),
        )
          .orderBy('id')
          .limit(o.limit * 4),
      ).execute()),
      ...(await forUpdateSkipLocked(
        trx,
        idle(
          trx
            .selectFrom('jobs')
            .select(['id', 'queue_key'])
            .where('kind', 'in', o.kinds)
            .where('status', '=', 'pending')
            .where('run_at', '<=', now),
        )
          .orderBy('run_at')
          .orderBy('id')
          .limit(o.limit * 4),
      ).execute()),
    ];
    const ids: number[] = [];
    const queues = new Set<string>();
    for (const c of candidates) {
      if (c.queue_key === null) ids.push(Number(c.id));
      else queues.add(c.queue_key);
    }
    if (queues.size > 0) {
      // Claims of one queue take turns (PostgreSQL: advisory locks, in one order), so what follows sees the
      // previous claim committed: its job running, the queue busy.
      for (const q of [...queues].sort()) await lockKeyForTransaction(trx, `jobs-queue:${q}`);
      // Of a queue only its head runs: the due job with the lowest id (the oldest, even when a retry made a
      // later one due first), and only while nothing of its queue runs under a live lease.
      const heads = await forUpdateSkipLocked(
        trx,
        trx
          .selectFrom('jobs')
          .select('id')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('jobs as q')
              .select((e) => e.fn.min('q.id').as('id'))
              .where('q.queue_key', 'in', [...queues])
              .where((e) =>
                e.or([
                  e.and([e('q.status', '=', 'pending'), e('q.run_at', '<=', now)]),
                  e.and([e('q.status', '=', 'running'), e('q.locked_until', '<', now)]),
                ]),
              )
              .where((e) =>
                e.not(
                  e.exists(
                    e
                      .selectFrom('jobs as busy')
                      .select('busy.id')
                      .whereRef('busy.queue_key', '=', 'q.queue_key')
                      .where('busy.status', '=', 'running')
                      .where('busy.locked_until', '>=', now),
                  ),
                ),
              )
              .groupBy('q.queue_key'),
          ),
      ).execute();
      ids.push(...heads.map((h) => Number(h.id)));
    }
    ids.splice(o.limit);
    if (ids.length === 0) return [];
    const rows = await trx
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running' as const,
        locked_by: o.token,
        locked_until: iso(o.nowMs + o.leaseMs),
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', 'in', ids)
      // Checked again on the row as it is now: on PostgreSQL a row claimed and committed by another runner since
      // it was selected is passed over here, never claimed twice.
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('locked_until', '<', now)]),
        ]),
      )
      .returningAll()
      .execute();
    const claimed = rows
      .map((r) => ({
        id: Number(r.id),
        tenantId: r.tenant_id,
        kind: r.kind,
        queueKey: r.queue_key,
        payload: JSON.parse(r.payload) as unknown,
        attempt: Number(r.attempts),
        maxAttempts: Number(r.max_attempts),
        createdAt: r.created_at,
        token: o.token,
      }))
      .sort((a, b) => a.id - b.id);
    if (o.within) await o.within(trx, claimed);
    return claimed;
  });
}

/** Whether some job of these kinds is due and not held back by its queue (a job of it running under a live lease). */
async function anyClaimable(db: Db, kinds: string[], now: string): Promise<boolean> {
  const busy = await busyQueues(db, kinds, now);
  let q = db
    .selectFrom('jobs')
    .select('id')
    .where('kind', 'in', kinds)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]),
        eb.and([eb('status', '=', 'running'), eb('locked_until', '<', now)]),
      ]),
    );
  if (busy.length > 0)
    q = q.where((eb) => eb.or([eb('queue_key', 'is', null), eb('queue_key', 'not in', busy)]));
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/** Queues with a job running under a live lease: their other jobs wait. */
async function busyQueues(db: Db, kinds: string[], now: string): Promise<string[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('queue_key')
    .distinct()
    .where('kind', 'in', kinds)
    .where('status', '=', 'running')
    .where('locked_until', '>=', now)
    .where('queue_key', 'is not', null)
    .execute();
  return rows.map((r) => r.queue_key!);
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
 * Extends the lease of a job still running (a long job, such as an import, says it is alive); false when the lease
 * was lost already.
 */
export async function extendLease(db: Db, id: number, token: string, untilMs: number): Promise<boolean> {
  const r = await held(db, [id], token)
    .set({ locked_until: iso(untilMs) })
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
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
