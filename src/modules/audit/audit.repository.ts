import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { AuditEventsTable } from '../../db/schema.js';

export const insertEvents = (db: Db, rows: Insertable<AuditEventsTable>[]) =>
  db.insertInto('audit_events').values(rows).execute();

/** The first event of the tenant at or after `since` (index audit_events_tenant_created_idx). */
export const findFirstIdSince = async (db: Db, tenantId: string, since: string) =>
  (
    await db
      .selectFrom('audit_events')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('created_at', '>=', since)
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst()
  )?.id;

/** What a page of the log is cut by: ids in (afterId, beforeId), and optionally the actions and the person. */
export interface EventFilter {
  afterId: number;
  beforeId?: number;
  actions?: string[];
  userId?: number;
  count: number;
  /** Newest first (the page reads the id ranges backwards); oldest first otherwise. */
  desc?: boolean;
}

/**
 * One page of events with id in (`afterId`, `beforeId`), ascending (or descending with `desc`), each joined to its user. The page's ids are cut first and
 * only its rows are read and joined, whatever the planner thinks of the table's size. Each action is its own
 * index range (tenant_id, action, id) cut at `count` and the ranges are merged: an IN list over that index
 * would have to sort every matching event; a person alone reads (tenant_id, user_id, id), none (tenant_id, id).
 */
export const eventsPageQuery = (db: Db, tenantId: string, f: EventFilter) => {
  const dir = f.desc ? 'desc' : 'asc';
  const idsOf = (action?: string) => {
    let q = db
      .selectFrom('audit_events')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '>', f.afterId);
    if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
    if (action !== undefined) q = q.where('action', '=', action);
    if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
    return q.orderBy('id', dir).limit(f.count);
  };
  const actions = f.actions ?? [];
  const page =
    actions.length <= 1
      ? idsOf(actions[0])
      : db
          .selectFrom(
            actions
              .slice(1)
              .reduce(
                (all, action, i) => all.unionAll(db.selectFrom(idsOf(action).as(`a${i + 1}`)).select('id')),
                db.selectFrom(idsOf(actions[0]).as('a0')).select('id'),
              )
              .as('merged'),
          )
          .select('id')
          .orderBy('id', dir)
          .limit(f.count);
  return db
    .selectFrom(page.as('p'))
    .innerJoin('audit_events as e', 'e.id', 'p.id')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'e.user_id').onRef('u.tenant_id', '=', 'e.tenant_id'))
    .select([
      'e.id',
      'e.user_id',
      'e.action',
      'e.ip',
      'e.user_agent',
      'e.meta',
      'e.created_at',
      'u.name as user_name',
      'u.email as user_email',
    ])
    .orderBy('e.id', dir);
};

export const listEventsAfter = (db: Db, tenantId: string, f: EventFilter) =>
  eventsPageQuery(db, tenantId, f).execute();
export type EventRow = Awaited<ReturnType<typeof listEventsAfter>>[number];

/** Deletes up to `limit` events created before `cutoff` (any tenant); returns how many went. */
export const removeEventsBefore = async (db: Db, cutoff: string, limit: number): Promise<number> => {
  const result = await db
    .deleteFrom('audit_events')
    .where('id', 'in', (eb) =>
      eb.selectFrom('audit_events').select('id').where('created_at', '<', cutoff).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};
