import type { Db } from '../../db/create-db.js';
import { AppError, badRequest } from '../../errors.js';
import { csvCell } from '../../lib/csv.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { getTenant } from '../tenants/tenants.service.js';
import type { AuditAction } from './audit-actions.js';
import * as repo from './audit.repository.js';
import type { AuditEvent, AuditFilterQuery, AuditLogPage, AuditLogQuery } from './audit.schemas.js';

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
  action: AuditAction,
  meta?: AuditMeta,
): Promise<void> {
  await recordAudits(db, [{ ctx, action, meta }]);
}

/** Several events in one statement, as `recordAudit` records each (the group commit's results, one per request). */
export async function recordAudits(
  db: Db,
  events: { ctx: AuditContext; action: AuditAction; meta?: AuditMeta }[],
): Promise<void> {
  if (events.length === 0) return;
  const at = nowIso();
  await repo.insertEvents(
    db,
    events.map(({ ctx, action, meta }) => {
      const cleaned: AuditMeta = {};
      for (const [key, value] of Object.entries(meta ?? {})) if (value !== undefined) cleaned[key] = value;
      const masked = maskSecrets(cleaned);
      return {
        tenant_id: ctx.tenantId,
        user_id: ctx.userId,
        action,
        ip: ctx.ip ?? '',
        user_agent: ctx.userAgent ?? '',
        meta: Object.keys(masked).length > 0 ? JSON.stringify(masked) : null,
        created_at: at,
      };
    }),
  );
}

/** D13: midnight UTC of the first day of the month `now` falls in. */
export function monthStartUtc(now: Date = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
}

/** Where a filtered read of the log starts and stops, as id bounds; undefined when nothing can match. */
async function resolveFilter(
  db: Db,
  tenantId: string,
  query: AuditFilterQuery,
  count: number,
  now: Date,
): Promise<repo.EventFilter | undefined> {
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
  // A time span is an id range, as D13's month start: ids grow with the time events are written.
  let afterId = after;
  const start = from ?? (after === 0 ? monthStartUtc(now) : undefined);
  if (start !== undefined) {
    const first = await repo.findFirstIdSince(db, tenantId, start);
    if (first === undefined) return undefined;
    afterId = Math.max(afterId, Number(first) - 1);
  }
  let beforeId = query.before;
  if (to !== undefined) {
    const end = await repo.findFirstIdSince(db, tenantId, to);
    if (end !== undefined) beforeId = Math.min(beforeId ?? Infinity, Number(end));
  }
  return {
    afterId,
    beforeId,
    actions: query.action === undefined ? undefined : [...new Set(query.action)],
    userId: query.userId,
    count,
    desc: query.order === 'desc',
  };
}

const toEvent = (r: repo.EventRow): AuditEvent => ({
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
});

/**
 * One page of the tenant's audit log in ascending id order (D13): `after` 0 starts at the first event
 * of the current calendar month (UTC), or at `from` when given; the answer's `after` is the last id returned,
 * or the request's `after` when there is none. `order=desc` reads the same span newest first, `before` being
 * its cursor (docs/api-decisions.md#audit-log-order). `action`, `userId`, `from` and `to` only narrow the events
 * (docs/api-decisions.md#audit-log-filters). Needs the `advanced-auth` feature (D6: 402 otherwise).
 */
export async function listAuditEvents(
  db: Db,
  tenantId: string,
  query: AuditLogQuery,
  now: Date = new Date(),
): Promise<AuditLogPage> {
  const after = query.after ?? 0;
  const filter = await resolveFilter(db, tenantId, query, query.count ?? 100, now);
  if (filter === undefined) return { after, count: 0, events: [] };
  const events = (await repo.listEventsAfter(db, tenantId, filter)).map(toEvent);
  return { after: events.length > 0 ? events[events.length - 1].id : after, count: events.length, events };
}

export const AUDIT_CSV_HEADER = [
  'id',
  'createdAt',
  'action',
  'userId',
  'userName',
  'userEmail',
  'ip',
  'userAgent',
  'meta',
] as const;
/** Rows read per query while exporting: the same keyset pages as the API's, so memory stays flat. */
const EXPORT_BATCH = 1000;

/**
 * The filtered events as CSV lines (docs/api-decisions.md#audit-log-export), header first, read page by page in
 * id order (or newest first with `order=desc`). The filter is checked (400, 402) before the first line, so a refusal is still a JSON error, never a
 * half-written file.
 */
export async function exportAuditEvents(
  db: Db,
  tenantId: string,
  query: AuditFilterQuery,
  now: Date = new Date(),
): Promise<AsyncIterable<string>> {
  const filter = await resolveFilter(db, tenantId, query, EXPORT_BATCH, now);
  async function* lines() {
    yield `${AUDIT_CSV_HEADER.map(csvCell).join(',')}\r\n`;
    if (filter === undefined) return;
    // Keyset pages in the asked order: ascending moves the lower bound up, descending the upper bound down.
    for (let cursor = filter; ;) {
      const rows = await repo.listEventsAfter(db, tenantId, cursor);
      if (rows.length === 0) return;
      let chunk = '';
      for (const r of rows) {
        const e = toEvent(r);
        const cells = [
          e.id,
          e.createdAt,
          e.action,
          e.user?.id,
          e.user?.name,
          e.user?.email,
          e.ip,
          e.userAgent,
          e.meta === undefined ? '' : JSON.stringify(e.meta),
        ];
        chunk += `${cells.map(csvCell).join(',')}\r\n`;
      }
      yield chunk;
      if (rows.length < EXPORT_BATCH) return;
      const last = Number(rows[rows.length - 1].id);
      cursor = filter.desc ? { ...cursor, beforeId: last } : { ...cursor, afterId: last };
    }
  }
  return lines();
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
