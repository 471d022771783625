import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ImportsTable } from '../../db/tables/imports.js';

/*
 * The `imports` table (one row per uploaded file) and what each import wrote, so that one failing part-way can take
 * it back: `import_created` (cases), `import_folders` (folders), `import_versions` (cases changed, with the version
 * before; version 0, which no case has, marks a filled case the import deleted: its template's Parameter Values no
 * longer listed it).
 */

export const insertImport = async (db: Db, row: Insertable<ImportsTable>): Promise<number> =>
  (await db.insertInto('imports').values(row).returning('id').executeTakeFirstOrThrow()).id;

export const findImport = (db: Db, tenantId: string, id: number) =>
  db
    .selectFrom('imports')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findImportById = (db: Db, id: number) =>
  db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();

export const updateImport = (db: Db, id: number, values: Updateable<ImportsTable>) =>
  db.updateTable('imports').set(values).where('id', '=', id).execute();

/** Updates the row only while `token`'s attempt holds it; answers whether it did. */
export async function updateHeld(
  db: Db,
  id: number,
  token: string,
  values: Updateable<ImportsTable>,
): Promise<boolean> {
  const r = await db
    .updateTable('imports')
    .set(values)
    .where('id', '=', id)
    .where('run_token', '=', token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function recordCreated(db: Db, importId: number, tcaseIds: string[]): Promise<void> {
  if (tcaseIds.length === 0) return;
  await db
    .insertInto('import_created')
    .values(tcaseIds.map((tcase_id) => ({ import_id: importId, tcase_id })))
    .execute();
}

export const listCreated = async (db: Db, importId: number): Promise<string[]> =>
  (await db.selectFrom('import_created').select('tcase_id').where('import_id', '=', importId).execute()).map(
    (r) => r.tcase_id,
  );

export async function recordFolders(db: Db, importId: number, folderIds: number[]): Promise<void> {
  if (folderIds.length === 0) return;
  await db
    .insertInto('import_folders')
    .values(folderIds.map((folder_id) => ({ import_id: importId, folder_id })))
    .execute();
}

export const listFolders = async (db: Db, importId: number): Promise<number[]> =>
  (await db.selectFrom('import_folders').select('folder_id').where('import_id', '=', importId).execute()).map(
    (r) => r.folder_id,
  );

export async function recordVersions(
  db: Db,
  importId: number,
  items: { id: string; version: number }[],
): Promise<void> {
  if (items.length === 0) return;
  await db
    .insertInto('import_versions')
    .values(items.map((i) => ({ import_id: importId, tcase_id: i.id, version: i.version })))
    .execute();
}

export const listVersions = async (db: Db, importId: number) =>
  (
    await db
      .selectFrom('import_versions')
      .select(['tcase_id', 'version'])
      .where('import_id', '=', importId)
      .where('version', '>', 0)
      .orderBy('tcase_id')
      .execute()
  ).map((r) => ({ id: r.tcase_id, version: r.version }));

/** Filled cases the import deleted (recorded with version 0). */
export const recordRemoved = (db: Db, importId: number, tcaseIds: string[]) =>
  recordVersions(
    db,
    importId,
    tcaseIds.map((id) => ({ id, version: 0 })),
  );

export const listRemoved = async (db: Db, importId: number): Promise<string[]> =>
  (
    await db
      .selectFrom('import_versions')
      .select('tcase_id')
      .where('import_id', '=', importId)
      .where('version', '=', 0)
      .orderBy('tcase_id')
      .execute()
  ).map((r) => r.tcase_id);

/** Forgets what the import wrote (once it ended well, or once it was taken back). */
export async function forgetCreated(db: Db, importId: number): Promise<void> {
  await db.deleteFrom('import_created').where('import_id', '=', importId).execute();
  await db.deleteFrom('import_folders').where('import_id', '=', importId).execute();
  await db.deleteFrom('import_versions').where('import_id', '=', importId).execute();
}
