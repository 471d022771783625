import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { forUpdate } from '../../db/dialect.js';
import type { PlansTable } from '../../db/tables/execution.js';

export const insertPlan = async (db: Db, row: Insertable<PlansTable>) =>
  (await db.insertInto('plans').values(row).returning('id').executeTakeFirstOrThrow()).id;

/** D20: the plan holding `title` under the same milestone key (0 = no milestone). */
export const findPlanIdByTitle = async (
  db: Db,
  tenantId: string,
  projectId: string,
  milestoneKey: number,
  title: string,
) =>
  (
    await db
      .selectFrom('plans')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('milestone_key', '=', milestoneKey)
      .where('title', '=', title)
      .executeTakeFirst()
  )?.id;

/*
 * Plans read their milestone's title and their runs' ids in the same query (a deliberate read-join, like
 * the runs list), so listing many plans stays a constant number of queries.
 */
const plansWithMilestones = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('plans as p')
    .leftJoin('milestones as m', (j) =>
      j.onRef('m.id', '=', 'p.milestone_id').on('m.tenant_id', '=', tenantId),
    )
    .selectAll('p')
    .select('m.title as milestone_title')
    .where('p.tenant_id', '=', tenantId)
    .where('p.project_id', '=', projectId);

export const listPlans = (db: Db, tenantId: string, projectId: string) =>
  plansWithMilestones(db, tenantId, projectId).orderBy('p.id', 'desc').execute();

export const findPlan = (db: Db, tenantId: string, projectId: string, id: number) =>
  plansWithMilestones(db, tenantId, projectId).where('p.id', '=', id).executeTakeFirst();

export type PlanRow = NonNullable<Awaited<ReturnType<typeof findPlan>>>;

export const listPlanRunIds = (db: Db, tenantId: string, planIds: number[]) =>
  planIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('runs')
        .select(['id', 'plan_id'])
        .where('tenant_id', '=', tenantId)
        .where('plan_id', 'in', planIds)
        .orderBy('id')
        .execute();

/**
 * The plan's row, locked until the transaction ends (PostgreSQL FOR UPDATE; SQLite's transaction holds the write
 * lock already): every change of a plan (edit, runs added, closing) takes it first, so a plan closed meanwhile is
 * seen closed and two changes never interleave. Taken before any run's lock.
 */
export const lockPlan = (db: Db, tenantId: string, projectId: string, id: number) =>
  forUpdate(
    db,
    db
      .selectFrom('plans')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('id', '=', id),
  ).executeTakeFirst();

export const updatePlan = (
  db: Db,
  tenantId: string,
  id: number,
  values: Pick<
    Updateable<PlansTable>,
    'title' | 'description' | 'milestone_id' | 'milestone_key' | 'updated_at' | 'closed_at' | 'closed_by'
  >,
) => db.updateTable('plans').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
