import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import { prepareQuery, prepareRowsInsert } from '../../../db/prepared.js';
import type { ResultLinksTable, ResultsTable } from '../../../db/tables/execution.js';
import { chunks, rowsPerStatement } from '../../../lib/chunks.js';

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
  for (const part of chunks(rows, rowsPerStatement(RESULT_COLUMNS.length))) {
    const inserted = await insertResultRows.execute(db, part);
    // Both databases hand out the ids of one statement in the order of its rows, but neither promises
    // the order of RETURNING: sorting restores the row order.
    ids.push(...inserted.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
  return ids;
}

const RESULT_COLUMNS = [
  'tenant_id',
  'run_id',
  'tcase_id',
  'tcase_version',
  'status',
  'comment',
  'time_taken',
  'author_id',
  'api_key_id',
  'internal',
  'created_at',
] as const;

const insertResultRows = prepareRowsInsert(RESULT_COLUMNS, (db: Db, rows: Insertable<ResultsTable>[]) =>
  db.insertInto('results').values(rows).returning('id'),
);

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
  for (const part of chunks(rows, rowsPerStatement(9)))
    await db.insertInto('result_links').values(part).execute();
}

/** One link, answering its id (a link due a tracker comment: its job names it). */
export async function insertResultLink(db: Db, row: Insertable<ResultLinksTable>): Promise<number> {
  const r = await db.insertInto('result_links').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

/** Of these integrations, the trackers (every type but `custom`): their links with an issue id get a comment. */
export async function trackerIntegrationIds(db: Db, tenantId: string, ids: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('integrations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('type', '<>', 'custom')
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Everything a tracker comment needs about its link: result, run, case, project, integration and its link. */
export const findLinkForComment = (db: Db, linkId: number) =>
  db
    .selectFrom('result_links as l')
    .innerJoin('results as r', 'r.id', 'l.result_id')
    .innerJoin('runs as ru', 'ru.id', 'r.run_id')
    .innerJoin('projects as p', 'p.id', 'ru.project_id')
    .innerJoin('tcases as t', 't.id', 'r.tcase_id')
    .leftJoin('integrations as i', (j) =>
      j.onRef('i.id', '=', 'l.integration_id').onRef('i.tenant_id', '=', 'l.tenant_id'),
    )
    .leftJoin('integration_projects as ip', (j) =>
      j.onRef('ip.integration_id', '=', 'l.integration_id').onRef('ip.project_id', '=', 'ru.project_id'),
    )
    .leftJoin('statuses as s', (j) =>
      j.onRef('s.tenant_id', '=', 'l.tenant_id').onRef('s.id', '=', 'r.status'),
    )
    .select([
      'l.id',
      'l.tenant_id',
      'l.meta',
      'l.url',
      'l.comment_status',
      'r.status',
      's.name as status_name',
      'ru.id as run_id',
      'ru.title as run_title',
      'p.code as project_code',
      't.seq as tcase_seq',
      't.title as tcase_title',
      'i.type as integration_type',
      'i.config as integration_config',
      'i.token_enc',
      'ip.config as link_config',
    ])
    .where('l.id', '=', linkId)
    .executeTakeFirst();

/** Records the outcome of a link's tracker comment. */
export const setLinkComment = (
  db: Db,
  linkId: number,
  outcome: {
    status: 'pending' | 'posted' | 'failed';
    commentId?: string | null;
    error?: string | null;
    at: string;
  },
) =>
  db
    .updateTable('result_links')
    .set({
      comment_status: outcome.status,
      comment_id: outcome.commentId ?? null,
      comment_error: outcome.error ?? null,
      comment_at: outcome.at,
    })
    .where('id', '=', linkId)
    .execute();

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
