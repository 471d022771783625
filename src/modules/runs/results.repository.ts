import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { prepareQuery } from '../../db/prepared.js';
import type { ResultLinksTable, ResultsTable } from '../../db/tables/execution.js';
import { chunks, rowsPerStatement } from '../../lib/chunks.js';

/*
 * The `results` and `result_links` tables. A run test case's status, the run's counters and the run's lock are
 * run state written beside them in the same transaction (run-tcases.repository.ts, runs.repository.ts), so reading
 * a run never scans its results. The result list joins `users` for its authors, a read kept for speed.
 */

/** Inserts results with multi-row statements; returns their ids in the order of `rows`. */
export async function insertResults(db: Db, rows: Insertable<ResultsTable>[]): Promise<number[]> {
  if (rows.length === 1) {
    const r = rows[0];
    const row = await insertOneResult.executeTakeFirst(
      db,
      r.tenant_id,
      r.run_id,
      r.tcase_id,
      r.tcase_version,
      r.status,
      r.comment ?? '',
      r.time_taken ?? null,
      r.author_id ?? null,
      r.api_key_id ?? null,
      r.internal ?? 0,
      r.created_at,
    );
    return [Number(row!.id)];
  }
  const ids: number[] = [];
  for (const part of chunks(rows, rowsPerStatement(11))) {
    const inserted = await db.insertInto('results').values(part).returning('id').execute();
    // Both databases hand out the ids of one statement in the order of its rows, but neither promises
    // the order of RETURNING: sorting restores the row order.
    ids.push(...inserted.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
  return ids;
}

const insertOneResult = prepareQuery(
  (
    db: Db,
    tenantId: string,
    runId: number,
    tcaseId: string,
    tcaseVersion: number,
    status: string,
    comment: string,
    timeTaken: number | null,
    authorId: number | null,
    apiKeyId: string | null,
    internal: number,
    createdAt: string,
  ) =>
    db
      .insertInto('results')
      .values({
        tenant_id: tenantId,
        run_id: runId,
        tcase_id: tcaseId,
        tcase_version: tcaseVersion,
        status,
        comment,
        time_taken: timeTaken,
        author_id: authorId,
        api_key_id: apiKeyId,
        internal,
        created_at: createdAt,
      })
      .returning('id'),
);

export async function insertResultLinks(db: Db, rows: Insertable<ResultLinksTable>[]): Promise<void> {
  for (const part of chunks(rows, rowsPerStatement(6)))
    await db.insertInto('result_links').values(part).execute();
}

/** Results of a case in a run, oldest first, with their authors. */
export const listResults = (db: Db, tenantId: string, runId: number, tcaseId: string) =>
  db
    .selectFrom('results as r')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'r.author_id').on('u.tenant_id', '=', tenantId))
    .selectAll('r')
    .select([
      'u.email as author_email',
      'u.name as author_name',
      'u.avatar as author_avatar',
      'u.role as author_role',
    ])
    .where('r.tenant_id', '=', tenantId)
    .where('r.run_id', '=', runId)
    .where('r.tcase_id', '=', tcaseId)
    .orderBy('r.id')
    .execute();

export const listResultLinks = (db: Db, tenantId: string, resultIds: number[]) =>
  resultIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('result_links')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('result_id', 'in', resultIds)
        .orderBy('id')
        .execute();
