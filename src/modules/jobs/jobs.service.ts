import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { conflict, notFound } from '../../errors.js';
import { findJob, listJobs as listJobRows, retryAllFailedJobs, retryFailedJob } from '../../outbox/admin.js';
import { nowIso } from '../../lib/time.js';
import { parseJson } from '../../lib/json.js';
import {
  markCommentPending,
  shownCommentError,
  TRACKER_COMMENT_JOB,
} from '../runs/tracker-comments.service.js';
import { describeDeliveries } from '../webhooks/webhooks.service.js';
import type { Job, JobListQuery } from './jobs.schemas.js';

/** What a job is about, by id: never its whole payload (an event's object may be large). */
function subjectOf(kind: string, payload: string): Record<string, unknown> {
  const p = parseJson<Record<string, unknown>>(payload, {});
  if (kind === 'webhook.event') return { eventId: p.id, type: p.type };
  const { deliveryId, linkId } = p;
  return deliveryId !== undefined ? { deliveryId } : linkId !== undefined ? { linkId } : {};
}

function withDelivery(
  subject: Record<string, unknown>,
  deliveries: Awaited<ReturnType<typeof describeDeliveries>>,
): Record<string, unknown> {
  const d = typeof subject.deliveryId === 'string' ? deliveries.get(subject.deliveryId) : undefined;
  return d ? { ...subject, ...d } : subject;
}

/** The tenant's background jobs, newest first: an admin looks here for the ones that failed for good. */
export async function listJobs(db: Db, actor: Actor, q: JobListQuery): Promise<Job[]> {
  const rows = await listJobRows(db, actor.tenantId, {
    status: q.status,
    kind: q.kind,
    limit: q.limit ?? 100,
    beforeId: q.before,
  });
  // A delivery job names its delivery by id only: the page says which webhook and event it is.
  const deliveryIds = rows.flatMap((r) => {
    const id =
      r.kind === 'webhook.deliver'
        ? parseJson<{ deliveryId?: unknown }>(r.payload, {}).deliveryId
        : undefined;
    return typeof id === 'string' ? [id] : [];
  });
  const deliveries = await describeDeliveries(db, actor.tenantId, deliveryIds);
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    status: r.status,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    runAt: r.run_at,
    lastError:
      r.kind === TRACKER_COMMENT_JOB && r.last_error !== null
        ? shownCommentError(r.last_error)
        : r.last_error,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    subject: withDelivery(subjectOf(r.kind, r.payload), deliveries),
  }));
}

/**
 * Runs a failed job again (every attempt anew). What the job reports on shows it waiting again: a tracker
 * comment's link goes back to `pending`. A webhook delivery can also be redelivered as a new delivery
 * (the webhook's redeliver); retrying its job sends the same delivery again.
 */
export async function retryJob(db: Db, actor: Actor, id: number): Promise<{ message: string }> {
  await db.transaction().execute(async (trx) => {
    const job = await findJob(trx, actor.tenantId, id);
    if (!job) throw notFound(`job ${id} not found`);
    if (!(await retryFailedJob(trx, actor.tenantId, id)))
      throw conflict(`job ${id} is ${job.status}: only a failed job can be retried`);
    await showPendingAgain(trx, job);
  });
  return { message: 'Job queued again' };
}

/** What a retried job reports on shows it waiting again: a tracker comment's link goes back to `pending`. */
async function showPendingAgain(trx: Db, job: { kind: string; payload: string }): Promise<void> {
  if (job.kind !== TRACKER_COMMENT_JOB) return;
  const { linkId } = parseJson<{ linkId?: number }>(job.payload, {});
  if (linkId !== undefined) await markCommentPending(trx, linkId, nowIso());
}

/**
 * Runs every failed job of the tenant again (of one kind, when given), as retryJob does for one, in one
 * transaction: a fixed tracker token or a receiver back up needs them all, not one click per job.
 */
export async function retryAllJobs(db: Db, actor: Actor, kind?: string): Promise<{ retried: number }> {
  const retried = await db.transaction().execute(async (trx) => {
    const jobs = await retryAllFailedJobs(trx, actor.tenantId, kind);
    for (const job of jobs) await showPendingAgain(trx, job);
    return jobs.length;
  });
  return { retried };
}
