import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ResultLinksTable } from '../../db/tables/execution.js';
import { enqueueJobs } from '../../outbox/outbox.js';
import { parseJson } from '../../lib/json.js';
import * as repo from './results/results.repository.js';

/**
 * Issue-tracker comment-back (D24): a result link with `meta.id` on a tracker integration (not `custom`) gets a
 * comment on that issue pointing back to the result, posted by a job (tracker-comment.job.ts). The job is
 * written in the result's transaction, so a result that rolls back comments on nothing, and the request never
 * waits for the tracker. The link carries the outcome: pending, posted (with the comment's id) or failed.
 */
export const TRACKER_COMMENT_JOB = 'tracker.comment';

/**
 * A comment error as shown: errors stored before the job wrote only its own words (tracker-comment.adapters.ts) quoted the
 * tracker's answer after `the tracker answered HTTP <status>: `, and such an answer may hold the credential (a Basic
 * header quoted back). Only the status of those is shown.
 */
export function shownCommentError(stored: string): string {
  const quoted = /^the tracker answered HTTP (\d{3}): /.exec(stored);
  return quoted ? `the tracker answered HTTP ${quoted[1]}` : stored;
}

/** A tracker's issue reference in a link's meta: a non-empty string (a number is taken as its digits). */
export function issueRefOf(meta: unknown): string | undefined {
  const id = (meta as { id?: unknown } | null)?.id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined;
}

/**
 * Inserts a request's result links; those due a comment are inserted `pending`, each with its job. One extra
 * statement (the integrations' types) only when some link names an integration and an issue.
 */
export async function insertLinksWithComments(
  trx: Db,
  tenantId: string,
  rows: Insertable<ResultLinksTable>[],
  now: string,
): Promise<void> {
  const candidates = rows.filter((r) => r.integration_id && issueRefOf(parseJson(r.meta, {})) !== undefined);
  const trackers =
    candidates.length === 0
      ? new Set<string>()
      : await repo.trackerIntegrationIds(trx, tenantId, [
          ...new Set(candidates.map((r) => r.integration_id!)),
        ]);
  const commented = candidates.filter((r) => trackers.has(r.integration_id!));
  const plain = rows.filter((r) => !commented.includes(r));
  if (plain.length > 0) await repo.insertResultLinks(trx, plain);
  if (commented.length === 0) return;
  const ids: number[] = [];
  for (const row of commented)
    ids.push(await repo.insertResultLink(trx, { ...row, comment_status: 'pending', comment_at: now }));
  await enqueueJobs(
    trx,
    ids.map((linkId) => ({ tenantId, kind: TRACKER_COMMENT_JOB, payload: { linkId }, maxAttempts: 10 })),
  );
}

/** A comment asked for again (an admin retried its job): the link shows it waiting. */
export async function markCommentPending(trx: Db, linkId: number, at: string): Promise<void> {
  await repo.setLinkComment(trx, linkId, { status: 'pending', at });
}
