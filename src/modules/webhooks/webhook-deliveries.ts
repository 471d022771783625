import type { Db } from '../../db/create-db.js';
import { notFound } from '../../errors.js';
import { newUuid } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { enqueueJobs } from '../../outbox/outbox.js';
import { attemptDelivery, DELIVERY_JOB, deliveryQueue } from './webhook-delivery.job.js';
import * as repo from './webhooks.repository.js';
import { getDelivery, type WebhookSettings } from './webhooks.service.js';
import type { Delivery } from './webhooks.schemas.js';

/**
 * Redelivers a delivery (admin): a new delivery (its own id) of the same event (same event id and body),
 * queued like the event's first delivery (docs/api-decisions.md, "Delivery order") and retried like the others. This is also how an admin retries a delivery
 * that failed for good.
 */
export async function redeliver(
  db: Db,
  tenantId: string,
  webhookId: string,
  deliveryId: string,
): Promise<{ id: string }> {
  const old = await repo.findDelivery(db, tenantId, webhookId, deliveryId);
  if (!old) throw notFound(`delivery "${deliveryId}" of webhook "${webhookId}" not found`);
  const id = newUuid();
  const now = nowIso();
  await db.transaction().execute(async (trx) => {
    await repo.insertDeliveries(trx, [
      {
        ...old,
        id,
        status: 'pending',
        attempts: 0,
        response_code: null,
        response_body: null,
        error: null,
        duration_ms: null,
        created_at: now,
        last_attempt_at: null,
        next_attempt_at: now,
        finished_at: null,
      },
    ]);
    await enqueueJobs(trx, [
      {
        tenantId,
        kind: DELIVERY_JOB,
        queueKey: deliveryQueue(webhookId, old.event_type, id),
        payload: { deliveryId: id },
      },
    ]);
  });
  return { id };
}

/**
 * Test-send (admin): a `ping` event sent now, once, whether or not the webhook is enabled; the answer is its
 * delivery record (status, response code and body), which is kept with the others.
 */
export async function ping(
  db: Db,
  tenantId: string,
  webhookId: string,
  s: WebhookSettings,
): Promise<Delivery> {
  const webhook = await repo.findWebhook(db, tenantId, webhookId);
  if (!webhook) throw notFound(`webhook "${webhookId}" not found`);
  const now = Date.now();
  const eventId = newUuid();
  const delivery = {
    id: newUuid(),
    event_id: eventId,
    event_type: 'ping',
    body: JSON.stringify({
      id: eventId,
      event: 'ping',
      occurredAt: new Date(now).toISOString(),
      tenant: { id: tenantId },
      object: { webhookId: webhook.id, name: webhook.name },
    }),
  };
  const outcome = await attemptDelivery(s.guard, s.secretKey, webhook, delivery, now);
  const at = new Date(now).toISOString();
  await repo.insertDeliveries(db, [
    {
      ...delivery,
      tenant_id: tenantId,
      webhook_id: webhook.id,
      status: outcome.ok ? 'succeeded' : 'failed',
      attempts: 1,
      response_code: outcome.response?.status ?? null,
      response_body: outcome.response?.body ?? null,
      error: outcome.error ?? null,
      duration_ms: outcome.durationMs,
      created_at: at,
      last_attempt_at: at,
      next_attempt_at: null,
      finished_at: nowIso(),
    },
  ]);
  const { body: _body, ...record } = await getDelivery(db, tenantId, webhook.id, delivery.id);
  return record;
}
