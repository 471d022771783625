export const insertPlan = async (db, row) => (await db.insertInto('plans').values(row).returning('id').executeTakeFirstOrThrow()).id;
/** D20: the plan holding `title` under the same milestone key (0 = no milestone). */
export const findPlanIdByTitle = async (db, tenantId, projectId, milestoneKey, title) => (await db
    .selectFrom('plans')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('milestone_key', '=', milestoneKey)
    .where('title', '=', title)
    .executeTakeFirst())?.id;
/*
 * Plans read their milestone's title and their runs' ids in the same query (a deliberate read-join, like
 * the runs list), so listing many plans stays a constant number of queries.
 */
const plansWithMilestones = (db, tenantId, projectId) => db
    .selectFrom('plans as p')
    .leftJoin('milestones as m', (j) => j.onRef('m.id', '=', 'p.milestone_id').on('m.tenant_id', '=', tenantId))
    .selectAll('p')
    .select('m.title as milestone_title')
    .where('p.tenant_id', '=', tenantId)
    .where('p.project_id', '=', projectId);
export const listPlans = (db, tenantId, projectId) => plansWithMilestones(db, tenantId, projectId).orderBy('p.id', 'desc').execute();
export const findPlan = (db, tenantId, projectId, id) => plansWithMilestones(db, tenantId, projectId).where('p.id', '=', id).executeTakeFirst();
export const listPlanRunIds = (db, tenantId, planIds) => planIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('runs')
        .select(['id', 'plan_id'])
        .where('tenant_id', '=', tenantId)
        .where('plan_id', 'in', planIds)
        .orderBy('id')
        .execute();
//# sourceMappingURL=plans.repository.js.map