export const listConfigurations = (db, tenantId, projectId) => db
    .selectFrom('configurations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
export const findConfiguration = (db, tenantId, projectId, id) => db
    .selectFrom('configurations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
export const insertConfiguration = (db, row) => db.insertInto('configurations').values(row).execute();
//# sourceMappingURL=configurations.repository.js.map