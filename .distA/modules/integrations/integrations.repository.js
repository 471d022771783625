export const listIntegrations = (db, tenantId) => db
    .selectFrom('integrations as i')
    .selectAll('i')
    .select((eb) => eb
    .selectFrom('integration_projects as l')
    .select((e) => e.fn.countAll().as('n'))
    .whereRef('l.integration_id', '=', 'i.id')
    .as('linked_project_count'))
    .where('i.tenant_id', '=', tenantId)
    .orderBy('i.name')
    .execute();
export const findIntegration = (db, tenantId, id) => db
    .selectFrom('integrations as i')
    .selectAll('i')
    .select((eb) => eb
    .selectFrom('integration_projects as l')
    .select((e) => e.fn.countAll().as('n'))
    .whereRef('l.integration_id', '=', 'i.id')
    .as('linked_project_count'))
    .where('i.tenant_id', '=', tenantId)
    .where('i.id', '=', id)
    .executeTakeFirst();
export const findIntegrationByName = (db, tenantId, name) => db
    .selectFrom('integrations')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
export const insertIntegration = (db, row) => db.insertInto('integrations').values(row).execute();
export const updateIntegration = (db, tenantId, id, values) => db.updateTable('integrations').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
export const removeIntegration = (db, tenantId, id) => db.deleteFrom('integrations').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
/** The project's links, each with its integration's name and settings. */
export const listProjectLinks = (db, tenantId, projectId) => db
    .selectFrom('integration_projects as l')
    .innerJoin('integrations as i', 'i.id', 'l.integration_id')
    .select([
    'l.integration_id',
    'l.type',
    'l.config as link_config',
    'l.created_at',
    'l.updated_at',
    'i.name',
    'i.config as integration_config',
])
    .where('l.tenant_id', '=', tenantId)
    .where('l.project_id', '=', projectId)
    .orderBy('l.type')
    .execute();
export const findLinkByType = (db, tenantId, projectId, type) => db
    .selectFrom('integration_projects as l')
    .innerJoin('integrations as i', 'i.id', 'l.integration_id')
    .select(['l.integration_id', 'l.config as link_config', 'i.name', 'i.type'])
    .where('l.tenant_id', '=', tenantId)
    .where('l.project_id', '=', projectId)
    .where('l.type', '=', type)
    .executeTakeFirst();
export const findLink = (db, tenantId, projectId, integrationId) => db
    .selectFrom('integration_projects as l')
    .innerJoin('integrations as i', 'i.id', 'l.integration_id')
    .select([
    'l.integration_id',
    'l.config as link_config',
    'i.name',
    'i.type',
    'i.config as integration_config',
])
    .where('l.tenant_id', '=', tenantId)
    .where('l.project_id', '=', projectId)
    .where('l.integration_id', '=', integrationId)
    .executeTakeFirst();
export const upsertLink = (db, row) => db
    .insertInto('integration_projects')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'type']).doUpdateSet({
    integration_id: row.integration_id,
    config: row.config,
    updated_at: row.updated_at,
}))
    .execute();
export const removeLink = (db, tenantId, projectId, integrationId) => db
    .deleteFrom('integration_projects')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('integration_id', '=', integrationId)
    .execute();
//# sourceMappingURL=integrations.repository.js.map