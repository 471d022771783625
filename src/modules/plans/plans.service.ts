import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../auth/actor.js';
import { conflict, notFound, type ErrorDetail, validationFailed } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { nowIso } from '../../lib/time.js';
import { assertMilestoneUsable } from '../milestones/milestones.service.js';
import { resolveProject } from '../projects/projects.service.js';
import {
  checkTitleAndDescription,
  insertPreparedRun,
  prepareRun,
  type PreparedRun,
} from '../runs/run-creation.service.js';
import { listPlanRuns } from '../runs/runs.service.js';
import * as repo from './plans.repository.js';
import { PLAN_TITLE_MAX, type CreatePlanBody, type Plan, type PlanWithRuns } from './plans.schemas.js';
import { enqueueEvent } from '../webhooks/webhook-events.service.js';

function toPlan(row: repo.PlanRow, runIds: number[]): Plan {
  const plan: Plan = {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    description: row.description,
    runIds,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  // docs/api-decisions.md#response-shapes: an optional scalar is left out rather than null.
  if (row.milestone_id !== null) {
    plan.milestoneId = row.milestone_id;
    if (row.milestone_title !== null) plan.milestone = { id: row.milestone_id, title: row.milestone_title };
  }
  return plan;
}

async function planTitleConflict(
  db: Db,
  tenantId: string,
  projectId: string,
  milestoneId: number | null,
  title: string,
) {
  const id = await repo.findPlanIdByTitle(db, tenantId, projectId, milestoneId ?? 0, title);
  const where = milestoneId === null ? 'among the plans without a milestone' : `in milestone ${milestoneId}`;
  return conflict(`a test plan titled "${title}" exists ${where}; conflicting plan id: ${id ?? 'unknown'}`);
}

/**
 * D20: creates a plan and all its runs in one transaction. Plan titles are unique within their milestone or
 * among plans without one (409); runs take exactly one query plan of `tcaseIds`, type static (default) or
 * static_struct (live is a 400), run titles unique within the plan (409, D10); every run gets the plan's milestone.
 */
export async function createPlan(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreatePlanBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const errors: ErrorDetail[] = [];
  const title = input.title.trim();
  if (title.length === 0 || title.length > PLAN_TITLE_MAX) {
    errors.push({ path: '/title', message: `plan title must be 1-${PLAN_TITLE_MAX} characters` });
  }
  if (input.runs.length === 0) errors.push({ path: '/runs', message: 'a test plan needs at least one run' });
  const seen = new Map<string, number>();
  let clash: { title: string; first: number; second: number } | undefined;
  input.runs.forEach((run, i) => {
    const path = `/runs/${i}`;
    const { title: runTitle } = checkTitleAndDescription(run.title, run.description, path, errors);
    if (run.type === 'live')
      errors.push({ path: `${path}/type`, message: 'runs of a test plan cannot be live (D20)' });
    if (run.queryPlans.length !== 1) {
      errors.push({
        path: `${path}/queryPlans`,
        message: 'a run of a test plan takes exactly one query plan',
      });
    }
    const first = seen.get(runTitle);
    if (first === undefined) seen.set(runTitle, i);
    else clash ??= { title: runTitle, first, second: i };
  });
  if (errors.length) throw validationFailed(errors);
  if (input.milestoneId !== undefined)
    await assertMilestoneUsable(db, actor.tenantId, project.id, input.milestoneId);
  const milestoneId = input.milestoneId ?? null;
  const prepared: PreparedRun[] = [];
  for (const [i, run] of input.runs.entries()) {
    const ready = await prepareRun(
      db,
      actor.tenantId,
      project.id,
      {
        title: run.title,
        description: run.description,
        type: run.type === 'static_struct' ? 'static_struct' : 'static',
        assignmentId: run.assignmentId,
        configurationId: run.configurationId,
        queryPlans: run.queryPlans,
      },
      `/runs/${i}`,
    );
    prepared.push({ ...ready, milestoneId });
  }
  // D10: titles are unique within a plan, so two runs of one title are a conflict (409), checked once the body
  // is otherwise valid; no run exists yet, so the message names both by their index in the request.
  if (clash) {
    throw conflict(
      `runs/${clash.first} and runs/${clash.second} are both titled "${clash.title}"; run titles are unique within a test plan`,
    );
  }
  if ((await repo.findPlanIdByTitle(db, actor.tenantId, project.id, milestoneId ?? 0, title)) !== undefined) {
    throw await planTitleConflict(db, actor.tenantId, project.id, milestoneId, title);
  }
  try {
    const id = await db.transaction().execute(async (trx) => {
      const now = nowIso();
      const planId = await repo.insertPlan(trx, {
        tenant_id: actor.tenantId,
        project_id: project.id,
        title,
        description: sanitizeHtmlField(input.description ?? ''),
        milestone_id: milestoneId,
        milestone_key: milestoneId ?? 0,
        created_by: actor.userId,
        created_at: now,
        updated_at: now,
      });
      const runIds: number[] = [];
      for (const run of prepared) runIds.push(await insertPreparedRun(trx, actor, project.id, run, planId));
      await enqueueEvent(trx, {
        tenantId: actor.tenantId,
        projectId: project.id,
        type: 'plan_created',
        object: { id: planId, title, runIds },
      });
      return planId;
    });
    return { id };
  } catch (err) {
    // A concurrent creator took the title after our check; the unique index decided (D20).
    if (isUniqueViolation(err))
      throw await planTitleConflict(db, actor.tenantId, project.id, milestoneId, title);
    throw err;
  }
}

/** Lists a project's test plans, newest first, each with the ids of its runs. */
export async function listPlans(db: Db, actor: Actor, projectRef: string): Promise<Plan[]> {
  const project = await resolveProject(db, actor, projectRef);
  const rows = await repo.listPlans(db, actor.tenantId, project.id);
  const runs = await repo.listPlanRunIds(
    db,
    actor.tenantId,
    rows.map((r) => r.id),
  );
  const byPlan = new Map<number, number[]>();
  for (const r of runs) byPlan.set(r.plan_id!, [...(byPlan.get(r.plan_id!) ?? []), r.id]);
  return rows.map((row) => toPlan(row, byPlan.get(row.id) ?? []));
}

/** One test plan with its runs (every related object of each run included). */
export async function getPlan(
  db: Db,
  actor: Actor,
  projectRef: string,
  planId: number,
): Promise<PlanWithRuns> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await repo.findPlan(db, actor.tenantId, project.id, planId);
  if (!row) throw notFound(`test plan ${planId} not found`);
  const runs = await listPlanRuns(db, actor.tenantId, project, planId);
  return {
    ...toPlan(
      row,
      runs.map((r) => r.id),
    ),
    runs,
  };
}
