import type { Db } from '../../db/create-db.js';
import { parseJson } from '../../lib/json.js';
import { failureWords, sendOutbound } from '../../lib/outbound-http.js';
import { OutboundRefused, type OutboundGuard } from '../../lib/ssrf.js';
import type { JobContext, JobHandler, QueuedJob } from '../../outbox/handler.js';
import type { ClaimedJob } from '../../outbox/outbox.js';
import { decryptCredential } from '../integrations/integrations.service.js';
import * as resultsRepo from './results/results.repository.js';
import {
  buildCommentRequest,
  readCommentAnswer,
  type TrackerAnswer,
  type TrackerType,
} from './tracker-comment.adapters.js';
import { issueRefOf, TRACKER_COMMENT_JOB } from './tracker-comments.service.js';

export interface TrackerCommentSettings {
  guard: OutboundGuard;
  secretKey: string;
  /** The service's address: the comment links to the run page there. */
  publicUrl: string;
}

/**
 * `tracker.comment` (D24): posts the comment a result link asked for (payload `{linkId}`) and records the outcome
 * on the link, with the job's transition in the same transaction: posted with the comment's id; pending again
 * with the reason (network errors, 429 honouring a short Retry-After, 5xx; back-off, 10 attempts); or failed with
 * the reason (another 4xx, a missing setting or credential, a refused address, attempts used up). The reason is
 * always in our own words with the status or error code (tracker-comment.adapters.ts refusalWords, failureWords), never the tracker's
 * answer: the link is shown to every viewer of the project, and a tracker may quote the credential back.
 */
export function trackerComment(settings: TrackerCommentSettings): JobHandler {
  return {
    async run(db: Db, [job], ctx) {
      const { linkId } = job.payload as { linkId: number };
      const link = await resultsRepo.findLinkForComment(db, linkId);
      if (!link) return; // the result is gone (its project deleted): nothing to comment on
      const type = link.integration_type as TrackerType | 'custom' | null;
      if (type === null) return settle(db, ctx, job, linkId, fail('the integration no longer exists'));
      if (type === 'custom')
        return settle(db, ctx, job, linkId, fail('custom integrations take no comments'));
      if (link.link_config === null)
        return settle(db, ctx, job, linkId, fail('the integration is no longer linked to the project'));
      let token: string | undefined;
      try {
        token = link.token_enc ? decryptCredential(settings.secretKey, link.token_enc) : undefined;
      } catch {
        return settle(
          db,
          ctx,
          job,
          linkId,
          fail('the credential cannot be opened with this CASEBOOK_SECRET_KEY'),
        );
      }
      const base = settings.publicUrl.replace(/\/+$/, '');
      const request = buildCommentRequest(
        {
          type,
          config: parseJson<Record<string, string>>(link.integration_config, {}),
          link: parseJson<Record<string, string>>(link.link_config, {}),
          token,
          issue: issueRefOf(parseJson(link.meta, {})) ?? '',
        },
        {
          summary: `${link.status_name ?? link.status} in run "${link.run_title}" (${link.project_code}-${link.tcase_seq})`,
          caseTitle: link.tcase_title,
          url: `${base}/project/${encodeURIComponent(link.project_code)}/run/${link.run_id}?tcase=${link.tcase_seq}`,
        },
      );
      if ('error' in request) return settle(db, ctx, job, linkId, fail(request.error));
      let answer: TrackerAnswer;
      try {
        const res = await sendOutbound(settings.guard, { ...request, timeoutMs: 10_000, keepBytes: 8192 });
        answer = readCommentAnswer(type, res);
      } catch (err) {
        answer = {
          ok: false,
          retryable: !(err instanceof OutboundRefused),
          error: failureWords(err, 'the tracker'),
        };
      }
      return settle(db, ctx, job, linkId, answer);
    },
  };
}

const fail = (error: string): TrackerAnswer => ({ ok: false, retryable: false, error });

/** The outcome on the link and the job's transition, in one transaction. */
async function settle(db: Db, ctx: JobContext, job: ClaimedJob, linkId: number, answer: TrackerAnswer) {
  const at = new Date(ctx.now()).toISOString();
  await db.transaction().execute(async (trx) => {
    if (answer.ok) {
      await resultsRepo.setLinkComment(trx, linkId, { status: 'posted', commentId: answer.commentId, at });
      await ctx.complete(trx, [job]);
      return;
    }
    let final = true;
    if (answer.retryable) final = (await ctx.retry(trx, job, answer.error, answer.retryAfterMs)).final;
    else await ctx.fail(trx, job, answer.error);
    await resultsRepo.setLinkComment(trx, linkId, {
      status: final ? 'failed' : 'pending',
      error: answer.error,
      at,
    });
  });
}

export const trackerCommentJob: QueuedJob = {
  type: 'queued',
  kind: TRACKER_COMMENT_JOB,
  handler: ({ guard, config }) =>
    trackerComment({ guard, secretKey: config.secretKey, publicUrl: config.publicUrl }),
};
