import type { Db } from '../db/create-db.js';
import type { JobStatus } from './outbox.js';
import { wakeJobRunners } from './wakers.js';

// The admin's view of the jobs table (the jobs module's page): list, look up, retry failed ones. Beside outbox.ts,
// which holds the runners' side (enqueue, claim, complete).

const iso = (ms: number) => new Date(ms).toISOString();

export interface JobFilter {
  status?: JobStatus;
  kind?: string;
  limit: number;
  /** Jobs with a smaller id (the next page of a newest-first list). */
  beforeId?: number;
}

/** A tenant's jobs, newest first (the admin's view of failed ones). */
export const listJobs = (db: Db, tenantId: string, f: JobFilter) => {
  let q = db
    .selectFrom('jobs')
    .select([
      'id',
      'kind',
      'status',
      'attempts',
      'max_attempts',
      'run_at',
      'last_error',
      'created_at',
      'finished_at',
      'payload',
    ])
    .where('tenant_id', '=', tenantId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.kind) q = q.where('kind', '=', f.kind);
  if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
  return q.orderBy('id', 'desc').limit(f.limit).execute();
};

export const findJob = (db: Db, tenantId: string, id: number) =>
  db
    .selectFrom('jobs')
    .select(['id', 'kind', 'status', 'payload'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * An admin's retry of a failed job: pending again, due now, with a fresh count of attempts (the last error is
 * kept until the next attempt writes its own). False when the job is not failed (any more).
 */
export async function retryFailedJob(
  trx: Db,
  tenantId: string,
  id: number,
  nowMs = Date.now(),
): Promise<boolean> {
  const r = await trx
    .updateTable('jobs')
    .set({
      status: 'pending',
      attempts: 0,
      run_at: iso(nowMs),
      finished_at: null,
      locked_by: null,
      locked_until: null,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) wakeJobRunners(trx);
  return Number(r.numUpdatedRows) > 0;
}

/**
 * An admin's "retry all": every failed job of the tenant (of one kind, when given) pending again, as
 * retryFailedJob does for one, in one statement. Answers the jobs it took, for what they report on.
 */
export async function retryAllFailedJobs(
  trx: Db,
  tenantId: string,
  kind?: string,
  nowMs = Date.now(),
): Promise<{ id: number; kind: string; payload: string }[]> {
  let q = trx
    .updateTable('jobs')
    .set({
      status: 'pending',
      attempts: 0,
      run_at: iso(nowMs),
      finished_at: null,
      locked_by: null,
      locked_until: null,
    })
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'failed');
  if (kind !== undefined) q = q.where('kind', '=', kind);
  const rows = await q.returning(['id', 'kind', 'payload']).execute();
  if (rows.length > 0) wakeJobRunners(trx);
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, payload: r.payload }));
}
