import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { FailureSignaturesTable } from '../../../db/tables/triage.js';
import { chunks, rowsPerStatement } from '../../../lib/chunks.js';

/*
 * The `failure_signatures` table: written by the runs module with the results it signs (the triage module reads it).
 * The backfill reads `results` joined with `runs` for the project, in id ranges.
 */

const COLUMNS = 9;

/**
 * Inserts signatures; one already stored for a result is kept (two processes' backfills may meet, and a result
 * has one signature: its comment never changes).
 */
export async function insertFailureSignatures(
  db: Db,
  rows: Insertable<FailureSignaturesTable>[],
): Promise<void> {
  for (const part of chunks(rows, rowsPerStatement(COLUMNS)))
    await db
      .insertInto('failure_signatures')
      .values(part)
      .onConflict((oc) => oc.column('result_id').doNothing())
      .execute();
}

/** The highest result id (0 when there is none). */
export async function maxResultId(db: Db): Promise<number> {
  const row = await db
    .selectFrom('results')
    .select((eb) => eb.fn.max('id').as('m'))
    .executeTakeFirst();
  return Number(row?.m ?? 0);
}

/** Failed or blocked results with ids in (after, upTo] that have no signature yet, with their runs' projects. */
export const listUnsignedFailures = (db: Db, statuses: readonly string[], after: number, upTo: number) =>
  db
    .selectFrom('results as r')
    .innerJoin('runs as ru', 'ru.id', 'r.run_id')
    .leftJoin('failure_signatures as f', 'f.result_id', 'r.id')
    .select(['r.id', 'r.tenant_id', 'r.run_id', 'r.tcase_id', 'r.comment', 'r.created_at', 'ru.project_id'])
    .where('r.id', '>', after)
    .where('r.id', '<=', upTo)
    .where('r.status', 'in', statuses)
    .where('f.result_id', 'is', null)
    .orderBy('r.id')
    .execute();

/** Signatures with result ids in (after, upTo] stored by a normaliser older than `version`, with their comments. */
export const listStaleSignatures = (db: Db, version: number, after: number, upTo: number) =>
  db
    .selectFrom('failure_signatures as f')
    .innerJoin('results as r', 'r.id', 'f.result_id')
    .select(['f.result_id', 'f.tenant_id', 'f.project_id', 'f.signature', 'r.comment'])
    .where('f.result_id', '>', after)
    .where('f.result_id', '<=', upTo)
    .where('f.version', '<', version)
    .orderBy('f.result_id')
    .execute();

/** Stores a new signature for these results (the backfill's re-signing); only rows still older are changed. */
export async function resign(
  db: Db,
  resultIds: number[],
  to: { signature: string; label: string; version: number },
): Promise<void> {
  for (const part of chunks(resultIds, 500))
    await db
      .updateTable('failure_signatures')
      .set(to)
      .where('result_id', 'in', part)
      .where('version', '<', to.version)
      .execute();
}

/** Of these results, those that already carry a link to `url`. */
export async function resultsLinkedTo(db: Db, tenantId: string, resultIds: number[], url: string) {
  const out = new Set<number>();
  for (const part of chunks(resultIds, 500)) {
    const rows = await db
      .selectFrom('result_links')
      .select('result_id')
      .where('tenant_id', '=', tenantId)
      .where('result_id', 'in', part)
      .where('url', '=', url)
      .execute();
    for (const r of rows) out.add(Number(r.result_id));
  }
  return out;
}
