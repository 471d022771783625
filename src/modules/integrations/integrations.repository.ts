import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { IntegrationProjectsTable, IntegrationsTable } from '../../db/tables/admin.js';

export const listIntegrations = (db: Db, tenantId: string) =>
  db
    .selectFrom('integrations as i')
    .selectAll('i')
    .select((eb) =>
      eb
        .selectFrom('integration_projects as l')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('l.integration_id', '=', 'i.id')
        .as('linked_project_count'),
    )
    .where('i.tenant_id', '=', tenantId)
    .orderBy('i.name')
    .execute();

export const findIntegration = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('integrations as i')
    .selectAll('i')
    .select((eb) =>
      eb
        .selectFrom('integration_projects as l')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('l.integration_id', '=', 'i.id')
        .as('linked_project_count'),
    )
    .where('i.tenant_id', '=', tenantId)
    .where('i.id', '=', id)
    .executeTakeFirst();

export const findIntegrationByName = (db: Db, tenantId: string, name: string) =>
  db
    .selectFrom('integrations')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();

export const insertIntegration = (db: Db, row: Insertable<IntegrationsTable>) =>
  db.insertInto('integrations').values(row).execute();

export const updateIntegration = (
  db: Db,
  tenantId: string,
  id: string,
  values: Updateable<IntegrationsTable>,
) =>
  db.updateTable('integrations').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();

export const removeIntegration = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('integrations').where('tenant_id', '=', tenantId).where('id', '=', id).execute();

/** The project's links, each with its integration's name and settings. */
export const listProjectLinks = (db: Db, tenantId: string, projectId: string) =>
  db
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

export const findLinkByType = (db: Db, tenantId: string, projectId: string, type: string) =>
  db
    .selectFrom('integration_projects as l')
    .innerJoin('integrations as i', 'i.id', 'l.integration_id')
    .select(['l.integration_id', 'l.config as link_config', 'i.name', 'i.type'])
    .where('l.tenant_id', '=', tenantId)
    .where('l.project_id', '=', projectId)
    .where('l.type', '=', type)
    .executeTakeFirst();

export const findLink = (db: Db, tenantId: string, projectId: string, integrationId: string) =>
  db
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

export const upsertLink = (db: Db, row: Insertable<IntegrationProjectsTable>) =>
  db
    .insertInto('integration_projects')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'type']).doUpdateSet({
        integration_id: row.integration_id,
        config: row.config,
        updated_at: row.updated_at,
      }),
    )
    .execute();

export const removeLink = (db: Db, tenantId: string, projectId: string, integrationId: string) =>
  db
    .deleteFrom('integration_projects')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('integration_id', '=', integrationId)
    .execute();
