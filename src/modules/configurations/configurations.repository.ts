import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ConfigurationsTable } from '../../db/schema.js';

export const listConfigurations = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('configurations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findConfiguration = (db: Db, tenantId: string, projectId: string, id: string) =>
  db
    .selectFrom('configurations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();

export const insertConfiguration = (db: Db, row: Insertable<ConfigurationsTable>) =>
  db.insertInto('configurations').values(row).execute();
