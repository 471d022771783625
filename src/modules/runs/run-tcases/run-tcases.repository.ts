import { sql, type Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import { prepareQuery, prepareRowsInsert } from '../../../db/prepared.js';
import type { RunTcasesTable } from '../../../db/tables/execution.js';
import { chunks, rowsPerStatement } from '../../../lib/chunks.js';
import { seqOf } from '../../../lib/ids.js';

/*
 * The `run_tcases` table: which test cases a run holds (in_run), their status, version pin and latest result.
 * Writes happen under the run's lock (runs.repository.ts lockRunForWrite / lockOpenRuns); the counters they move
 * are written by addToRunCounters. Reads join `tcases` and `tcase_versions` for speed (docs/architecture.md): a
 * run lists 10,000 test cases with their shown version in ONE query (run-tcases-list.repository.ts), and results
 * resolve thousands of references in a few; going through the test-case service would be one query per row. Only
 * reads of those tables.
 */

/**
 * Adds cases to runs (their locks are held), open and following their latest version, many runs in one
 * statement, and answers per run how many rows it really inserted: a row a concurrent propagation added a moment
 * ago is not counted twice.
 */
export const insertOpenRunTcases = async (
  db: Db,
  tenantId: string,
  pairs: { runId: number; tcaseId: string }[],
  now: string,
): Promise<Map<number, number>> => {
  const inserted = new Map<number, number>();
  for (const part of chunks(pairs)) {
    const rows = await db
      .insertInto('run_tcases')
      .values(
        part.map((p) => ({
          tenant_id: tenantId,
          run_id: p.runId,
          tcase_id: p.tcaseId,
          status: 'open',
          is_automated: 0,
          version: null,
          in_run: 1,
          updated_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(['run_id', 'tcase_id']).doNothing())
      .returning('run_id')
      .execute();
    for (const r of rows) inserted.set(r.run_id, (inserted.get(r.run_id) ?? 0) + 1);
  }
  return inserted;
};

export const pinRunTcasesToLatest = (db: Db, tenantId: string, runId: number) =>
  db
    .updateTable('run_tcases')
    .set({
      version: sql<number>`(select t.version from tcases t where t.id = run_tcases.tcase_id)`,
    })
    .where('tenant_id', '=', tenantId)
    .where('run_id', '=', runId)
    .where('version', 'is', null)
    .execute();

/** D17: closing freezes versions, folders and positions of every case of the run. */
export const freezeRunTcases = (db: Db, tenantId: string, runId: number) =>
  db
    .updateTable('run_tcases')
    .set({
      version: sql<number>`coalesce(version, (select t.version from tcases t where t.id = run_tcases.tcase_id))`,
      frozen_folder_id: sql<number>`(select t.folder_id from tcases t where t.id = run_tcases.tcase_id)`,
      frozen_pos: sql<number>`(select t.pos from tcases t where t.id = run_tcases.tcase_id)`,
    })
    .where('tenant_id', '=', tenantId)
    .where('run_id', '=', runId)
    .execute();

/** Membership rows (in the run or not any more) of these cases in these runs: propagation asks once for every open live run. */
export const listMembershipInRuns = async (
  db: Db,
  tenantId: string,
  runIds: number[],
  tcaseIds: string[],
) => {
  const out: { run_id: number; tcase_id: string; in_run: number }[] = [];
  for (const runPart of chunks(runIds, 500)) {
    for (const part of chunks(tcaseIds, 500)) {
      out.push(
        ...(await db
          .selectFrom('run_tcases')
          .select(['run_id', 'tcase_id', 'in_run'])
          .where('tenant_id', '=', tenantId)
          .where('run_id', 'in', runPart)
          .where('tcase_id', 'in', part)
          .execute()),
      );
    }
  }
  return out;
};

/**
 * Moves cases in or out of a run (its lock is held). A case that leaves keeps its row, status and results (D17),
 * so when it comes back it shows the status of its latest result again (D18). Changes only rows not yet in the
 * wanted state and answers their statuses, so the run's counters move by exactly what changed.
 */
export const setInRun = async (
  db: Db,
  tenantId: string,
  runId: number,
  tcaseIds: string[],
  inRun: 0 | 1,
  now: string,
): Promise<string[]> => {
  const statuses: string[] = [];
  for (const part of chunks(tcaseIds)) {
    const rows = await db
      .updateTable('run_tcases')
      .set({ in_run: inRun, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('tcase_id', 'in', part)
      .where('in_run', '!=', inRun)
      .returning('status')
      .execute();
    for (const r of rows) statuses.push(r.status);
  }
  return statuses;
};

/** Ids of the cases currently in the run. */
export const listInRunTcaseIds = async (db: Db, tenantId: string, runId: number) =>
  (
    await db
      .selectFrom('run_tcases')
      .select('tcase_id')
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('in_run', '=', 1)
      .execute()
  ).map((r) => r.tcase_id);

/**
 * A case of the run (in it now) named by id, sequence number (all digits, maybe zero-padded) or legacy id,
 * with the version the run shows. The project filter lets the database find the reference on the tcases
 * indexes (project_id, seq / legacy_id) and probe run_tcases by its key, instead of walking every case of
 * the run (10 ms for a 10,000-case run).
 */
export const findRunTcaseByRef = (
  db: Db,
  tenantId: string,
  projectId: string,
  runId: number,
  ref: string,
) => {
  const seq = seqOf(ref);
  return seq !== undefined
    ? runTcaseBySeqOrLegacyId.executeTakeFirst(db, tenantId, runId, projectId, seq, ref)
    : runTcaseByIdOrLegacyId.executeTakeFirst(db, tenantId, runId, projectId, ref, ref);
};

/** `key` is a seq or an id (`byColumn`); `ref` may also be a legacy id, which loses to the other two. */
const runTcaseByRef = (byColumn: 'seq' | 'id') =>
  prepareQuery(
    (db: Db, tenantId: string, runId: number, projectId: string, key: string | number, ref: string) =>
      db
        .selectFrom('run_tcases as rt')
        .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
        .leftJoin('users as au', 'au.id', 'rt.assignee_id')
        .select([
          'rt.tcase_id',
          'rt.status',
          'rt.is_automated',
          'rt.assignee_id',
          'au.name as assignee_name',
          'rt.version as pinned_version',
          'rt.frozen_folder_id',
          'rt.frozen_pos',
          't.version as latest_version',
          't.folder_id',
          't.pos',
        ])
        .where('rt.tenant_id', '=', tenantId)
        .where('rt.run_id', '=', runId)
        .where('rt.in_run', '=', 1)
        // A union of two index lookups (project_id + seq or id, project_id + legacy_id), then the run_tcases
        // key: neither database then plans a walk over the run's cases.
        .where('rt.tcase_id', 'in', (eb) =>
          eb
            .selectFrom('tcases as c')
            .select('c.id')
            .where('c.project_id', '=', projectId)
            .where(`c.${byColumn}`, '=', key as never)
            .unionAll(
              eb
                .selectFrom('tcases as l')
                .select('l.id')
                .where('l.project_id', '=', projectId)
                .where('l.legacy_id', '=', ref),
            ),
        )
        // An id or seq beats a legacy id that happens to look the same.
        .orderBy(sql`case when t.id = ${ref} then 0 when t.legacy_id = ${ref} then 2 else 1 end`),
  );
const runTcaseBySeqOrLegacyId = runTcaseByRef('seq');
const runTcaseByIdOrLegacyId = runTcaseByRef('id');

export interface RunTcaseStateRow {
  tcase_id: string;
  seq: number;
  legacy_id: string;
  status: string;
  version: number | null;
  /** The test case's latest version: what an unpinned run test case shows. */
  latest_version: number;
}

/**
 * The run test cases (in_run = 1) named by id, sequence number or legacy id. Reads `tcases` in the same
 * query (as the run's list does) so that thousands of references resolve in a few
 * statements, each on an index: ids on the run_tcases key, seqs and legacy ids on the tcases indexes.
 */
export function findRunTcaseStates(db: Db, tenantId: string, runId: number, projectId: string) {
  // By seq or legacy id, the test case comes first: SQLite reads the CROSS JOIN in the order written, and
  // otherwise walked the whole run (all 10,000 cases of it) to find 20 seqs (9 ms instead of 0.06 ms).
  const byCase = () => stateByCase(db, tenantId, runId, projectId);
  const inChunks = async <V>(values: V[], query: (part: V[]) => Promise<RunTcaseStateRow[]>) => {
    const out: RunTcaseStateRow[] = [];
    for (const part of chunks(values, rowsPerStatement(1))) out.push(...(await query(part)));
    return out;
  };
  // One reference (a single result) takes a prepared statement.
  return {
    byIds: (ids: string[]) =>
      ids.length === 1
        ? oneStateById.execute(db, tenantId, runId, ids[0])
        : inChunks(ids, (part) => stateBase(db, tenantId, runId).where('rt.tcase_id', 'in', part).execute()),
    bySeqs: (seqs: number[]) =>
      seqs.length === 1
        ? oneStateBySeq.execute(db, tenantId, runId, projectId, seqs[0])
        : inChunks(seqs, (part) => byCase().where('t.seq', 'in', part).execute()),
    byLegacyIds: (legacyIds: string[]) =>
      legacyIds.length === 1
        ? oneStateByLegacyId.execute(db, tenantId, runId, projectId, legacyIds[0])
        : inChunks(legacyIds, (part) => byCase().where('t.legacy_id', 'in', part).execute()),
  };
}

const STATE_COLUMNS = [
  'rt.tcase_id',
  't.seq',
  't.legacy_id',
  'rt.status',
  'rt.version',
  't.version as latest_version',
] as const;
const stateBase = (db: Db, tenantId: string, runId: number) =>
  db
    .selectFrom('run_tcases as rt')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .select(STATE_COLUMNS)
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1);
const oneStateById = prepareQuery((db: Db, tenantId: string, runId: number, id: string) =>
  stateBase(db, tenantId, runId).where('rt.tcase_id', '=', id),
);
/** As findRunTcaseStates' byCase: the test case first, then its row in the run. */
const stateByCase = (db: Db, tenantId: string, runId: number, projectId: string) =>
  db
    .selectFrom('tcases as t')
    .crossJoin('run_tcases as rt')
    .select(STATE_COLUMNS)
    .whereRef('rt.tcase_id', '=', 't.id')
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1)
    .where('t.project_id', '=', projectId);
const oneStateBySeq = prepareQuery(
  (db: Db, tenantId: string, runId: number, projectId: string, seq: number) =>
    stateByCase(db, tenantId, runId, projectId).where('t.seq', '=', seq),
);
const oneStateByLegacyId = prepareQuery(
  (db: Db, tenantId: string, runId: number, projectId: string, legacyId: string) =>
    stateByCase(db, tenantId, runId, projectId).where('t.legacy_id', '=', legacyId),
);

/**
 * Writes the new state of run test cases that exist (the run lock is held): a multi-row upsert on the
 * primary key is the portable way to update thousands of rows to different values in a few statements.
 */
export async function updateRunTcaseStates(db: Db, rows: Insertable<RunTcasesTable>[]): Promise<void> {
  if (rows.length === 1) {
    const r = rows[0];
    await updateOneState.execute(
      db,
      r.status ?? 'open',
      r.is_automated ?? 0,
      r.version ?? null,
      r.latest_result_id ?? null,
      r.updated_at,
      r.tenant_id,
      r.run_id,
      r.tcase_id,
    );
    return;
  }
  for (const part of chunks(rows, rowsPerStatement(STATE_ROW_COLUMNS.length)))
    await upsertStates.execute(db, part);
}

const STATE_ROW_COLUMNS = [
  'tenant_id',
  'run_id',
  'tcase_id',
  'status',
  'is_automated',
  'in_run',
  'version',
  'latest_result_id',
  'updated_at',
] as const;

const upsertStates = prepareRowsInsert(STATE_ROW_COLUMNS, (db: Db, rows: Insertable<RunTcasesTable>[]) =>
  db
    .insertInto('run_tcases')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['run_id', 'tcase_id']).doUpdateSet((eb) => ({
        status: eb.ref('excluded.status'),
        is_automated: eb.ref('excluded.is_automated'),
        version: eb.ref('excluded.version'),
        latest_result_id: eb.ref('excluded.latest_result_id'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    ),
);

/** One row that exists (the caller resolved it under the run lock): a plain update by the key. */
const updateOneState = prepareQuery(
  (
    db: Db,
    status: string,
    isAutomated: number,
    version: number | null,
    latestResultId: number | null,
    updatedAt: string,
    tenantId: string,
    runId: number,
    tcaseId: string,
  ) =>
    db
      .updateTable('run_tcases')
      .set({
        status,
        is_automated: isAutomated,
        version,
        latest_result_id: latestResultId,
        updated_at: updatedAt,
      })
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('tcase_id', '=', tcaseId),
);
