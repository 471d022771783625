import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { forUpdate } from '../../db/dialect.js';
import { prepareQuery } from '../../db/prepared.js';
import type { RunsTable } from '../../db/tables/execution.js';
import { chunks } from '../../lib/chunks.js';
import { STATUS_IDS, type StatusCounts } from '../../lib/statuses.js';

/*
 * The `runs` table. The run row is the lock of every write into a run's state (its test cases, results and
 * counters): lockRunForWrite / lockOpenRuns are the one way to take it, and addToRunCounters is the one writer of
 * its status counters. The run list joins the tables of its relations (plans, milestones, users, configurations)
 * in one query, a read kept for speed (docs/architecture.md).
 */

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

const runInfoQuery = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('runs')
    .select(['id', 'project_id', 'type', 'title', 'plan_id', 'closed_at', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id);

// Every write of a result starts here: prepared (db/prepared.ts).
const runInfo = prepareQuery(runInfoQuery);

/**
 * THE lock of a write into a run (results, its test cases, its counters): the run's row, locked for the rest of
 * the transaction (PostgreSQL: SELECT ... FOR NO KEY UPDATE; SQLite: the transaction holds the write lock
 * already), read with the columns a writer needs. The caller answers 409 when `closed_at` is set. Every writer of
 * a run's state takes it first, so concurrent writers are serialised and their counter moves never get lost;
 * writers of several runs take them in id order (lockOpenRuns), so none wait in a cycle.
 */
export const lockRunForWrite = (db: Db, tenantId: string, projectId: string, id: number) =>
  runInfoForWrite.executeTakeFirst(db, tenantId, projectId, id);

const runInfoForWrite = prepareQuery((db: Db, tenantId: string, projectId: string, id: number) =>
  forUpdate(db, runInfoQuery(db, tenantId, projectId, id)),
);

/** lockRunForWrite for several runs (propagation), in id order: answers the ids of those still open. */
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

/** Closes the run (its lock is held and it was open). */
export const markClosed = (db: Db, tenantId: string, runId: number, userId: number, now: string) =>
  db
    .updateTable('runs')
    .set({ closed_at: now, closed_by: userId, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', runId)
    .execute();

/** A test plan's runs, few columns, in id order (closing a plan; moving it to another milestone). */
export const listPlanRunTitles = (db: Db, tenantId: string, projectId: string, planId: number) =>
  db
    .selectFrom('runs')
    .select(['id', 'title', 'milestone_id', 'assignment_id'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('plan_id', '=', planId)
    .orderBy('id')
    .execute();

/** Files every run of a plan under a milestone (or none). */
export const setPlanRunsMilestone = (
  db: Db,
  tenantId: string,
  planId: number,
  milestoneId: number | null,
  now: string,
) =>
  db
    .updateTable('runs')
    .set({ milestone_id: milestoneId, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('plan_id', '=', planId)
    .execute();

export interface ListRunsFilter {
  closed?: boolean;
  milestoneIds?: number[];
  limit?: number;
  planId?: number;
  /** One run: what the run page reads, without listing every run of the project. */
  id?: number;
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
  if (filter.id !== undefined) q = q.where('r.id', '=', filter.id);
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

/** What a write moves in one run: its status counters, and the time its results took (ms; null when none said). */
export interface CounterMove {
  counts: StatusCounts;
  timeSpent?: number | null;
  /** Cases joined or left the run: membership_version moves, so an open run page reloads its list (changes.*). */
  membershipChanged?: boolean;
}

/** A new run's counters: every case open. */
export const initialCounters = (open: number) =>
  Object.fromEntries(STATUS_IDS.map((s) => [`cnt_${s}`, s === 'open' ? open : 0])) as Record<
    `cnt_${(typeof STATUS_IDS)[number]}`,
    number
  >;

/**
 * THE writer of the run counters (their locks are held): sets updated_at, adds each run's status moves to its
 * counters and its results' time to timeSpent. Increments, so they compose with other writers; one run (a result,
 * a batch, cases added or removed) is one prepared statement, several runs (propagation) one statement per 500.
 */
export async function addToRunCounters(
  db: Db,
  tenantId: string,
  moves: Map<number, CounterMove>,
  now: string,
): Promise<void> {
  if (moves.size === 1) {
    const [[runId, move]] = [...moves];
    const d = STATUS_IDS.map((s) => move.counts[s] ?? 0);
    const time = move.timeSpent ?? null;
    await addToOneRun.execute(
      db,
      now,
      time === null ? 0 : 1,
      time ?? 0,
      move.membershipChanged ? 1 : 0,
      tenantId,
      runId,
      d[0],
      d[1],
      d[2],
      d[3],
      d[4],
      d[5],
      d[6],
      d[7],
      d[8],
    );
    return;
  }
  for (const part of chunks([...moves.keys()], 500)) {
    const set: Record<string, unknown> = { updated_at: now };
    const byRun = (value: (m: CounterMove) => number | null | undefined) => {
      const cases = part.flatMap((id) => {
        const v = value(moves.get(id)!);
        return v ? [sql`when ${id} then ${v}`] : [];
      });
      return cases.length === 0
        ? undefined
        : sql`(case ${sql.ref('id')} ${sql.join(cases, sql` `)} else 0 end)`;
    };
    for (const status of STATUS_IDS) {
      const add = byRun((m) => m.counts[status]);
      const column = `cnt_${status}`;
      if (add) set[column] = sql<number>`${sql.ref(column)} + ${add}`;
    }
    const time = byRun((m) => m.timeSpent);
    if (time) set.time_spent = sql<number>`coalesce(time_spent, 0) + ${time}`;
    const membership = byRun((m) => (m.membershipChanged ? 1 : 0));
    if (membership) set.membership_version = sql<number>`membership_version + ${membership}`;
    await db.updateTable('runs').set(set).where('tenant_id', '=', tenantId).where('id', 'in', part).execute();
  }
}

/** One run's counters: d0..d8 are the moves of STATUS_IDS, in its order (a prepared statement has fixed arity). */
const addToOneRun = prepareQuery(
  (
    db: Db,
    now: string,
    hasTime: number,
    timeSpent: number,
    membershipMoved: number,
    tenantId: string,
    runId: number,
    d0: number,
    d1: number,
    d2: number,
    d3: number,
    d4: number,
    d5: number,
    d6: number,
    d7: number,
    d8: number,
  ) => {
    const d = [d0, d1, d2, d3, d4, d5, d6, d7, d8];
    return db
      .updateTable('runs')
      .set({
        updated_at: now,
        // Stays null until a result says how long it took.
        time_spent: sql<number>`case when ${hasTime} = 1 then coalesce(time_spent, 0) + ${timeSpent} else time_spent end`,
        membership_version: sql<number>`membership_version + ${membershipMoved}`,
        ...Object.fromEntries(
          STATUS_IDS.map((s, i) => [`cnt_${s}`, sql<number>`${sql.ref(`cnt_${s}`)} + ${d[i]}`]),
        ),
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', runId);
  },
);
