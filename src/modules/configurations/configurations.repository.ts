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

/** Another configuration of the project with exactly this title (a rename must not make two alike). */
export const findOtherByTitle = (
  db: Db,
  tenantId: string,
  projectId: string,
  title: string,
  exceptId: string,
) =>
  db
    .selectFrom('configurations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('title', '=', title)
    .where('id', '!=', exceptId)
    .executeTakeFirst();

export const updateConfigurationTitle = async (
  db: Db,
  tenantId: string,
  projectId: string,
  id: string,
  title: string,
  now: string,
) =>
  Number(
    (
      await db
        .updateTable('configurations')
        .set({ title, updated_at: now })
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst()
    ).numUpdatedRows,
  );

/** Runs keep their rows: the foreign key (0005) sets their configuration_id to null on both databases. */
export const deleteConfiguration = async (db: Db, tenantId: string, projectId: string, id: string) =>
  Number(
    (
      await db
        .deleteFrom('configurations')
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst()
    ).numDeletedRows,
  );

/** The project's runs that use the configuration, and the open ones among them: one read of its runs. */
export const countRunsUsing = async (db: Db, projectId: string, id: string) => {
  const row = await db
    .selectFrom('runs')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('runs'),
      eb.fn.count<number | string>('id').filterWhere('closed_at', 'is', null).as('open'),
    ])
    .where('project_id', '=', projectId)
    .where('configuration_id', '=', id)
    .executeTakeFirstOrThrow();
  return { runs: Number(row.runs), openRuns: Number(row.open) };
};
