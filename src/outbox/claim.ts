import type { ExpressionBuilder, Selectable, SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/create-db.js';
import { claimsTakeWriteLock, forUpdateSkipLocked, lockKeyForTransaction } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { JobsTable } from '../db/tables/jobs.js';

// Claiming jobs of the outbox (outbox.ts): its rules for queues, leases, attempts and tenants' shares.

const iso = (ms: number) => new Date(ms).toISOString();

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
  /**
   * Running jobs past their lease on their last attempt are failed instead of claimed; this is told of them in
   * the same transaction (their module marks what it tracks failed).
   */
  exhausted?: (trx: Db, jobs: ClaimedJob[]) => Promise<void>;
  /**
   * Fair shares: a tenant with this many jobs of these kinds running under live leases (in every runner) gets more
   * only after every other tenant's due jobs, and only while the claim stays within `beyondShareUpTo` jobs (the
   * runner keeps a slot that no tenant past its share may take).
   */
  tenantShare?: number;
  beyondShareUpTo?: number;
}

/** What jobs.last_error says of a job whose lease expired on its last attempt. */
export const EXHAUSTED =
  'its lease expired on its last attempt (its runner stopped answering): no attempt is left';

const toClaimed = (r: Selectable<JobsTable>, token: string): ClaimedJob => ({
  id: Number(r.id),
  tenantId: r.tenant_id,
  kind: r.kind,
  queueKey: r.queue_key,
  payload: JSON.parse(r.payload) as unknown,
  attempt: Number(r.attempts),
  maxAttempts: Number(r.max_attempts),
  createdAt: r.created_at,
  token,
});

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
    await failExhausted(trx, o, now);
    // Queues with a job running under a live lease wait; their backlog is passed over in the index, not
    // checked row by row (a webhook with thousands of deliveries waiting behind one in flight).
    const busy = await busyQueues(trx, o.kinds, now);
    const share = o.tenantShare;
    const running =
      share === undefined ? new Map<string, number>() : await runningPerTenant(trx, o.kinds, now);
    const full = [...running].filter(([, n]) => n >= share!).map(([t]) => t);
    // Tenants below their share first; those at it only when room is left over for them.
    const candidates = await dueCandidates(trx, o, now, busy, (qb) =>
      full.length === 0 ? qb : qb.where('tenant_id', 'not in', full),
    );
    const overflow =
      full.length > 0 && (o.beyondShareUpTo ?? 0) > 0
        ? await dueCandidates(trx, o, now, busy, (qb) => qb.where('tenant_id', 'in', full))
        : [];
    const order: { id: number; tenant_id: string }[] = [];
    const queues = new Set<string>();
    for (const c of [...candidates, ...overflow]) {
      if (c.queue_key === null) order.push({ id: Number(c.id), tenant_id: c.tenant_id });
      else queues.add(c.queue_key);
    }
    if (queues.size > 0) order.push(...(await queueHeads(trx, [...queues], now)));
    const ids: number[] = [];
    const later: number[] = [];
    for (const c of order) {
      const n = running.get(c.tenant_id) ?? 0;
      if (share !== undefined && n >= share) later.push(c.id);
      else {
        ids.push(c.id);
        running.set(c.tenant_id, n + 1);
      }
    }
    ids.splice(o.limit);
    ids.push(...later.slice(0, Math.max(0, Math.min(o.beyondShareUpTo ?? 0, o.limit) - ids.length)));
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
      .where(due(now))
      .returningAll()
      .execute();
    const claimed = rows.map((r) => toClaimed(r, o.token)).sort((a, b) => a.id - b.id);
    if (o.within) await o.within(trx, claimed);
    return claimed;
  });
}

type JobsQuery<O> = SelectQueryBuilder<Database, 'jobs', O>;

/** Pending and due, or running with an expired lease and attempts left (a dead runner's). */
const due = (now: string) => (eb: ExpressionBuilder<Database, 'jobs'>) =>
  eb.or([
    eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]),
    eb.and([
      eb('status', '=', 'running'),
      eb('locked_until', '<', now),
      eb('attempts', '<', eb.ref('max_attempts')),
    ]),
  ]);

/** Due jobs, oldest first, of queues not busy: running ones whose runner died, then pending ones. */
async function dueCandidates(
  trx: Db,
  o: ClaimOptions,
  now: string,
  busy: string[],
  only: <O>(qb: JobsQuery<O>) => JobsQuery<O>,
) {
  const idle = <O>(qb: JobsQuery<O>): JobsQuery<O> =>
    only(
      busy.length === 0
        ? qb
        : qb.where((eb) => eb.or([eb('queue_key', 'is', null), eb('queue_key', 'not in', busy)])),
    );
  return [
    ...(await forUpdateSkipLocked(
      trx,
      idle(
        trx
          .selectFrom('jobs')
          .select(['id', 'queue_key', 'tenant_id'])
          .where('kind', 'in', o.kinds)
          .where('status', '=', 'running')
          .where('locked_until', '<', now)
          .whereRef('attempts', '<', 'max_attempts'),
      )
        .orderBy('id')
        .limit(o.limit * 4),
    ).execute()),
    ...(await forUpdateSkipLocked(
      trx,
      idle(
        trx
          .selectFrom('jobs')
          .select(['id', 'queue_key', 'tenant_id'])
          .where('kind', 'in', o.kinds)
          .where('status', '=', 'pending')
          .where('run_at', '<=', now),
      )
        .orderBy('run_at')
        .orderBy('id')
        .limit(o.limit * 4),
    ).execute()),
  ];
}

/**
 * Of each queue only its head runs: the due job with the lowest id (the oldest, even when a retry made a later one
 * due first), and only while nothing of its queue runs under a live lease.
 */
async function queueHeads(trx: Db, queues: string[], now: string) {
  // Claims of one queue take turns (PostgreSQL: advisory locks, in one order), so what follows sees the
  // previous claim committed: its job running, the queue busy.
  for (const q of [...queues].sort()) await lockKeyForTransaction(trx, `jobs-queue:${q}`);
  const heads = await forUpdateSkipLocked(
    trx,
    trx
      .selectFrom('jobs')
      .select(['id', 'tenant_id'])
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('jobs as q')
          .select((e) => e.fn.min('q.id').as('id'))
          .where('q.queue_key', 'in', queues)
          .where((e) =>
            e.or([
              e.and([e('q.status', '=', 'pending'), e('q.run_at', '<=', now)]),
              e.and([
                e('q.status', '=', 'running'),
                e('q.locked_until', '<', now),
                e('q.attempts', '<', e.ref('q.max_attempts')),
              ]),
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
  return heads.map((h) => ({ id: Number(h.id), tenant_id: h.tenant_id }));
}

/** Running jobs whose lease expired on their last attempt: failed, and `o.exhausted` told of them. */
async function failExhausted(trx: Db, o: ClaimOptions, now: string): Promise<void> {
  const stale = await forUpdateSkipLocked(
    trx,
    trx
      .selectFrom('jobs')
      .select('id')
      .where('kind', 'in', o.kinds)
      .where('status', '=', 'running')
      .where('locked_until', '<', now)
      .whereRef('attempts', '>=', 'max_attempts')
      .orderBy('id')
      .limit(100),
  ).execute();
  if (stale.length === 0) return;
  const rows = await trx
    .updateTable('jobs')
    .set({ status: 'failed', locked_by: null, locked_until: null, finished_at: now, last_error: EXHAUSTED })
    .where(
      'id',
      'in',
      stale.map((r) => Number(r.id)),
    )
    .where('status', '=', 'running')
    .where('locked_until', '<', now)
    .returningAll()
    .execute();
  if (rows.length > 0 && o.exhausted)
    await o.exhausted(
      trx,
      rows.map((r) => toClaimed(r, '')),
    );
}

/** Jobs of these kinds running under a live lease, per tenant (in every runner). */
async function runningPerTenant(db: Db, kinds: string[], now: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['tenant_id', eb.fn.countAll<number>().as('n')])
    .where('kind', 'in', kinds)
    .where('status', '=', 'running')
    .where('locked_until', '>=', now)
    .groupBy('tenant_id')
    .execute();
  return new Map(rows.map((r) => [r.tenant_id, Number(r.n)]));
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
