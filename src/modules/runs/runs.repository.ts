import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { prepareQuery } from '../../db/prepared.js';
import type { RunsTable } from '../../db/tables/execution.js';
import {
  containsInsensitive,
  forUpdate,
  selectJsonArray,
  type JsonBody,
  tableIndexedBy,
  type JsonField,
} from '../../db/dialect.js';

/*
 * Read-joins across modules are deliberate here (contracts.md): a run lists 1,000 runs with their related
 * objects, and 10,000 test cases with their shown version, each in ONE query. Going through the other
 * modules' services would turn those into one query per row. Only reads; writes to other modules' tables
 * never happen here.
 */

/** Rows per multi-row INSERT: 8 columns × 1,000 rows stays below both databases' parameter limits. */
const CHUNK = 1000;
const chunks = <T>(items: T[], size = CHUNK): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

export const COUNTED_STATUSES = [
  'open',
  'passed',
  'failed',
  'blocked',
  'skipped',
  'custom1',
  'custom2',
  'custom3',
  'custom4',
] as const;
export type CountedStatus = (typeof COUNTED_STATUSES)[number];

// ---- runs ----

export const findRun = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('runs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The few columns writers and readers of a run's cases need: a run's query_plans may list thousands of ids. */
export const findRunInfo = (db: Db, tenantId: string, projectId: string, id: number) =>
  runInfo.executeTakeFirst(db, tenantId, projectId, id);

// Every write of a result starts here: prepared (db/prepared.ts).
const runInfo = prepareQuery((db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('runs')
    .select(['id', 'project_id', 'type', 'title', 'plan_id', 'closed_at'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id),
);

/** findRunInfo locking the run's row for the rest of the transaction (a group of results writes into it). */
export const findRunInfoForWrite = (db: Db, tenantId: string, projectId: string, id: number) =>
  runInfoForWrite.executeTakeFirst(db, tenantId, projectId, id);

const runInfoForWrite = prepareQuery((db: Db, tenantId: string, projectId: string, id: number) =>
  forUpdate(
    db,
    db
      .selectFrom('runs')
      .select(['id', 'project_id', 'type', 'title', 'plan_id', 'closed_at'])
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('id', '=', id),
  ),
);

/** D10: the run holding `title` under the same plan key (0 = outside plans). */
export const findRunIdByTitle = async (
  db: Db,
  tenantId: string,
  projectId: string,
  planKey: number,
  title: string,
) =>
  (
    await db
      .selectFrom('runs')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('plan_key', '=', planKey)
      .where('title', '=', title)
      .executeTakeFirst()
  )?.id;

export const insertRun = async (db: Db, row: Insertable<RunsTable>) =>
  (await db.insertInto('runs').values(row).returning('id').executeTakeFirstOrThrow()).id;

/**
 * Touches the run row first thing in a transaction that changes its test cases: on PostgreSQL the row
 * lock orders us after concurrent result writers, so the recount that follows sees their rows.
 * Returns false when the run is closed (nothing was touched).
 */
export const lockOpenRun = async (db: Db, tenantId: string, runId: number, now: string) =>
  (await lockRun.executeCount(db, now, tenantId, runId)) === 1;

// Prepared (db/prepared.ts): propagation takes it for every open live run a changed case touches.
const lockRun = prepareQuery((db: Db, now: string, tenantId: string, runId: number) =>
  db
    .updateTable('runs')
    .set({ updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', runId)
    .where('closed_at', 'is', null),
);

/** Recomputes the status counters of the runs from their in-run test cases (creation, add/remove, D17 moves). */
export const recountRuns = async (db: Db, tenantId: string, runIds: number[]) => {
  if (runIds.length === 0) return;
  const count = (status: string) =>
    sql<number>`(select count(*) from run_tcases rt where rt.run_id = runs.id and rt.in_run = 1 and rt.status = ${status})`;
  await db
    .updateTable('runs')
    .set({
      // Only membership changes recount (add/remove): the run page reloads its list when this moves (changes.*).
      membership_version: sql<number>`membership_version + 1`,
      cnt_open: count('open'),
      cnt_passed: count('passed'),
      cnt_failed: count('failed'),
      cnt_blocked: count('blocked'),
      cnt_skipped: count('skipped'),
      cnt_custom1: count('custom1'),
      cnt_custom2: count('custom2'),
      cnt_custom3: count('custom3'),
      cnt_custom4: count('custom4'),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', runIds)
    .execute();
};

/** Closes the run if it is open; false when it was closed already (a concurrent close lost). */
export const markClosed = async (db: Db, tenantId: string, runId: number, userId: number, now: string) =>
  Number(
    (
      await db
        .updateTable('runs')
        .set({ closed_at: now, closed_by: userId, updated_at: now })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', runId)
        .where('closed_at', 'is', null)
        .executeTakeFirst()
    ).numUpdatedRows,
  ) === 1;

export interface ListRunsFilter {
  closed?: boolean;
  milestoneIds?: number[];
  limit?: number;
  planId?: number;
}

/** Runs of a project with their related objects, in one query whatever the number of runs. */
export const listRuns = (db: Db, tenantId: string, projectId: string, filter: ListRunsFilter) => {
  let q = db
    .selectFrom('runs as r')
    .leftJoin('plans as p', (j) => j.onRef('p.id', '=', 'r.plan_id').on('p.tenant_id', '=', tenantId))
    .leftJoin('milestones as m', (j) =>
      j.onRef('m.id', '=', 'r.milestone_id').on('m.tenant_id', '=', tenantId),
    )
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'r.assignment_id').on('u.tenant_id', '=', tenantId))
    .leftJoin('configurations as c', (j) =>
      j.onRef('c.id', '=', 'r.configuration_id').on('c.tenant_id', '=', tenantId),
    )
    .selectAll('r')
    .select([
      'p.title as plan_title',
      'm.title as milestone_title',
      'u.email as assignee_email',
      'u.name as assignee_name',
      'u.avatar as assignee_avatar',
      'u.role as assignee_role',
      'c.title as configuration_title',
      'c.created_at as configuration_created_at',
      'c.updated_at as configuration_updated_at',
    ])
    .where('r.tenant_id', '=', tenantId)
    .where('r.project_id', '=', projectId);
  if (filter.closed === true) q = q.where('r.closed_at', 'is not', null);
  if (filter.closed === false) q = q.where('r.closed_at', 'is', null);
  if (filter.milestoneIds && filter.milestoneIds.length > 0)
    q = q.where('r.milestone_id', 'in', filter.milestoneIds);
  if (filter.planId !== undefined) q = q.where('r.plan_id', '=', filter.planId);
  q = q.orderBy('r.id', filter.planId !== undefined ? 'asc' : 'desc');
  if (filter.limit !== undefined) q = q.limit(filter.limit);
  return q.execute();
};
export type RunWithRelationsRow = Awaited<ReturnType<typeof listRuns>>[number];

/** Open live runs of a project (D17: they follow their query plans). */
export const listOpenLiveRuns = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('runs')
    .select(['id', 'query_plans'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('type', '=', 'live')
    .where('closed_at', 'is', null)
    // One lock order for every writer, so two transactions touching the same runs cannot deadlock.
    .orderBy('id')
    .execute();

// ---- run test cases ----

/** Adds test cases to a run, open and following their latest version (static runs pin right after). */
export const insertRunTcases = async (
  db: Db,
  tenantId: string,
  runId: number,
  tcaseIds: string[],
  now: string,
) => {
  for (const part of chunks(tcaseIds)) {
    await db
      .insertInto('run_tcases')
      .values(
        part.map((tcaseId) => ({
          tenant_id: tenantId,
          run_id: runId,
          tcase_id: tcaseId,
          status: 'open',
          is_automated: 0,
          version: null,
          in_run: 1,
          updated_at: now,
        })),
      )
      // A concurrent propagation may have added the same case a moment ago: the row exists, that is enough.
      .onConflict((oc) => oc.columns(['run_id', 'tcase_id']).doNothing())
      .execute();
  }
};

/** D17: a static run shows the version each case had when it was created. */
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

/** Membership rows of these cases in the run (in it or not any more). */
export const listRunTcaseMembership = async (db: Db, tenantId: string, runId: number, tcaseIds: string[]) => {
  const out: { tcase_id: string; in_run: number }[] = [];
  for (const part of chunks(tcaseIds)) {
    out.push(
      ...(await db
        .selectFrom('run_tcases')
        .select(['tcase_id', 'in_run'])
        .where('tenant_id', '=', tenantId)
        .where('run_id', '=', runId)
        .where('tcase_id', 'in', part)
        .execute()),
    );
  }
  return out;
};

/** Membership rows of these cases in any of these runs: propagation asks once for every open live run. */
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
 * setInRun for propagation (the run lock is held): changes only rows not yet in the wanted state and answers
 * their statuses, so the run's counters move by exactly what changed.
 */
export const moveInRunReturningStatus = async (
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

/**
 * Locks the open runs among `runIds` for the rest of the transaction, in id order (the order every writer of
 * several runs uses, so none deadlock), and answers their ids: runs closed meanwhile are left out.
 */
export const lockOpenRuns = async (db: Db, tenantId: string, runIds: number[]): Promise<number[]> => {
  const out: number[] = [];
  for (const part of chunks(
    [...runIds].sort((a, b) => a - b),
    500,
  )) {
    const q = db
      .selectFrom('runs')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', part)
      .where('closed_at', 'is', null)
      .orderBy('id');
    for (const row of await forUpdate(db, q).execute()) out.push(row.id);
  }
  return out;
};

/**
 * Adds cases to open runs (their locks are held), many runs in one statement, and answers per run how many
 * rows it really inserted: a row a concurrent propagation added a moment ago is not counted twice.
 */
export const insertOpenRunTcasesInRuns = async (
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

/**
 * Sets updated_at of these runs (their locks are held) and moves each run's status counters by its deltas
 * (increments: they compose with other writers), all runs in one statement.
 */
export const touchRunsAddingCounters = async (
  db: Db,
  tenantId: string,
  deltas: Map<number, Partial<Record<CountedStatus, number>>>,
  now: string,
): Promise<void> => {
  for (const part of chunks([...deltas.keys()], 500)) {
    // Propagation moved cases in or out: the run page reloads its list when membership_version moves.
    const set: Record<string, unknown> = {
      updated_at: now,
      membership_version: sql<number>`membership_version + 1`,
    };
    for (const status of COUNTED_STATUSES) {
      const moved = part.filter((id) => (deltas.get(id)![status] ?? 0) !== 0);
      if (moved.length === 0) continue;
      const cases = sql.join(
        moved.map((id) => sql`when ${id} then ${deltas.get(id)![status]!}`),
        sql` `,
      );
      const column = `cnt_${status}`;
      set[column] = sql<number>`${sql.ref(column)} + (case ${sql.ref('id')} ${cases} else 0 end)`;
    }
    await db
      .updateTable('runs')
      .set(set as Updateable<RunsTable>)
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', part)
      .execute();
  }
};

/**
 * Moves cases in or out of a run. A case that leaves keeps its row, status and results (D17), so when it
 * comes back it shows the status of its latest result again (D18).
 */
export const setInRun = async (
  db: Db,
  tenantId: string,
  runId: number,
  tcaseIds: string[],
  inRun: 0 | 1,
  now: string,
) => {
  for (const part of chunks(tcaseIds)) {
    await db
      .updateTable('run_tcases')
      .set({ in_run: inRun, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('tcase_id', 'in', part)
      .execute();
  }
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

/** Kind of the named test cases of a project, to explain why they cannot join a run. */
export const listTcaseKinds = async (db: Db, tenantId: string, projectId: string, ids: string[]) => {
  const out: { id: string; type: string; is_draft: number; deleted_at: string | null }[] = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await db
        .selectFrom('tcases')
        .select(['id', 'type', 'is_draft', 'deleted_at'])
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('id', 'in', part)
        .execute()),
    );
  }
  return out;
};

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
  const seq = /^\d+$/.test(ref) ? Number(ref) : undefined;
  return seq !== undefined && Number.isSafeInteger(seq)
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
        .select([
          'rt.tcase_id',
          'rt.status',
          'rt.is_automated',
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

export interface RunTcaseListFilter {
  search?: string;
  priorities?: string[];
  /** Needed to filter by tags and custom fields of the shown version. */
  withVersionData: boolean;
  sort?: { column: 'title' | 'created_at'; order: 'asc' | 'desc' };
  /** Only when no filter runs after the query. */
  limit?: number;
}

/**
 * THE hot path: the cases of a run with the version each one shows (pinned, or the latest while open),
 * folder and position (frozen once closed, else live) — one query over run_tcases → tcases →
 * tcase_versions. (Folders for `include=folder` come from the folders service afterwards: a run spans
 * few folders, and joining them to every row costs more than one small extra query.)
 */
/**
 * The run's cases as the run shows them, in the list's order (sort field first when asked, then folder,
 * position and seq): ONE query over run_tcases, tcases and the shown version (the list index, which holds
 * what a list shows of a version). Also selects the sort keys as s1..s5 for selectJsonArray.
 */
const runTcasesQuery = (db: Db, tenantId: string, runId: number, filter: RunTcaseListFilter) => {
  const versions = tableIndexedBy(
    db,
    'tcase_versions',
    'v',
    'tcase_versions_list_idx',
  ) as unknown as 'tcase_versions as v';
  let q = db
    .selectFrom('run_tcases as rt')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .innerJoin(versions, (j) =>
      j
        .onRef('v.tcase_id', '=', 'rt.tcase_id')
        .on('v.version', '=', sql<number>`coalesce(rt.version, t.version)`),
    )
    .select([
      't.id',
      'v.version',
      't.legacy_id',
      't.type',
      sql<number>`coalesce(rt.frozen_folder_id, t.folder_id)`.as('folder_id'),
      sql<number>`coalesce(rt.frozen_pos, t.pos)`.as('pos'),
      't.seq',
      'v.title',
      'v.priority',
      'rt.status',
      'rt.is_automated',
      'v.is_empty',
      't.template_id',
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1);
  if (filter.search) q = q.where(containsInsensitive('v.title', filter.search));
  if (filter.priorities && filter.priorities.length > 0) q = q.where('v.priority', 'in', filter.priorities);
  // Titles sort case-insensitively, so both databases agree whatever their collation.
  const keys: { expr: ReturnType<typeof sql<unknown>>; desc: boolean }[] = [];
  if (filter.sort?.column === 'title') {
    keys.push({ expr: sql`lower(v.title)`, desc: filter.sort.order === 'desc' });
    keys.push({ expr: sql`v.title`, desc: filter.sort.order === 'desc' });
  }
  if (filter.sort?.column === 'created_at') {
    keys.push({ expr: sql`t.created_at`, desc: filter.sort.order === 'desc' });
  }
  keys.push({ expr: sql`coalesce(rt.frozen_folder_id, t.folder_id)`, desc: false });
  keys.push({ expr: sql`coalesce(rt.frozen_pos, t.pos)`, desc: false });
  keys.push({ expr: sql`t.seq`, desc: false });
  return { q, keys };
};

export const listRunTcases = (db: Db, tenantId: string, runId: number, filter: RunTcaseListFilter) => {
  const { q, keys } = runTcasesQuery(db, tenantId, runId, filter);
  let ordered = q;
  for (const k of keys) ordered = ordered.orderBy(k.expr, k.desc ? 'desc' : 'asc');
  return ordered
    .$if(filter.limit !== undefined, (qb) => qb.limit(filter.limit!))
    .$if(filter.withVersionData, (qb) => qb.select(['v.tag_ids', 'v.custom_fields']))
    .execute();
};

/**
 * listRunTcases as the JSON of the response body `{"tcases": [...]}`, built by the database (selectJsonArray): for a
 * run of 10,000 or 50,000 cases this is a fraction of the time and memory of row objects mapped and
 * serialised in Node. The same query, the same order, the same items (runs.test.ts compares both).
 */
export const listRunTcasesJson = async (
  db: Db,
  tenantId: string,
  runId: number,
  filter: Omit<RunTcaseListFilter, 'withVersionData'>,
): Promise<JsonBody> => {
  const { q, keys } = runTcasesQuery(db, tenantId, runId, { ...filter, withVersionData: false });
  const rows = q.select(keys.map((k, i) => k.expr.as(`s${i + 1}`)));
  const order = keys.map((k, i) => ({ column: `s${i + 1}`, desc: k.desc }));
  return selectJsonArray(db, rows, RUN_TCASE_JSON_FIELDS, order, { limit: filter.limit, wrapIn: 'tcases' });
};

/** The keys of a run list item (runs.schemas.ts RunTcaseListItem) and the columns they come from. */
const RUN_TCASE_JSON_FIELDS: JsonField[] = [
  { key: 'id', column: 'id', type: 'token' },
  { key: 'version', column: 'version', type: 'integer' },
  { key: 'legacyId', column: 'legacy_id', type: 'text' },
  { key: 'type', column: 'type', type: 'token' },
  { key: 'folderId', column: 'folder_id', type: 'integer' },
  { key: 'pos', column: 'pos', type: 'integer' },
  { key: 'seq', column: 'seq', type: 'integer' },
  { key: 'title', column: 'title', type: 'text' },
  { key: 'priority', column: 'priority', type: 'token' },
  { key: 'status', column: 'status', type: 'token' },
  { key: 'isAutomated', column: 'is_automated', type: 'boolean' },
  { key: 'isEmpty', column: 'is_empty', type: 'boolean' },
  { key: 'templateTCaseId', column: 'template_id', type: 'token', optional: true },
];

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

// ---- counts for tests and benchmarks ----

export const countRunTcases = async (db: Db, tenantId: string, runId: number) =>
  Number(
    (
      await db
        .selectFrom('run_tcases')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('run_id', '=', runId)
        .where('in_run', '=', 1)
        .executeTakeFirstOrThrow()
    ).n,
  );
