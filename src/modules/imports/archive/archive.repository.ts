import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { ProjectImportsTable } from '../../../db/tables/imports.js';

/* The `project_imports` table: one row per uploaded archive, its progress and outcome. */

export async function codeTaken(db: Db, tenantId: string, code: string): Promise<boolean> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('code_norm', '=', code.toUpperCase())
    .executeTakeFirst();
  return row !== undefined;
}

export const insertProjectImport = async (db: Db, row: Insertable<ProjectImportsTable>): Promise<number> =>
  (await db.insertInto('project_imports').values(row).returning('id').executeTakeFirstOrThrow()).id;

export const findProjectImportById = (db: Db, id: number) =>
  db.selectFrom('project_imports').selectAll().where('id', '=', id).executeTakeFirst();

export const updateProjectImport = (db: Db, id: number, values: Updateable<ProjectImportsTable>) =>
  db.updateTable('project_imports').set(values).where('id', '=', id).execute();

/** Ends an import still queued or running as failed with `error`. */
export const failUnfinished = (db: Db, id: number, error: string, at: string) =>
  db
    .updateTable('project_imports')
    .set({ status: 'failed', error, finished_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();

/** The import with the code of the project it made (none while it runs or when it failed). */
export const findProjectImport = (db: Db, tenantId: string, id: number) =>
  db
    .selectFrom('project_imports as i')
    .leftJoin('projects as p', 'p.id', 'i.project_id')
    .select([
      'i.id',
      'i.status',
      'i.code',
      'i.total',
      'i.done',
      'i.error',
      'i.created_at',
      'i.finished_at',
      'p.code as projectCode',
      'p.id as projectId',
    ])
    .where('i.tenant_id', '=', tenantId)
    .where('i.id', '=', id)
    .executeTakeFirst();
