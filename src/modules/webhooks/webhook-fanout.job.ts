import type { WebhookDeliveriesTable } from '../../db/tables/jobs.js';
import { newUuid } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import type { JobHandler, QueuedJob } from '../../outbox/handler.js';
import { enqueueJobs, type NewJob } from '../../outbox/outbox.js';
import { DELIVERY_JOB, deliveryQueue } from './webhook-delivery.job.js';
import { EVENT_JOB } from './webhook-events.service.js';
import { defaultPayload, renderTemplate, type OutboxEvent } from './webhook-payload.js';
import * as repo from './webhooks.repository.js';

/**
 * `webhook.event`: an event of the outbox becomes one delivery (a record and a `webhook.deliver` job) per enabled
 * webhook subscribed to its type and project. Events are taken in batches and fanned out in one transaction that
 * also marks them done, so an event is fanned out once even when a runner dies half-way (its lease expires and
 * another runner does it all again: nothing was committed).
 */
export const webhookFanout: JobHandler = {
  batch: 200,
  // In claim order, one runner at a time: a webhook's deliveries are queued in event order.
  inClaim: true,
  async run(db, jobs, ctx) {
    const events = jobs.map((j) => j.payload as OutboxEvent);
    const tenants = [...new Set(events.map((e) => e.tenantId))];
    const webhooks = (await repo.enabledWebhooksOf(db, tenants)).map((w) => ({
      row: w,
      types: new Set(parseJson<string[]>(w.event_types, [])),
      projects: w.all_projects === 1 ? undefined : new Set(parseJson<string[]>(w.project_ids, [])),
    }));
    const matches = events.map((e) =>
      webhooks.filter(
        (w) =>
          w.row.tenant_id === e.tenantId &&
          w.types.has(e.type) &&
          (w.projects === undefined || w.projects.has(e.projectId)),
      ),
    );
    const deliveries: WebhookDeliveriesTable[] = [];
    const deliveryJobs: NewJob[] = [];
    if (matches.some((m) => m.length > 0)) {
      const projects = new Map<string, { id: string; code: string; title: string }>();
      for (const tenantId of tenants) {
        const ids = [
          ...new Set(
            events.filter((e, i) => e.tenantId === tenantId && matches[i].length > 0).map((e) => e.projectId),
          ),
        ];
        for (const p of await repo.projectsByIds(db, tenantId, ids)) projects.set(p.id, p);
      }
      const now = new Date(ctx.now()).toISOString();
      events.forEach((event, i) => {
        if (matches[i].length === 0) return;
        const data = defaultPayload(event, projects.get(event.projectId));
        const json = JSON.stringify(data);
        for (const w of matches[i]) {
          const id = newUuid();
          deliveries.push({
            id,
            tenant_id: event.tenantId,
            webhook_id: w.row.id,
            event_id: event.id,
            event_type: event.type,
            body: w.row.payload_template === null ? json : renderTemplate(w.row.payload_template, data),
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
          });
          deliveryJobs.push({
            tenantId: event.tenantId,
            kind: DELIVERY_JOB,
            queueKey: deliveryQueue(w.row.id, event.type, id),
            payload: { deliveryId: id },
          });
        }
      });
    }
    const inTransaction = <T>(work: (trx: typeof db) => Promise<T>) =>
      db.isTransaction ? work(db) : db.transaction().execute(work);
    await inTransaction(async (trx) => {
      await repo.insertDeliveries(trx, deliveries);
      await enqueueJobs(trx, deliveryJobs, ctx.now());
      // A lease lost meanwhile (this runner was presumed dead): roll back, the new holder fans out.
      if ((await ctx.complete(trx, jobs)) !== jobs.length) throw new LeaseLost();
    });
  },
};

class LeaseLost extends Error {
  constructor() {
    super('lease lost during fan-out');
  }
}

export const webhookFanoutJob: QueuedJob = { type: 'queued', kind: EVENT_JOB, handler: () => webhookFanout };
