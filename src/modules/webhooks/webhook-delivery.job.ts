import { createHmac } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/tables/jobs.js';
import { failureWords, retryAfterMs, sendOutbound, type OutboundResponse } from '../../lib/outbound-http.js';
import { redactCredentials } from '../../lib/redact.js';
import { OutboundRefused, type OutboundGuard } from '../../lib/ssrf.js';
import type { JobHandler, QueuedJob } from '../../outbox/handler.js';
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

/**
 * `webhook.deliver`: sends one delivery (payload `{deliveryId}`), then, in one transaction, records the outcome
 * on the delivery and moves the job on: done; back with back-off (network errors, 429 honouring a short
 * Retry-After, 5xx); or failed (another 4xx, a redirect, a refused address, attempts used up). A webhook whose
 * attempts have all failed for 24 hours is disabled with the reason.
 */
export function webhookDelivery(settings: { guard: OutboundGuard; secretKey: string }): JobHandler {
  return {
    async run(db: Db, [job], ctx) {
      const { deliveryId } = job.payload as { deliveryId: string };
      const delivery = await repo.findDeliveryById(db, deliveryId);
      const webhook = delivery && (await repo.findWebhook(db, delivery.tenant_id, delivery.webhook_id));
      if (!delivery || !webhook) return; // deleted with its webhook: nothing to send
      const nowMs = ctx.now();
      const now = new Date(nowMs).toISOString();
      if (webhook.enabled !== 1) {
        await db.transaction().execute(async (trx) => {
          await repo.updateDelivery(trx, delivery.id, {
            status: 'failed',
            error: `webhook disabled${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`,
            next_attempt_at: null,
            finished_at: now,
          });
          await ctx.fail(trx, job, 'webhook disabled');
        });
        return;
      }
      const outcome = await attemptDelivery(settings.guard, settings.secretKey, webhook, delivery, nowMs);
      const record = {
        attempts: job.attempt,
        response_code: outcome.response?.status ?? null,
        response_body: outcome.response?.body ?? null,
        error: outcome.error ?? null,
        duration_ms: outcome.durationMs,
        last_attempt_at: now,
      };
      await db.transaction().execute(async (trx) => {
        if (outcome.ok) {
          await repo.updateDelivery(trx, delivery.id, {
            ...record,
            status: 'succeeded',
            next_attempt_at: null,
            finished_at: now,
          });
          if (webhook.failing_since !== null)
            await repo.updateWebhook(trx, webhook.tenant_id, webhook.id, { failing_since: null });
          await ctx.complete(trx, [job]);
          return;
        }
        const nextAt = outcome.retryable ? ctx.nextAttemptAt(job, outcome.retryAfterMs) : undefined;
        if (nextAt !== undefined) {
          await repo.updateDelivery(trx, delivery.id, {
            ...record,
            status: 'pending',
            next_attempt_at: new Date(nextAt).toISOString(),
          });
          await ctx.retry(trx, job, outcome.error ?? 'failed', nextAt - nowMs);
        } else {
          await repo.updateDelivery(trx, delivery.id, {
            ...record,
            status: 'failed',
            next_attempt_at: null,
            finished_at: now,
          });
          await ctx.fail(trx, job, outcome.error ?? 'failed');
        }
        const since = webhook.failing_since ?? now;
        if (nowMs - Date.parse(since) >= DISABLE_AFTER_MS) {
          await repo.updateWebhook(trx, webhook.tenant_id, webhook.id, {
            enabled: 0,
            disabled_reason: `disabled at ${now}: every delivery attempt since ${since} failed (last: ${outcome.error ?? 'failed'})`,
          });
        } else if (webhook.failing_since === null) {
          await repo.updateWebhook(trx, webhook.tenant_id, webhook.id, { failing_since: now });
        }
      });
    },
  };
}

export const webhookDeliveryJob: QueuedJob = {
  type: 'queued',
  kind: DELIVERY_JOB,
  handler: ({ guard, config }) => webhookDelivery({ guard, secretKey: config.secretKey }),
};
