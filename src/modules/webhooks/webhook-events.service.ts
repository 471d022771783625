import type { Db } from '../../db/create-db.js';
import { newUuid } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { parseJson } from '../../lib/json.js';
import { enqueueJobs } from '../../outbox/outbox.js';
import { subscriptionsOf } from './webhooks.repository.js';
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
 * fan-out to webhooks and the sending happen in the background. An event that no enabled webhook subscribes to
 * (its type, its project) is not recorded: the fan-out would find nobody to send it to, and recording it cost
 * every result an outbox row, a wake of the job runner and its claim (on SQLite, of the one write lock): the
 * result path's CPU per result half again what it was before webhooks.
 */
export async function enqueueEvents(trx: Db, all: NewEvent[]): Promise<void> {
  const events = await subscribed(trx, all);
  if (events.length === 0) return;
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

/**
 * The events some enabled webhook subscribes to, as the fan-out matches them (webhook-fanout.job.ts). Read in
 * the change's transaction: a webhook saved before the change is seen; one saved after it never had the event.
 */
async function subscribed(trx: Db, events: NewEvent[]): Promise<NewEvent[]> {
  const wanted = new Map<string, (e: NewEvent) => boolean>();
  for (const tenantId of new Set(events.map((e) => e.tenantId))) {
    const hooks = (await subscriptionsOf(trx, tenantId)).map((w) => ({
      types: new Set(parseJson<string[]>(w.event_types, [])),
      projects: w.all_projects === 1 ? undefined : new Set(parseJson<string[]>(w.project_ids, [])),
    }));
    wanted.set(tenantId, (e) =>
      hooks.some((w) => w.types.has(e.type) && (w.projects === undefined || w.projects.has(e.projectId))),
    );
  }
  return events.filter((e) => wanted.get(e.tenantId)!(e));
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
