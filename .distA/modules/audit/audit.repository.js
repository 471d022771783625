export const insertEvent = (db, row) => db.insertInto('audit_events').values(row).execute();
/** The first event of the tenant at or after `since` (index audit_events_tenant_created_idx). */
export const findFirstIdSince = async (db, tenantId, since) => (await db
    .selectFrom('audit_events')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>=', since)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst())?.id;
/**
 * One page of events with id > `afterId`, ascending, each joined to its user. The page is cut first
 * (index on (tenant_id, id)) and only its rows are joined, whatever the planner thinks of the table's size.
 */
export const listEventsAfter = (db, tenantId, afterId, count) => db
    .selectFrom(db
    .selectFrom('audit_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(count)
    .as('e'))
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
    .orderBy('e.id')
    .execute();
/** Deletes up to `limit` events created before `cutoff` (any tenant); returns how many went. */
export const removeEventsBefore = async (db, cutoff, limit) => {
    const result = await db
        .deleteFrom('audit_events')
        .where('id', 'in', (eb) => eb.selectFrom('audit_events').select('id').where('created_at', '<', cutoff).limit(limit))
        .executeTakeFirst();
    return Number(result.numDeletedRows);
};
//# sourceMappingURL=audit.repository.js.map