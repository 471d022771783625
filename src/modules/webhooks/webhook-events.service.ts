import type { Db } from '../../db/create-db.js';
import { newUuid } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { enqueueJobs } from '../../outbox/outbox.js';
import type { OutboxEvent } from './webhook-payload.js';
import type { WebhookEventType } from './webhooks.schemas.js';

/** The job kind of an event waiting to be fanned out to the webhooks subscribed to it (webhook-fanout.job.ts). */
export const EVENT_JOB = 'webhook.event';

export interface NewEvent {
  tenantId: string;
  projectId: string;
  type: WebhookEventType;
  object: Record<string, unknown>;
}

/**
 * Records events for webhooks in the outbox; call with the transaction of the change, so an event
 * exists exactly when its change does. One row per event, one statement for all: the request pays an insert, the
 * fan-out to webhooks and the sending happen in the background.
 */
export async function enqueueEvents(trx: Db, events: NewEvent[]): Promise<void> {
  const occurredAt = nowIso();
  await enqueueJobs(
    trx,
    events.map((e) => {
      const payload: OutboxEvent = {
        id: newUuid(),
        type: e.type,
        tenantId: e.tenantId,
        projectId: e.projectId,
        occurredAt,
        object: e.object,
      };
      return { tenantId: e.tenantId, kind: EVENT_JOB, payload, maxAttempts: 20 };
    }),
  );
}

export const enqueueEvent = (trx: Db, event: NewEvent): Promise<void> => enqueueEvents(trx, [event]);

/** Results: one `result_created` per single-result request, one `results_created` per batch (docs/api-decisions.md). */
export async function enqueueResultEvents(
  trx: Db,
  tenantId: string,
  run: { id: number; projectId: string },
  results: { id: number; tcaseId: string; status: string }[],
  batch: boolean,
): Promise<void> {
  if (results.length === 0) return;
  if (batch) {
    await enqueueEvent(trx, {
      tenantId,
      projectId: run.projectId,
      type: 'results_created',
      object: { runId: run.id, count: results.length, results },
    });
    return;
  }
  await enqueueEvents(
    trx,
    results.map((r) => ({
      tenantId,
      projectId: run.projectId,
      type: 'result_created' as const,
      object: { runId: run.id, ...r },
    })),
  );
}
