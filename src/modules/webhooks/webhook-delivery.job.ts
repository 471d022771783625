import { createHmac } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/tables/jobs.js';
import { failureWords, retryAfterMs, sendOutbound, type OutboundResponse } from '../../lib/outbound-http.js';
import { redactCredentials } from '../../lib/redact.js';
import { OutboundRefused, type OutboundGuard } from '../../lib/ssrf.js';
import type { JobContext, JobHandler, QueuedJob } from '../../outbox/handler.js';
import type { ClaimedJob } from '../../outbox/outbox.js';
import * as repo from './webhooks.repository.js';
import { openWebhookSecrets } from './webhooks.service.js';

export const DELIVERY_JOB = 'webhook.deliver';

/** A webhook failing this long (every attempt since) is disabled, with the reason shown to the admin. */
export const DISABLE_AFTER_MS = 24 * 3_600_000;
/** Response bodies are kept this long in the delivery record. */
const KEEP_RESPONSE_BYTES = 4096;

export const HEADERS = {
  event: 'x-casebook-event',
  eventId: 'x-casebook-event-id',
  delivery: 'x-casebook-delivery',
  timestamp: 'x-casebook-timestamp',
  signature: 'x-casebook-signature',
} as const;

/** `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>` under the webhook's secret. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface AttemptOutcome {
  ok: boolean;
  /** Worth another attempt: a network error or timeout, 429 or 5xx. */
  retryable: boolean;
  response?: OutboundResponse;
  error?: string;
  retryAfterMs?: number;
  durationMs: number;
}

/** One attempt of one delivery: headers, signature, the guarded request; never throws. */
export async function attemptDelivery(
  guard: OutboundGuard,
  secretKey: string,
  webhook: Selectable<WebhooksTable>,
  delivery: Pick<Selectable<WebhookDeliveriesTable>, 'id' | 'event_id' | 'event_type' | 'body'>,
  nowMs: number,
): Promise<AttemptOutcome> {
  const started = Date.now();
  let secrets: ReturnType<typeof openWebhookSecrets>;
  try {
    secrets = openWebhookSecrets(secretKey, webhook);
  } catch {
    return {
      ok: false,
      retryable: false,
      error: 'the secret or headers cannot be opened with this CASEBOOK_SECRET_KEY',
      durationMs: 0,
    };
  }
  const timestamp = String(Math.floor(nowMs / 1000));
  const headers: Record<string, string> = {
    ...secrets.headers,
    'content-type': 'application/json',
    'user-agent': 'Casebook-Webhook/1',
    [HEADERS.event]: delivery.event_type,
    [HEADERS.eventId]: delivery.event_id,
    [HEADERS.delivery]: delivery.id,
    [HEADERS.timestamp]: timestamp,
  };
  if (secrets.secret !== undefined)
    headers[HEADERS.signature] = signature(secrets.secret, timestamp, delivery.body);
  try {
    const answer = await sendOutbound(guard, {
      url: webhook.endpoint,
      headers,
      body: delivery.body,
      timeoutMs: 10_000,
      // More than is kept, so a credential the cut would halve is still found whole and masked.
      keepBytes: KEEP_RESPONSE_BYTES + 16_384,
    });
    // The admin reads the answer, but not the secret or header values: a receiver quoting them back is masked.
    const masked = redactCredentials(answer.body, [
      ...(secrets.secret === undefined ? [] : [secrets.secret]),
      ...Object.values(secrets.headers),
    ]);
    const response = {
      ...answer,
      body: Buffer.from(masked).subarray(0, KEEP_RESPONSE_BYTES).toString('utf8'),
    };
    const ok = response.status >= 200 && response.status < 300;
    const retryable = response.status === 429 || response.status >= 500;
    return {
      ok,
      retryable,
      response,
      retryAfterMs: retryable ? retryAfterMs(response) : undefined,
      durationMs: response.durationMs,
      error: ok
        ? undefined
        : `HTTP ${response.status}${response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''}`,
    };
  } catch (err) {
    const refused = err instanceof OutboundRefused;
    return {
      ok: false,
      retryable: !refused,
      error: failureWords(err, 'the receiver'),
      durationMs: Date.now() - started,
    };
  }
}

/** Queues a webhook's result deliveries are spread over: how many of them may be in flight at once. */
export const RESULT_LANES = 8;

/**
 * The queue a delivery waits in (claim.ts runs a queue's jobs one at a time, in order). Run, plan and case events
 * tell what became of one thing, so a receiver sees a webhook's such events in order: they share the webhook's
 * queue. Results only add to what was there: they are spread over RESULT_LANES queues of the webhook, so a busy
 * run's results keep up with the requests that record them, while a receiver never has more than the lanes and
 * the ordered queue of one webhook in flight (a broken one holds up no one else's).
 */
export function deliveryQueue(webhookId: string, eventType: string, deliveryId: string): string {
  if (eventType !== 'result_created' && eventType !== 'results_created') return webhookId;
  let h = 0;
  for (let i = 0; i < deliveryId.length; i++) h = (h * 31 + deliveryId.charCodeAt(i)) >>> 0;
  return `${webhookId}/results/${h % RESULT_LANES}`;
}

/** Deliveries claimed by one batch: the heads of their queues that are due (claim.ts). */
export const DELIVERIES_PER_BATCH = 64;

type Webhook = Selectable<WebhooksTable>;
type Sent = {
  job: ClaimedJob;
  delivery: Selectable<WebhookDeliveriesTable>;
  webhook: Webhook;
  /** Undefined: not sent, the webhook is disabled. */
  outcome: AttemptOutcome | undefined;
};

/**
 * `webhook.deliver`: sends the claimed deliveries (payload `{deliveryId}` each) side by side, and records each
 * outcome as soon as its request has answered: those that answer together share one transaction, so a receiver
 * that does not answer delays no other delivery's record (and a crash re-sends only what was still in flight).
 * Each record moves its job on: done; back with back-off (network errors, 429 honouring a short Retry-After,
 * 5xx); or failed (another 4xx, a redirect, a refused address, attempts used up). A webhook whose attempts have
 * all failed for 24 hours is disabled with the reason.
 */
export function webhookDelivery(settings: { guard: OutboundGuard; secretKey: string }): JobHandler {
  return {
    batch: DELIVERIES_PER_BATCH,
    async run(db: Db, jobs, ctx) {
      const ids = jobs.map((job) => (job.payload as { deliveryId: string }).deliveryId);
      const deliveries = new Map((await repo.findDeliveriesByIds(db, ids)).map((d) => [d.id, d]));
      const hookIds = [...new Set([...deliveries.values()].map((d) => d.webhook_id))];
      const webhooks = new Map((await repo.findWebhooksByIds(db, hookIds)).map((w) => [w.id, w]));
      const recorder = new Recorder(db, ctx);
      const nowMs = ctx.now();
      // A delivery deleted with its webhook has nothing to send: its job is simply done.
      await Promise.all(
        jobs.map(async (job, i) => {
          const delivery = deliveries.get(ids[i]);
          const webhook = delivery && webhooks.get(delivery.webhook_id);
          if (!delivery || !webhook || webhook.tenant_id !== delivery.tenant_id) return;
          const outcome =
            webhook.enabled === 1
              ? await attemptDelivery(settings.guard, settings.secretKey, webhook, delivery, nowMs)
              : undefined;
          await recorder.record({ job, delivery, webhook, outcome });
        }),
      );
    },
  };
}

/** Writes outcomes as they come: whatever answered while the last write ran goes in the next one. */
class Recorder {
  private waiting: { sent: Sent; done: () => void; failed: (err: unknown) => void }[] = [];
  private writing = false;
  /** Each webhook's failing state as this batch last wrote it (a later outcome continues from there). */
  private readonly states = new Map<
    string,
    { failingSince: string | null; written: string | null; disabled: boolean }
  >();

  constructor(
    private readonly db: Db,
    private readonly ctx: JobContext,
  ) {}

  record(sent: Sent): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ sent, done, failed });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const taken = this.waiting.splice(0);
        try {
          await this.write(taken.map((t) => t.sent));
          for (const t of taken) t.done();
        } catch (err) {
          for (const t of taken) t.failed(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async write(sent: Sent[]): Promise<void> {
    const nowMs = this.ctx.now();
    const now = new Date(nowMs).toISOString();
    await this.db.transaction().execute(async (trx) => {
      const done: ClaimedJob[] = [];
      const touched = new Map<string, Webhook>();
      for (const { job, delivery, webhook, outcome } of sent) {
        if (outcome === undefined) {
          await repo.updateDelivery(trx, delivery.id, {
            status: 'failed',
            error: `webhook disabled${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`,
            next_attempt_at: null,
            finished_at: now,
          });
          await this.ctx.fail(trx, job, 'webhook disabled');
          continue;
        }
        const state = this.states.get(webhook.id) ?? {
          failingSince: webhook.failing_since,
          written: webhook.failing_since,
          disabled: false,
        };
        this.states.set(webhook.id, state);
        touched.set(webhook.id, webhook);
        const record = {
          attempts: job.attempt,
          response_code: outcome.response?.status ?? null,
          response_body: outcome.response?.body ?? null,
          error: outcome.error ?? null,
          duration_ms: outcome.durationMs,
          last_attempt_at: now,
        };
        if (outcome.ok) {
          await repo.updateDelivery(trx, delivery.id, {
            ...record,
            status: 'succeeded',
            next_attempt_at: null,
            finished_at: now,
          });
          done.push(job);
          state.failingSince = null;
          continue;
        }
        const nextAt = outcome.retryable ? this.ctx.nextAttemptAt(job, outcome.retryAfterMs) : undefined;
        await repo.updateDelivery(trx, delivery.id, {
          ...record,
          status: nextAt === undefined ? 'failed' : 'pending',
          next_attempt_at: nextAt === undefined ? null : new Date(nextAt).toISOString(),
          ...(nextAt === undefined ? { finished_at: now } : {}),
        });
        if (nextAt === undefined) await this.ctx.fail(trx, job, outcome.error ?? 'failed');
        else await this.ctx.retry(trx, job, outcome.error ?? 'failed', nextAt - nowMs);
        state.failingSince ??= now;
        if (!state.disabled && nowMs - Date.parse(state.failingSince) >= DISABLE_AFTER_MS) {
          state.disabled = true;
          await repo.updateWebhook(trx, webhook.tenant_id, webhook.id, {
            enabled: 0,
            disabled_reason: `disabled at ${now}: every delivery attempt since ${state.failingSince} failed (last: ${outcome.error ?? 'failed'})`,
          });
        }
      }
      if (done.length > 0) await this.ctx.complete(trx, done);
      for (const [id, webhook] of touched) {
        const state = this.states.get(id)!;
        if (state.disabled || state.failingSince === state.written) continue;
        await repo.updateWebhook(trx, webhook.tenant_id, id, { failing_since: state.failingSince });
        state.written = state.failingSince;
      }
    });
  }
}

export const webhookDeliveryJob: QueuedJob = {
  type: 'queued',
  kind: DELIVERY_JOB,
  handler: ({ guard, config }) => webhookDelivery({ guard, secretKey: config.secretKey }),
};
