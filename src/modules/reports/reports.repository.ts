import { sql } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { inFewIds } from '../../db/dialect.js';

/*
 * The reports' reads. A deliberate cross-module read (docs/architecture.md, "Which module owns which table"):
 * every report is one or a few statements that join `runs`, `run_tcases`, `results`, `result_links`, `result_steps`, `tcases`,
 * `folders`, `requirements`, `tcase_requirements`, `milestones`, `plans` and `users` directly, because asking
 * each owner's service would cost a statement per row. Reports only read; this file imports no other module.
 * Speed by design: run figures come from the runs' counters (`cnt_<status>`, `time_spent`), a run's cases carry
 * their latest status, and anything per result is bounded by the last N runs (`recentRuns`).
 */

const COUNTERS = [
  'cnt_open',
  'cnt_passed',
  'cnt_failed',
  'cnt_blocked',
  'cnt_skipped',
  'cnt_custom1',
  'cnt_custom2',
  'cnt_custom3',
  'cnt_custom4',
] as const;
export type CounterRow = Record<(typeof COUNTERS)[number], number | string>;

const runColumns = [
  'id',
  'title',
  'created_at',
  'closed_at',
  'plan_id',
  'milestone_id',
  'configuration_id',
  'time_spent',
  ...COUNTERS,
] as const;

export const findRun = (db: Db, tenantId: string, projectId: string, runId: number) =>
  db
    .selectFrom('runs')
    .select(runColumns)
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', runId)
    .executeTakeFirst();

export type ReportRunRow = NonNullable<Awaited<ReturnType<typeof findRun>>>;

/** The run of the same title in the newest plan older than `planId` (index runs_project_title_plan_idx). */
export const findSameTitleRunInEarlierPlan = (
  db: Db,
  tenantId: string,
  projectId: string,
  title: string,
  planId: number,
) =>
  db
    .selectFrom('runs')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('title', '=', title)
    .where('plan_id', '<', planId)
    .orderBy('plan_id', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

/** The newest run older than `runId` with the same milestone and configuration (both may be none). */
export const findEarlierComparableRun = (
  db: Db,
  tenantId: string,
  projectId: string,
  run: { id: number; milestone_id: number | null; configuration_id: string | null },
) => {
  let q = db
    .selectFrom('runs')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '<', run.id);
  q =
    run.milestone_id === null
      ? q.where('milestone_id', 'is', null)
      : q.where('milestone_id', '=', run.milestone_id);
  q =
    run.configuration_id === null
      ? q.where('configuration_id', 'is', null)
      : q.where('configuration_id', '=', run.configuration_id);
  return q.orderBy('id', 'desc').limit(1).executeTakeFirst();
};

/** Cases of a run per folder and status; the folder is the frozen one once the run is closed (D17). */
export const countRunCasesByFolder = (db: Db, tenantId: string, runId: number) =>
  db
    .selectFrom('run_tcases as rt')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .select((eb) => [
      eb.fn.coalesce('rt.frozen_folder_id', 't.folder_id').as('folder_id'),
      'rt.status',
      eb.fn.countAll<number | string>().as('n'),
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1)
    .groupBy([sql`1`, 'rt.status'])
    .execute();

/**
 * A run's cases with their latest result and its author (never an e-mail address): those in `statuses` (the
 * failures of the report), or all of them (its CSV: one row per case; an open case has no result).
 */
export const listRunCases = (db: Db, tenantId: string, runId: number, statuses?: readonly string[]) => {
  let query = db
    .selectFrom('run_tcases as rt')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .leftJoin('results as r', 'r.id', 'rt.latest_result_id')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'r.author_id').on('u.tenant_id', '=', tenantId))
    .select((eb) => [
      'rt.tcase_id',
      't.seq',
      't.title',
      eb.fn.coalesce('rt.frozen_folder_id', 't.folder_id').as('folder_id'),
      'rt.status',
      'r.id as result_id',
      'r.comment',
      'r.created_at',
      'r.time_taken',
      'r.author_id',
      'u.name as author_name',
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1);
  if (statuses) query = query.where('rt.status', 'in', statuses);
  return query.orderBy('t.seq').execute();
};

/** The links of the latest results of a run's cases (in `statuses`, when given). */
export const listRunCaseLinks = (db: Db, tenantId: string, runId: number, statuses?: readonly string[]) => {
  let query = db
    .selectFrom('run_tcases as rt')
    .innerJoin('result_links as l', 'l.result_id', 'rt.latest_result_id')
    .select(['l.result_id', 'l.text', 'l.url'])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1);
  if (statuses) query = query.where('rt.status', 'in', statuses);
  return query.orderBy('l.id').execute();
};

/** The step outcomes of the latest results of a run's cases (in `statuses`, when given), by result and position. */
export const listRunCaseSteps = (db: Db, tenantId: string, runId: number, statuses?: readonly string[]) => {
  let query = db
    .selectFrom('run_tcases as rt')
    .innerJoin('result_steps as s', 's.result_id', 'rt.latest_result_id')
    .select(['s.result_id', 's.position', 's.step_id', 's.status', 's.comment'])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1);
  if (statuses) query = query.where('rt.status', 'in', statuses);
  return query.orderBy('s.result_id').orderBy('s.position').execute();
};

/** Seq, title and status of a run's cases in `statuses` (for new failures and fixes). */
export const listRunStatuses = (db: Db, tenantId: string, runId: number, statuses: readonly string[]) =>
  db
    .selectFrom('run_tcases as rt')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .select(['rt.tcase_id', 't.seq', 't.title', 'rt.status'])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1)
    .where('rt.status', 'in', statuses)
    .execute();

/** Every folder of the project (deleted ones too: a closed run may still name them), to build whole paths. */
export const listFolders = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('folders')
    .select(['id', 'parent_id', 'title'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .execute();

/**
 * The last `last` runs of the project (optionally of one milestone / configuration), newest first: by `created_at`,
 * which may be backdated (extensions.md §7a), then id (index runs_project_created_idx).
 */
export const listLastRuns = (
  db: Db,
  tenantId: string,
  projectId: string,
  last: number,
  filter: { milestoneId?: number; configurationId?: string } = {},
) => {
  let q = db
    .selectFrom('runs')
    .select(runColumns)
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId);
  if (filter.milestoneId !== undefined) q = q.where('milestone_id', '=', filter.milestoneId);
  if (filter.configurationId !== undefined) q = q.where('configuration_id', '=', filter.configurationId);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(last).execute();
};

/** A run with any result (its counters other than open). */
const HAS_RESULTS = sql<boolean>`(cnt_passed + cnt_failed + cnt_blocked + cnt_skipped + cnt_custom1 + cnt_custom2 + cnt_custom3 + cnt_custom4) > 0`;

/**
 * The runs created on the last `last` UTC days that have any result (a day is the run's creation date: the
 * counters are per run), filtered like listLastRuns. Bounded by the project's runs, never by its results.
 */
export const listRunsOfLastDays = async (
  db: Db,
  tenantId: string,
  projectId: string,
  last: number,
  filter: { milestoneId?: number; configurationId?: string } = {},
) => {
  let base = db
    .selectFrom('runs')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where(HAS_RESULTS);
  if (filter.milestoneId !== undefined) base = base.where('milestone_id', '=', filter.milestoneId);
  if (filter.configurationId !== undefined)
    base = base.where('configuration_id', '=', filter.configurationId);
  // The last days, newest first, one index probe each (runs_project_created_idx): the newest run before the day
  // found last, rather than every run of the history grouped by day.
  const conditions = [
    sql`tenant_id = ${tenantId}`,
    sql`project_id = ${projectId}`,
    HAS_RESULTS,
    ...(filter.milestoneId !== undefined ? [sql`milestone_id = ${filter.milestoneId}`] : []),
    ...(filter.configurationId !== undefined ? [sql`configuration_id = ${filter.configurationId}`] : []),
  ];
  const where = sql.join(conditions, sql` and `);
  const days = (
    await sql<{ day: string }>`
      with recursive days (day, n) as (
        select (select substr(created_at, 1, 10) from runs where ${where} order by created_at desc limit 1), 1
        union all
        select (select substr(created_at, 1, 10) from runs where ${where} and created_at < days.day
                order by created_at desc limit 1), n + 1
        from days where days.day is not null and n < ${last})
      select day from days where day is not null order by day desc`.execute(db)
  ).rows;
  if (days.length === 0) return [];
  const oldest = days[days.length - 1].day;
  return base
    .select(runColumns)
    .where('created_at', '>=', oldest)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
};

/** The runs of one milestone or one plan, oldest first: by `created_at` (may be backdated), then id. */
export const listRunsOf = (
  db: Db,
  tenantId: string,
  projectId: string,
  of: 'milestone_id' | 'plan_id',
  id: number,
) =>
  db
    .selectFrom('runs')
    .select(runColumns)
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where(of, '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findMilestone = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('milestones')
    .select(['id', 'title', 'created_at', 'archived_at'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findPlan = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('plans')
    .select(['id', 'title', 'milestone_id', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * The ids of the project's last `last` runs: what every per-case report is bounded by. Last by `created_at`, which
 * may be backdated (extensions.md §7a), then id (index runs_project_created_idx).
 */
export const recentRuns = (db: Db, tenantId: string, projectId: string, last: number) =>
  db
    .selectFrom('runs')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(last);

/** The ids of the project's last `last` runs, as SQL (for the raw statements below). */
const recentRunsSql = (tenantId: string, projectId: string, last: number) =>
  sql`select id from runs where tenant_id = ${tenantId} and project_id = ${projectId}
      order by created_at desc, id desc limit ${last}`;

const FAILING_SQL = sql`('failed', 'blocked')`;

/**
 * The status of every case in each of the last `last` runs (the flaky report's sequences), read through the run
 * index: a row per run case, about 10,000 for 20 runs of 500; the flips are counted by the caller, which costs
 * less than the window functions the database would sort them with.
 */
export const listRecentRunStatuses = (db: Db, tenantId: string, projectId: string, last: number) =>
  db
    .selectFrom('run_tcases as rt')
    .innerJoin('runs as ru', 'ru.id', 'rt.run_id')
    .select([
      'rt.tcase_id',
      'rt.run_id',
      'rt.status',
      'ru.created_at as run_created_at',
      'ru.title as run_title',
      'ru.configuration_id',
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.in_run', '=', 1)
    .where(inFewIds(db, 'rt.run_id', recentRuns(db, tenantId, projectId, last)))
    .execute();

/**
 * Cases failing (failed, blocked) in any of the last `last` runs, with how many of those runs hold them and the
 * time of the latest result of their newest failing run; most failures first. Counted in the database, and only
 * the failing rows look up their result: the run cases of the last runs are read once, through the run index.
 */
export const listFailingTcases = async (
  db: Db,
  tenantId: string,
  projectId: string,
  last: number,
  limit: number,
) =>
  (
    await sql<{
      tcase_id: string;
      seq: number;
      title: string;
      failures: number | string;
      runs: number | string;
      last_failed_at: string;
    }>`
    with held as (
      select rt.tcase_id, rt.status, rt.latest_result_id from run_tcases rt
      where rt.tenant_id = ${tenantId} and rt.in_run = 1
        and ${inFewIds(db, 'rt.run_id', recentRunsSql(tenantId, projectId, last))}),
    failing as (
      select tcase_id, sum(case when status in ${FAILING_SQL} then 1 else 0 end) as failures, count(*) as runs
      from held group by tcase_id
      having sum(case when status in ${FAILING_SQL} then 1 else 0 end) > 0),
    failed_at as (
      select h.tcase_id, max(r.created_at) as last_failed_at
      from held h join results r on r.id = h.latest_result_id
      where h.status in ${FAILING_SQL}
      group by h.tcase_id)
    select f.tcase_id, t.seq, t.title, f.failures, f.runs, a.last_failed_at
    from failing f
      join tcases t on t.id = f.tcase_id
      left join failed_at a on a.tcase_id = f.tcase_id
    order by f.failures desc, a.last_failed_at desc, t.seq
    limit ${limit}`.execute(db)
  ).rows;

/**
 * Every timed result of the last `last` runs, by case id only (index results_run_tcase_idx by run); the few cases
 * the report shows get their seq and title from listTcaseNames, rather than every result joining its case.
 */
export const listRecentTimes = (db: Db, tenantId: string, projectId: string, last: number) =>
  db
    .selectFrom('results as r')
    .select(['r.tcase_id', 'r.time_taken'])
    .where('r.tenant_id', '=', tenantId)
    .where(inFewIds(db, 'r.run_id', recentRuns(db, tenantId, projectId, last)))
    .where('r.time_taken', 'is not', null)
    .execute();

/** Seq and title of the given cases (a report's shown ones: at most its limit). */
export const listTcaseNames = (db: Db, tenantId: string, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('tcases')
        .select(['id', 'seq', 'title'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids)
        .execute();

/**
 * Every link of the results of the last `last` runs, oldest result first: read by run (index
 * result_links_run_idx, migration 0020), never through all the history's results or links.
 */
export const listRecentLinks = (db: Db, tenantId: string, projectId: string, last: number) =>
  db
    .selectFrom('result_links as l')
    .innerJoin('results as r', 'r.id', 'l.result_id')
    .innerJoin('tcases as t', 't.id', 'r.tcase_id')
    .select(['l.url', 'l.text', 't.seq', 'l.run_id', 'r.created_at', 'r.id as result_id'])
    .where('l.tenant_id', '=', tenantId)
    .where(inFewIds(db, 'l.run_id', recentRuns(db, tenantId, projectId, last)))
    .orderBy('r.id')
    .orderBy('l.id')
    .execute();

export const listRequirements = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('requirements')
    .select(['id', 'text', 'url'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .orderBy('text')
    .orderBy('id')
    .execute();

/**
 * The live test cases covering the project's requirements, each with its newest recorded status (the newest
 * run holding it whose status is not open; index run_tcases_tcase_run_idx), 'open' when it has none.
 */
export const listCoveringTcases = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('tcase_requirements as tr')
    .innerJoin('requirements as q', 'q.id', 'tr.requirement_id')
    .innerJoin('tcases as t', 't.id', 'tr.tcase_id')
    .select((eb) => [
      'tr.requirement_id',
      't.id as tcase_id',
      't.seq',
      't.title',
      eb
        .selectFrom('run_tcases as rt')
        .select('rt.status')
        .where('rt.tenant_id', '=', tenantId)
        .whereRef('rt.tcase_id', '=', 't.id')
        .where('rt.status', '<>', 'open')
        .orderBy('rt.run_id', 'desc')
        .limit(1)
        .as('last_status'),
    ])
    .where('q.tenant_id', '=', tenantId)
    .where('q.project_id', '=', projectId)
    .where('t.deleted_at', 'is', null)
    .orderBy('t.seq')
    .execute();

/** Live, published, runnable (not template) cases of the project that cover no requirement. */
export const countUncoveredTcases = async (db: Db, tenantId: string, projectId: string) => {
  const row = await db
    .selectFrom('tcases as t')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('t.tenant_id', '=', tenantId)
    .where('t.project_id', '=', projectId)
    .where('t.deleted_at', 'is', null)
    .where('t.is_draft', '=', 0)
    .where('t.type', '<>', 'template')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('tcase_requirements as tr')
            .select('tr.tcase_id')
            .whereRef('tr.tcase_id', '=', 't.id'),
        ),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
};
