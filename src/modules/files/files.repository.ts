import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { FilesTable } from '../../db/tables/files.js';
import { chunks } from '../../lib/chunks.js';

export const insertFiles = (db: Db, rows: Insertable<FilesTable>[]) =>
  db.insertInto('files').values(rows).execute();

export const findFile = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('files')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Chunked: a list of test cases may reference thousands of files, beyond a statement's parameter limit. */
export async function listFilesByIds(db: Db, tenantId: string, ids: string[]) {
  const rows = [];
  for (const chunk of chunks(ids)) {
    rows.push(
      ...(await db
        .selectFrom('files')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', chunk)
        .execute()),
    );
  }
  return rows;
}
