import type { Db } from '../../db/create-db.js';
import { AppError, badRequest } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { getTenant } from '../tenants/tenants.service.js';
import * as repo from './audit.repository.js';
import type { AuditEvent, AuditLogPage, AuditLogQuery } from './audit.schemas.js';

/** Who caused an event: an `Actor` fits; `userId` null for system events. */
export interface AuditContext {
  tenantId: string;
  userId: number | null;
  ip: string;
  userAgent: string;
}

export type AuditMeta = Record<string, unknown>;

/** Keys whose values never reach the audit log in clear (D25: secret, headers, payload). */
const SECRET_KEYS = /^(previous_)?(secret|headers|payload|token|password|api_?key|credentials?)$/i;

/**
 * Replaces the value of every secret-like key (secret, headers, payload, token, password…) with `****`
 * when it is set; unset values (null, undefined, '') stay as they are so "not set" remains visible.
 */
export function maskSecrets(meta: AuditMeta): AuditMeta {
  const out: AuditMeta = {};
  for (const [key, value] of Object.entries(meta)) {
    const set = value !== undefined && value !== null && value !== '';
    out[key] = SECRET_KEYS.test(key) && set ? '****' : value;
  }
  return out;
}

/**
 * Records one audit event (D25, docs/api-decisions.md#audit-events). `meta` is stored as JSON with secrets masked, and
 * omitted when empty; undefined values are dropped. Call it inside the transaction that made the change
 * when there is one, so the event exists exactly when the change does.
 */
export async function recordAudit(
  db: Db,
  ctx: AuditContext,
  action: string,
  meta?: AuditMeta,
): Promise<void> {
  const cleaned: AuditMeta = {};
  for (const [key, value] of Object.entries(meta ?? {})) if (value !== undefined) cleaned[key] = value;
  const masked = maskSecrets(cleaned);
  await repo.insertEvent(db, {
    tenant_id: ctx.tenantId,
    user_id: ctx.userId,
    action,
    ip: ctx.ip ?? '',
    user_agent: ctx.userAgent ?? '',
    meta: Object.keys(masked).length > 0 ? JSON.stringify(masked) : null,
    created_at: nowIso(),
  });
}

/** D13: midnight UTC of the first day of the month `now` falls in. */
export function monthStartUtc(now: Date = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
}

/**
 * One page of the tenant's audit log in ascending id order (D13): `after` 0 starts at the first event
 * of the current calendar month (UTC), or at `from` when given; the answer's `after` is the last id returned,
 * or the request's `after` when there is none. `action`, `userId`, `from` and `to` only narrow the events
 * (docs/api-decisions.md#audit-log-filters). Needs the `advanced-auth` feature (D6: 402 otherwise).
 */
export async function listAuditEvents(
  db: Db,
  tenantId: string,
  query: AuditLogQuery,
  now: Date = new Date(),
): Promise<AuditLogPage> {
  const from = query.from === undefined ? undefined : new Date(query.from).toISOString();
  const to = query.to === undefined ? undefined : new Date(query.to).toISOString();
  if (from !== undefined && to !== undefined && to <= from) throw badRequest('to must be after from', '/to');
  const tenant = await getTenant(db, tenantId);
  if (!tenant.features.includes('advanced-auth')) {
    throw new AppError(
      'FEATURE_NOT_AVAILABLE',
      'the audit log needs the advanced-auth feature, which this tenant does not have',
    );
  }
  const after = query.after ?? 0;
  const count = query.count ?? 100;
  const empty = { after, count: 0, events: [] };
  // A time span is an id range, as D13's month start: ids grow with the time events are written.
  let afterId = after;
  const start = from ?? (after === 0 ? monthStartUtc(now) : undefined);
  if (start !== undefined) {
    const first = await repo.findFirstIdSince(db, tenantId, start);
    if (first === undefined) return empty;
    afterId = Math.max(afterId, Number(first) - 1);
  }
  let beforeId: number | undefined;
  if (to !== undefined) {
    const end = await repo.findFirstIdSince(db, tenantId, to);
    if (end !== undefined) beforeId = Number(end);
  }
  const rows = await repo.listEventsAfter(db, tenantId, {
    afterId,
    beforeId,
    actions: query.action === undefined ? undefined : [...new Set(query.action)],
    userId: query.userId,
    count,
  });
  const events = rows.map((r): AuditEvent => ({
    id: Number(r.id),
    user:
      r.user_id !== null && r.user_name !== null
        ? { id: r.user_id, name: r.user_name, email: r.user_email ?? '' }
        : null,
    action: r.action,
    ip: r.ip,
    userAgent: r.user_agent,
    createdAt: r.created_at,
    ...(r.meta ? { meta: parseJson<Record<string, unknown>>(r.meta, {}) } : {}),
  }));
  return { after: events.length > 0 ? events[events.length - 1].id : after, count: events.length, events };
}

/** D25: deletes events older than `retentionDays` in batches of `batchSize`; returns how many went. */
export async function purgeExpiredAuditEvents(
  db: Db,
  retentionDays: number,
  options: { batchSize?: number; now?: Date } = {},
): Promise<number> {
  if (retentionDays <= 0) return 0;
  const batchSize = options.batchSize ?? 5000;
  const cutoff = new Date((options.now ?? new Date()).getTime() - retentionDays * 86_400_000).toISOString();
  let total = 0;
  for (;;) {
    const deleted = await repo.removeEventsBefore(db, cutoff, batchSize);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
