import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/tables/jobs.js';
import { AppError, badRequest, conflict, notFound, type ErrorDetail } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import { open, requireSecretKey, seal } from '../../lib/secret-box.js';
import type { OutboundGuard } from '../../lib/ssrf.js';
import { nowIso } from '../../lib/time.js';
import { originOf } from '../../lib/urls.js';
import { recordAudit, type AuditContext, type AuditMeta } from '../audit/audit.service.js';
import * as repo from './webhooks.repository.js';
import { checkTemplate } from './webhook-payload.js';
import type {
  DeliveryCount,
  CreateWebhookBody,
  Delivery,
  UpdateWebhookBody,
  Webhook,
  WebhookEventType,
} from './webhooks.schemas.js';

/**
 * Webhooks (admin, tenant-wide, D3). Secrets and custom headers are sealed like integration
 * credentials (src/lib/secret-box.ts, their own purpose) with the secret key every started server has
 * (src/secret-key.ts).
 */
const PURPOSE = 'casebook:webhook-secrets:v1';

export interface WebhookSettings {
  secretKey: string;
  guard: OutboundGuard;
}

type Row = Selectable<WebhooksTable>;

function sealSecret(secretKey: string, value: string): string {
  return seal(value, requireSecretKey(secretKey), PURPOSE);
}

/** A sealed secret or header set, opened with `oldKey` and sealed again with `newKey` (`casebook secret-key rotate`). */
export const resealWebhookValue = (oldKey: string, newKey: string, sealed: string): string =>
  sealSecret(newKey, open(sealed, oldKey, PURPOSE));

/** The secret and headers of a webhook, opened for a delivery. */
export function openWebhookSecrets(
  secretKey: string,
  row: Pick<Row, 'secret_enc' | 'headers_enc'>,
): { secret: string | undefined; headers: Record<string, string> } {
  return {
    secret: row.secret_enc === null ? undefined : open(row.secret_enc, secretKey, PURPOSE),
    headers:
      row.headers_enc === null
        ? {}
        : parseJson<Record<string, string>>(open(row.headers_enc, secretKey, PURPOSE), {}),
  };
}

function toWebhook(row: Row, headerNames: string[]): Webhook {
  return {
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    hasSecret: row.secret_enc !== null,
    headerNames,
    eventTypes: parseJson<WebhookEventType[]>(row.event_types, []),
    allowAllProjects: row.all_projects === 1,
    projectIds: parseJson<string[]>(row.project_ids, []),
    payload: row.payload_template,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function headerNamesOf(secretKey: string, row: Row): string[] {
  if (row.headers_enc === null || !secretKey) return [];
  try {
    return Object.keys(openWebhookSecrets(secretKey, row).headers);
  } catch {
    return [];
  }
}

function validationError(errors: ErrorDetail[]): AppError {
  return new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);
}

function checkEndpoint(guard: OutboundGuard, endpoint: string, errors: ErrorDetail[]): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    errors.push({ path: '/endpoint', message: 'endpoint must be an absolute https URL' });
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    errors.push({ path: '/endpoint', message: 'endpoint must be an https URL' });
  } else if (url.protocol === 'http:' && !guard.httpAllowed(url)) {
    errors.push({
      path: '/endpoint',
      message: 'endpoint must be https (plain http is allowed only for hosts on CASEBOOK_OUTBOUND_ALLOW)',
    });
  } else if (url.username || url.password) {
    errors.push({ path: '/endpoint', message: 'endpoint must not carry credentials; use headers' });
  } else {
    // The resolved address is checked at every send; a literal private address is refused now already.
    try {
      guard.checkUrl(url);
    } catch (err) {
      errors.push({ path: '/endpoint', message: (err as Error).message });
    }
  }
}

/**
 * The secret and headers were given for one receiver: an endpoint moved to another origin (scheme, host, port) takes
 * them along only when the same request sends them again (the same or new values, or null to remove them).
 * A path change within the origin keeps them.
 */
function checkCredentialsFollow(row: Row, input: UpdateWebhookBody, errors: ErrorDetail[]): void {
  if (input.endpoint === undefined) return;
  const from = originOf(row.endpoint);
  const to = originOf(input.endpoint);
  if (to === undefined || from === to) return;
  const moves = `the endpoint moves to another origin (${from ?? row.endpoint} → ${to})`;
  if (row.secret_enc !== null && input.secret === undefined)
    errors.push({
      path: '/secret',
      message: `${moves}: send the secret again (the same or a new one, or null to remove it); it is not sent to another origin unasked`,
    });
  if (row.headers_enc !== null && input.headers === undefined)
    errors.push({
      path: '/headers',
      message: `${moves}: send the headers again (the same or new values, or null to remove them); they are not sent to another origin unasked`,
    });
}

async function checkProjects(db: Db, tenantId: string, ids: string[], errors: ErrorDetail[]): Promise<void> {
  const known = new Set((await repo.projectsByIds(db, tenantId, ids)).map((p) => p.id));
  ids.forEach((id, i) => {
    if (!known.has(id)) errors.push({ path: `/projectIds/${i}`, message: `project "${id}" not found` });
  });
}

/** webhook.created / webhook.deleted meta (D25, docs/api-decisions.md#d25-audit-events); recordAudit masks secret, headers, payload. */
function auditMeta(w: Webhook, row: Pick<Row, 'secret_enc' | 'headers_enc'>): AuditMeta {
  return {
    webhook_id: w.id,
    webhook_name: w.name,
    endpoint: w.endpoint,
    enabled: w.enabled,
    event_types: w.eventTypes,
    allow_all_projects: w.allowAllProjects,
    allowed_project_count: w.allowAllProjects ? undefined : w.projectIds.length,
    secret: row.secret_enc ?? undefined,
    headers: row.headers_enc ?? undefined,
    payload: w.payload ?? undefined,
  };
}

export async function listWebhooks(db: Db, tenantId: string, s: WebhookSettings): Promise<Webhook[]> {
  return (await repo.listWebhooks(db, tenantId)).map((r) => toWebhook(r, headerNamesOf(s.secretKey, r)));
}

async function findOr404(db: Db, tenantId: string, id: string): Promise<Row> {
  const row = await repo.findWebhook(db, tenantId, id);
  if (!row) throw notFound(`webhook "${id}" not found`);
  return row;
}

export async function getWebhook(db: Db, tenantId: string, id: string, s: WebhookSettings): Promise<Webhook> {
  const row = await findOr404(db, tenantId, id);
  return toWebhook(row, headerNamesOf(s.secretKey, row));
}

/** Creates a webhook (admin); audit `webhook.created`. */
export async function createWebhook(
  db: Db,
  actor: AuditContext,
  input: CreateWebhookBody,
  s: WebhookSettings,
): Promise<{ id: string }> {
  const errors: ErrorDetail[] = [];
  const name = input.name.trim();
  if (!name) errors.push({ path: '/name', message: 'name must not be blank' });
  checkEndpoint(s.guard, input.endpoint, errors);
  const projectIds = input.projectIds ?? [];
  const allowAll = input.allowAllProjects ?? projectIds.length === 0;
  if (allowAll && projectIds.length > 0)
    errors.push({ path: '/projectIds', message: 'projectIds is for allowAllProjects: false' });
  if (!allowAll && projectIds.length === 0)
    errors.push({
      path: '/projectIds',
      message: 'allowAllProjects: false needs at least one project in projectIds',
    });
  await checkProjects(db, actor.tenantId, projectIds, errors);
  if (input.payload !== undefined) errors.push(...checkTemplate(input.payload));
  if (errors.length > 0) throw validationError(errors);
  const secretEnc = input.secret === undefined ? null : sealSecret(s.secretKey, input.secret);
  const headersEnc =
    input.headers === undefined || Object.keys(input.headers).length === 0
      ? null
      : sealSecret(s.secretKey, JSON.stringify(input.headers));
  if ((await repo.findWebhookByName(db, actor.tenantId, name)) !== undefined)
    throw conflict(`a webhook named "${name}" exists`);
  const now = nowIso();
  const row: Row = {
    id: newId(),
    tenant_id: actor.tenantId,
    name,
    endpoint: input.endpoint,
    secret_enc: secretEnc,
    headers_enc: headersEnc,
    event_types: JSON.stringify(input.eventTypes),
    all_projects: allowAll ? 1 : 0,
    project_ids: JSON.stringify(projectIds),
    payload_template: input.payload ?? null,
    enabled: input.enabled === false ? 0 : 1,
    disabled_reason: null,
    failing_since: null,
    created_by: actor.userId,
    created_at: now,
    updated_at: now,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await repo.insertWebhook(trx, row);
      await recordAudit(trx, actor, 'webhook.created', auditMeta(toWebhook(row, []), row));
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`a webhook named "${name}" exists`);
    throw err;
  }
  return { id: row.id };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Updates the given fields; audit `webhook.updated` with webhook_id, webhook_name and only what changed (secret,
 * headers and payload as `****`, or null when removed). Enabling clears the reason a failing webhook was disabled.
 */
export async function updateWebhook(
  db: Db,
  actor: AuditContext,
  id: string,
  input: UpdateWebhookBody,
  s: WebhookSettings,
): Promise<Webhook> {
  const row = await findOr404(db, actor.tenantId, id);
  const before = toWebhook(row, []);
  const errors: ErrorDetail[] = [];
  const name = input.name === undefined ? row.name : input.name.trim();
  if (!name) errors.push({ path: '/name', message: 'name must not be blank' });
  if (input.endpoint !== undefined) checkEndpoint(s.guard, input.endpoint, errors);
  checkCredentialsFollow(row, input, errors);
  let projectIds = input.projectIds ?? before.projectIds;
  const allowAll =
    input.allowAllProjects ??
    (input.projectIds !== undefined ? input.projectIds.length === 0 : before.allowAllProjects);
  if (allowAll) {
    if (input.projectIds !== undefined && input.projectIds.length > 0)
      errors.push({ path: '/projectIds', message: 'projectIds is for allowAllProjects: false' });
    projectIds = [];
  } else if (projectIds.length === 0) {
    errors.push({
      path: '/projectIds',
      message: 'allowAllProjects: false needs at least one project in projectIds',
    });
  }
  if (input.projectIds !== undefined) await checkProjects(db, actor.tenantId, input.projectIds, errors);
  if (typeof input.payload === 'string') errors.push(...checkTemplate(input.payload));
  if (errors.length > 0) throw validationError(errors);

  const values: Partial<Row> = {};
  const meta: AuditMeta = {};
  if (name !== row.name) values.name = name;
  if (input.endpoint !== undefined && input.endpoint !== row.endpoint) {
    values.endpoint = input.endpoint;
    meta.endpoint = input.endpoint;
  }
  if (input.enabled !== undefined && (input.enabled ? 1 : 0) !== row.enabled) {
    values.enabled = input.enabled ? 1 : 0;
    meta.enabled = input.enabled;
    if (input.enabled) {
      values.disabled_reason = null;
      values.failing_since = null;
    }
  }
  if (input.eventTypes !== undefined && !sameJson(input.eventTypes, before.eventTypes)) {
    values.event_types = JSON.stringify(input.eventTypes);
    meta.event_types = input.eventTypes;
  }
  if (allowAll !== before.allowAllProjects) {
    values.all_projects = allowAll ? 1 : 0;
    meta.allow_all_projects = allowAll;
  }
  if (!sameJson(projectIds, before.projectIds)) {
    values.project_ids = JSON.stringify(projectIds);
    if (!allowAll) meta.allowed_project_count = projectIds.length;
  }
  if (input.secret !== undefined) {
    if (input.secret === null) {
      if (row.secret_enc !== null) {
        values.secret_enc = null;
        meta.secret = null;
      }
    } else {
      values.secret_enc = sealSecret(s.secretKey, input.secret);
      meta.secret = values.secret_enc;
    }
  }
  if (input.headers !== undefined) {
    if (input.headers === null || Object.keys(input.headers).length === 0) {
      if (row.headers_enc !== null) {
        values.headers_enc = null;
        meta.headers = null;
      }
    } else {
      values.headers_enc = sealSecret(s.secretKey, JSON.stringify(input.headers));
      meta.headers = values.headers_enc;
    }
  }
  if (input.payload !== undefined && input.payload !== row.payload_template) {
    values.payload_template = input.payload;
    meta.payload = input.payload;
  }
  if (Object.keys(values).length > 0) {
    try {
      await db.transaction().execute(async (trx) => {
        await repo.updateWebhook(trx, actor.tenantId, id, { ...values, updated_at: nowIso() });
        await recordAudit(trx, actor, 'webhook.updated', { webhook_id: id, webhook_name: name, ...meta });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`a webhook named "${name}" exists`);
      throw err;
    }
  }
  return getWebhook(db, actor.tenantId, id, s);
}

/** Deletes a webhook with its delivery records (pending deliveries then find it gone); audit `webhook.deleted`. */
export async function deleteWebhook(db: Db, actor: AuditContext, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await findOr404(trx, actor.tenantId, id);
    await repo.removeWebhook(trx, actor.tenantId, id);
    await recordAudit(trx, actor, 'webhook.deleted', auditMeta(toWebhook(row, []), row));
  });
}

export function toDelivery(r: Selectable<WebhookDeliveriesTable>): Delivery {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: Number(r.attempts),
    responseCode: r.response_code === null ? null : Number(r.response_code),
    responseBody: r.response_body,
    error: r.error,
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    createdAt: r.created_at,
    lastAttemptAt: r.last_attempt_at,
    nextAttemptAt: r.next_attempt_at,
    finishedAt: r.finished_at,
  };
}

/** The cursor of a page: the last delivery's created_at and id, base64url JSON (opaque to clients). */
const cursorOf = (d: Delivery) =>
  Buffer.from(JSON.stringify([d.createdAt, d.id]), 'utf8').toString('base64url');

function readCursor(cursor: string): { createdAt: string; id: string } {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    typeof value[0] !== 'string' ||
    typeof value[1] !== 'string'
  )
    throw badRequest("cursor is not a page's nextCursor", '/cursor');
  return { createdAt: value[0], id: value[1] };
}

/** A page of deliveries, newest first, with the cursor of the next; `cursor` and `offset` do not mix. */
/** How many delivery records the webhook has, and how many wait to be sent: what its deletion removes. */
export async function countDeliveries(db: Db, tenantId: string, webhookId: string): Promise<DeliveryCount> {
  await findOr404(db, tenantId, webhookId);
  return repo.countDeliveries(db, tenantId, webhookId);
}

export async function listDeliveries(
  db: Db,
  tenantId: string,
  webhookId: string,
  page: { limit?: number; offset?: number; cursor?: string; status?: Delivery['status'] },
): Promise<{ deliveries: Delivery[]; nextCursor: string | null }> {
  if (page.cursor !== undefined && (page.offset ?? 0) > 0)
    throw badRequest('cursor and offset do not mix: a cursor already says where the page starts', '/offset');
  const after = page.cursor === undefined ? undefined : readCursor(page.cursor);
  await findOr404(db, tenantId, webhookId);
  const limit = page.limit ?? 50;
  // One row more than asked says whether a next page exists, without counting.
  const rows = await repo.listDeliveries(db, tenantId, webhookId, {
    limit: limit + 1,
    offset: page.offset ?? 0,
    after,
    status: page.status,
  });
  const deliveries = rows.slice(0, limit).map(toDelivery);
  return {
    deliveries,
    nextCursor: rows.length > limit ? cursorOf(deliveries[deliveries.length - 1]) : null,
  };
}

/** What the jobs page says of webhook.deliver jobs: each delivery's webhook (id and name) and event type. */
export async function describeDeliveries(
  db: Db,
  tenantId: string,
  deliveryIds: string[],
): Promise<Map<string, { webhookId: string; webhookName: string; eventType: string }>> {
  const deliveries = (await repo.findDeliveriesByIds(db, deliveryIds)).filter(
    (d) => d.tenant_id === tenantId,
  );
  const names = new Map(
    (await repo.findWebhooksByIds(db, [...new Set(deliveries.map((d) => d.webhook_id))])).map((w) => [
      w.id,
      w.name,
    ]),
  );
  return new Map(
    deliveries.map((d) => [
      d.id,
      { webhookId: d.webhook_id, webhookName: names.get(d.webhook_id) ?? '', eventType: d.event_type },
    ]),
  );
}

export async function getDelivery(
  db: Db,
  tenantId: string,
  webhookId: string,
  deliveryId: string,
): Promise<Delivery & { body: string }> {
  const row = await repo.findDelivery(db, tenantId, webhookId, deliveryId);
  if (!row) throw notFound(`delivery "${deliveryId}" of webhook "${webhookId}" not found`);
  return { ...toDelivery(row), body: row.body };
}
