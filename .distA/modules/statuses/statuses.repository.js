export const listStatusRows = (db, tenantId) => db.selectFrom('statuses').selectAll().where('tenant_id', '=', tenantId).execute();
export const upsertStatus = (db, row) => db
    .insertInto('statuses')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'id']).doUpdateSet({
    name: row.name,
    color: row.color,
    is_active: row.is_active,
    updated_at: row.updated_at,
}))
    .execute();
//# sourceMappingURL=statuses.repository.js.map