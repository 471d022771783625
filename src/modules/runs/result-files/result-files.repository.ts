import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { ResultFilesTable } from '../../../db/tables/execution.js';
import { chunks, rowsPerStatement } from '../../../lib/chunks.js';

/* The `result_files` table (extensions.md §8): written beside its results, read by result id. */

export async function insertResultFiles(db: Db, rows: Insertable<ResultFilesTable>[]): Promise<void> {
  for (const part of chunks(rows, rowsPerStatement(5)))
    await db.insertInto('result_files').values(part).execute();
}

/** The files of the given results with their metadata, by result then position. */
export async function listResultFiles(db: Db, tenantId: string, resultIds: number[]) {
  const rows = [];
  for (const part of chunks(resultIds)) {
    rows.push(
      ...(await db
        .selectFrom('result_files as rf')
        .innerJoin('files as f', 'f.id', 'rf.file_id')
        .select(['rf.result_id', 'rf.position', 'f.id', 'f.file_name', 'f.mime_type', 'f.size'])
        .where('rf.tenant_id', '=', tenantId)
        .where('rf.result_id', 'in', part)
        .orderBy('rf.result_id')
        .orderBy('rf.position')
        .execute()),
    );
  }
  return rows;
}

export type ResultFileRow = Awaited<ReturnType<typeof listResultFiles>>[number];

/**
 * Uploads made for a result (`purpose = 'result'`) created before `cutoff` that no result names, at most `limit`:
 * the only files the pending-upload cleanup may remove.
 */
export const listPendingResultUploads = (db: Db, cutoff: string, limit: number) =>
  db
    .selectFrom('files as f')
    .select(['f.id', 'f.tenant_id', 'f.storage', 'f.storage_key'])
    .where('f.purpose', '=', 'result')
    .where('f.created_at', '<', cutoff)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('result_files as rf').select('rf.file_id').whereRef('rf.file_id', '=', 'f.id'),
        ),
      ),
    )
    .orderBy('f.created_at')
    .limit(limit)
    .execute();

/**
 * Deletes those of `ids` that are still pending uploads no result names (checked again in the statement, so a
 * result that named one meanwhile keeps it); answers the ids deleted.
 */
export async function deletePendingResultUploads(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .deleteFrom('files')
    .where('id', 'in', ids)
    .where('purpose', '=', 'result')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('result_files as rf').select('rf.file_id').whereRef('rf.file_id', '=', 'files.id'),
        ),
      ),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
