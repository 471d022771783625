import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { ResultsTable } from '../../../db/tables/execution.js';
import type { FailureSignaturesTable } from '../../../db/tables/triage.js';
import {
  failureSignature,
  SIGNATURE_VERSION,
  SIGNED_STATUSES,
  type FailureSignature,
} from '../../../lib/failure-signature.js';
import type { Actor } from '../../../auth/actor.js';
import { validationFailed, type ErrorDetail } from '../../../errors.js';
import { isHttpUrl } from '../../../lib/urls.js';
import { getLinkedIntegration } from '../../integrations/integrations.service.js';
import { insertLinksWithComments } from '../tracker-comments.service.js';
import type { ResultLinkInput } from '../results/results.schemas.js';
import * as repo from './failures.repository.js';

/** Signs comments, each distinct one once: CI batches repeat one stack trace for many cases. */
function signer(): (comment: string) => FailureSignature {
  const seen = new Map<string, FailureSignature>();
  return (comment) => {
    let sig = seen.get(comment);
    if (!sig) {
      sig = failureSignature(comment);
      seen.set(comment, sig);
    }
    return sig;
  };
}

/**
 * Stores the signature of each failed or blocked result just written, in the write's transaction
 * (docs/api-decisions.md#failure-triage). `rows` are the results as stored (comments sanitised, D22); `ids` theirs.
 */
export async function signFailures(
  trx: Db,
  projectId: string,
  rows: Insertable<ResultsTable>[],
  ids: number[],
): Promise<void> {
  const sign = signer();
  const out: Insertable<FailureSignaturesTable>[] = [];
  rows.forEach((row, i) => {
    if (!SIGNED_STATUSES.includes(row.status)) return;
    const { signature, label } = sign(row.comment ?? '');
    out.push({
      result_id: ids[i],
      tenant_id: row.tenant_id,
      project_id: projectId,
      run_id: row.run_id,
      tcase_id: row.tcase_id,
      signature,
      label,
      created_at: row.created_at,
      version: SIGNATURE_VERSION,
    });
  });
  if (out.length > 0) await repo.insertFailureSignatures(trx, out);
}

/** Results the backfill reads per statement (an id range, so each statement is bounded whatever the table holds). */
const RANGE = 5_000;

/**
 * Signs failed and blocked results stored without a signature — those recorded before migration 0041 and those a
 * project archive's import wrote as rows — with ids above `after`, and signs again those an older SIGNATURE_VERSION
 * signed (before migration 0043, or by an older process beside this one); answers the highest id it looked at,
 * where the next pass starts, and how many it signed (both kinds).
 */
/** A signature that became another when results were signed again, in one project. */
export interface SignatureMove {
  tenantId: string;
  projectId: string;
  from: string;
  to: string;
}

export async function backfillFailureSignatures(
  db: Db,
  after = 0,
  /** Told of each signature that became another (triage carries a known mark over); once per pass of a range. */
  onMoved: (db: Db, moves: SignatureMove[]) => Promise<void> = async () => {},
): Promise<{ checkedUpTo: number; signed: number }> {
  const max = await repo.maxResultId(db);
  const sign = signer();
  let signed = 0;
  let at = after;
  while (at < max) {
    const upTo = Math.min(at + RANGE, max);
    const found = await repo.listUnsignedFailures(db, SIGNED_STATUSES, at, upTo);
    if (found.length > 0) {
      await repo.insertFailureSignatures(
        db,
        found.map((r) => ({
          result_id: Number(r.id),
          tenant_id: r.tenant_id,
          project_id: r.project_id,
          run_id: Number(r.run_id),
          tcase_id: r.tcase_id,
          ...sign(r.comment),
          created_at: r.created_at,
          version: SIGNATURE_VERSION,
        })),
      );
      signed += found.length;
    }
    const stale = await repo.listStaleSignatures(db, SIGNATURE_VERSION, at, upTo);
    if (stale.length > 0) {
      // One update per distinct new signature: a range's stale rows are mostly a few repeated problems.
      const bySig = new Map<string, { label: string; ids: number[] }>();
      const moves = new Map<string, SignatureMove>();
      for (const r of stale) {
        const { signature, label } = sign(r.comment ?? '');
        const entry = bySig.get(signature) ?? { label, ids: [] };
        entry.ids.push(Number(r.result_id));
        bySig.set(signature, entry);
        if (signature !== r.signature) {
          const move = { tenantId: r.tenant_id, projectId: r.project_id, from: r.signature, to: signature };
          moves.set(`${move.projectId} ${move.from} ${move.to}`, move);
        }
      }
      for (const [signature, { label, ids }] of bySig)
        await repo.resign(db, ids, { signature, label, version: SIGNATURE_VERSION });
      if (moves.size > 0) await onMoved(db, [...moves.values()]);
      signed += stale.length;
    }
    at = upTo;
  }
  return { checkedUpTo: at, signed };
}

/**
 * Adds one link (D24) to results already recorded in a run, as a person adds it: a link to an issue of a tracker
 * integration (`meta.id`) is commented back on that issue (tracker-comments.service.ts), and `linked_by` names the
 * person. Results that already carry a link to the same URL are skipped. 400 (at `/url`, `/integrationId`,
 * `/meta/id`) for a link D24 refuses. Answers the results linked, in the caller's transaction.
 */
export async function linkResults(
  trx: Db,
  actor: Actor,
  run: { id: number; projectId: string },
  resultIds: number[],
  link: ResultLinkInput,
  now: string,
): Promise<{ linked: number[]; skipped: number[] }> {
  const errors: ErrorDetail[] = [];
  if (!isHttpUrl(link.url)) errors.push({ path: '/url', message: 'url must be an absolute http(s) URL' });
  if (link.integrationId !== undefined) {
    const integration = await getLinkedIntegration(trx, actor.tenantId, run.projectId, link.integrationId);
    if (!integration) {
      errors.push({
        path: '/integrationId',
        message: `integration "${link.integrationId}" is not linked to this project`,
      });
    } else if (
      integration.type !== 'custom' &&
      link.meta?.id !== undefined &&
      typeof link.meta.id !== 'string'
    ) {
      errors.push({ path: '/meta/id', message: 'meta.id must be a string (the issue number or key)' });
    }
  }
  if (errors.length > 0)
    throw validationFailed(
      errors,
      `Invalid link: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  const already = await repo.resultsLinkedTo(trx, actor.tenantId, resultIds, link.url);
  const linked = resultIds.filter((id) => !already.has(id));
  await insertLinksWithComments(
    trx,
    actor.tenantId,
    linked.map((resultId) => ({
      tenant_id: actor.tenantId,
      result_id: resultId,
      run_id: run.id,
      integration_id: link.integrationId ?? null,
      url: link.url,
      text: link.text,
      meta: JSON.stringify(link.meta ?? {}),
      linked_by: actor.userId,
      linked_at: now,
    })),
    now,
  );
  return { linked, skipped: resultIds.filter((id) => already.has(id)) };
}
