import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../auth/actor.js';
import { AppError, conflict, notFound, type ErrorDetail, validationFailed } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { assertMilestoneUsable } from '../milestones/milestones.service.js';
import { resolveProject } from '../projects/projects.service.js';
import type { Project } from '../projects/projects.schemas.js';
import {
  checkTitleAndDescription,
  insertPreparedRun,
  prepareRun,
  type PreparedRun,
} from '../runs/run-creation.service.js';
import {
  closePlanRuns,
  findPlanRunIdByTitle,
  listPlanRuns,
  movePlanRunsToMilestone,
} from '../runs/runs.service.js';
import * as repo from './plans.repository.js';
import {
  PLAN_TITLE_MAX,
  type AddPlanRunsBody,
  type CreatePlanBody,
  type Plan,
  type PlanRunInput,
  type PlanWithRuns,
  type UpdatePlanBody,
} from './plans.schemas.js';
import { enqueueEvent } from '../webhooks/webhook-events.service.js';

function toPlan(row: repo.PlanRow, runIds: number[]): Plan {
  const plan: Plan = {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    description: row.description,
    runIds,
    closed: row.closed_at !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.closed_at !== null) plan.closedAt = row.closed_at;
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

/** Title clash inside one request: two runs of one title (D10 within the plan). */
interface Clash {
  title: string;
  first: number;
  second: number;
}

/**
 * D20's rules for the runs of a plan, for a new plan and for runs added to one: exactly one query plan of
 * `tcaseIds`, type static (default) or static_struct (live is a 400), titles unique within the request (the
 * clash is answered once the body is otherwise valid). `errors` gathers the 400s of the body as a whole.
 */
function checkPlanRuns(runs: PlanRunInput[], errors: ErrorDetail[]): Clash | undefined {
  if (runs.length === 0) errors.push({ path: '/runs', message: 'a test plan needs at least one run' });
  const seen = new Map<string, number>();
  let clash: Clash | undefined;
  runs.forEach((run, i) => {
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
  return clash;
}

/** Each run resolved (cases, assignee, configuration: 400s naming `/runs/<i>/…`), filed under `milestoneId`. */
async function preparePlanRuns(
  db: Db,
  tenantId: string,
  projectId: string,
  runs: PlanRunInput[],
  milestoneId: number | null,
): Promise<PreparedRun[]> {
  const prepared: PreparedRun[] = [];
  for (const [i, run] of runs.entries()) {
    const ready = await prepareRun(
      db,
      tenantId,
      projectId,
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
  return prepared;
}

// D10: titles are unique within a plan, so two runs of one title are a conflict (409), checked once the body
// is otherwise valid; no run exists yet, so the message names both by their index in the request.
const clashConflict = (clash: Clash) =>
  conflict(
    `runs/${clash.first} and runs/${clash.second} are both titled "${clash.title}"; run titles are unique within a test plan`,
  );

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
  const clash = checkPlanRuns(input.runs, errors);
  if (errors.length) throw validationFailed(errors);
  if (input.milestoneId !== undefined)
    await assertMilestoneUsable(db, actor.tenantId, project.id, input.milestoneId);
  const milestoneId = input.milestoneId ?? null;
  const prepared = await preparePlanRuns(db, actor.tenantId, project.id, input.runs, milestoneId);
  if (clash) throw clashConflict(clash);
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

/** The plan of the project, locked for the rest of the transaction (repo.lockPlan); 404, or 409 when closed. */
async function lockOpenPlan(trx: Db, tenantId: string, projectId: string, planId: number) {
  const row = await repo.lockPlan(trx, tenantId, projectId, planId);
  if (!row) throw notFound(`test plan ${planId} not found`);
  if (row.closed_at !== null) throw conflict(`test plan ${planId} is closed; a closed plan takes no changes`);
  return row;
}

/** The plan_updated webhook event and the audit event of a change to a plan, in its transaction. */
async function recordPlanChange(
  trx: Db,
  actor: Actor,
  project: Project,
  action: 'plan.updated' | 'plan.runs_added' | 'plan.closed',
  plan: { id: number; title: string; milestoneId: number | null; closed: boolean; changed: string[] },
  meta: Record<string, unknown>,
) {
  const runIds = (await repo.listPlanRunIds(trx, actor.tenantId, [plan.id])).map((r) => r.id);
  await enqueueEvent(trx, {
    tenantId: actor.tenantId,
    projectId: project.id,
    type: 'plan_updated',
    object: {
      id: plan.id,
      title: plan.title,
      changed: plan.changed,
      milestoneId: plan.milestoneId,
      closed: plan.closed,
      runIds,
    },
  });
  await recordAudit(trx, actor, action, {
    project_id: project.id,
    project_code: project.code,
    plan_id: plan.id,
    plan_title: plan.title,
    ...meta,
  });
}

/**
 * Edits a test plan's title, description and milestone (null: none); only what is given changes. The title keeps
 * D20's rule (unique within its milestone, 409); a milestone given must be the project's and not archived (400).
 * The plan's runs, open or closed, follow its milestone (each sends run_updated). A closed plan is a 409.
 */
export async function updatePlan(
  db: Db,
  actor: Actor,
  projectRef: string,
  planId: number,
  input: UpdatePlanBody,
): Promise<{ message: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const title = input.title?.trim();
  if (title !== undefined && (title.length === 0 || title.length > PLAN_TITLE_MAX))
    throw validationFailed([
      { path: '/title', message: `plan title must be 1-${PLAN_TITLE_MAX} characters` },
    ]);
  const current = await repo.findPlan(db, actor.tenantId, project.id, planId);
  if (!current) throw notFound(`test plan ${planId} not found`);
  // Keeping an archived milestone is no use of it; moving the plan into one is (D9: 400).
  if (
    input.milestoneId !== undefined &&
    input.milestoneId !== null &&
    input.milestoneId !== current.milestone_id
  )
    await assertMilestoneUsable(db, actor.tenantId, project.id, input.milestoneId);
  const milestoneId = input.milestoneId === undefined ? current.milestone_id : input.milestoneId;
  const nextTitle = title ?? current.title;
  try {
    await db.transaction().execute(async (trx) => {
      const row = await lockOpenPlan(trx, actor.tenantId, project.id, planId);
      const next = {
        title: nextTitle,
        description: input.description === undefined ? row.description : sanitizeHtmlField(input.description),
        milestone_id: milestoneId,
      };
      const changed = [
        next.title !== row.title && 'title',
        next.description !== row.description && 'description',
        next.milestone_id !== row.milestone_id && 'milestoneId',
      ].filter((f): f is string => f !== false);
      if (changed.length === 0) return;
      if (changed.includes('title') || changed.includes('milestoneId')) {
        const other = await repo.findPlanIdByTitle(
          trx,
          actor.tenantId,
          project.id,
          milestoneId ?? 0,
          next.title,
        );
        if (other !== undefined && other !== planId)
          throw await planTitleConflict(trx, actor.tenantId, project.id, milestoneId, next.title);
      }
      await repo.updatePlan(trx, actor.tenantId, planId, {
        ...next,
        milestone_key: milestoneId ?? 0,
        updated_at: nowIso(),
      });
      if (changed.includes('milestoneId'))
        await movePlanRunsToMilestone(trx, actor.tenantId, project.id, planId, milestoneId);
      await recordPlanChange(
        trx,
        actor,
        project,
        'plan.updated',
        { id: planId, title: next.title, milestoneId, closed: false, changed },
        {
          changed,
          previous_title: changed.includes('title') ? row.title : undefined,
          milestone_id: changed.includes('milestoneId') ? milestoneId : undefined,
          previous_milestone_id: changed.includes('milestoneId') ? row.milestone_id : undefined,
        },
      );
    });
  } catch (err) {
    // A concurrent writer took the title after our check: the unique index decided (D20).
    if (isUniqueViolation(err))
      throw await planTitleConflict(db, actor.tenantId, project.id, milestoneId, nextTitle);
    throw err;
  }
  return { message: 'Plan updated' };
}

/** D10 inside a plan: the 409 ends with `conflicting run id: <id>`, as for runs outside plans. */
async function planRunTitleConflict(
  db: Db,
  tenantId: string,
  projectId: string,
  planId: number,
  title: string,
) {
  const id = await findPlanRunIdByTitle(db, tenantId, projectId, planId, title);
  return conflict(
    `a run titled "${title}" exists in test plan ${planId}; conflicting run id: ${id ?? 'unknown'}`,
  );
}

/**
 * Adds runs to an open test plan, as D20 makes a plan's runs (one query plan of `tcaseIds`, static or
 * static_struct, never live), filed under the plan's milestone, all in one transaction: every run or none. A
 * title taken in the plan is a 409 naming the run; a closed plan is a 409.
 */
export async function addPlanRuns(
  db: Db,
  actor: Actor,
  projectRef: string,
  planId: number,
  input: AddPlanRunsBody,
): Promise<{ runIds: number[] }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const errors: ErrorDetail[] = [];
  const clash = checkPlanRuns(input.runs, errors);
  if (errors.length) throw validationFailed(errors);
  const plan = await repo.findPlan(db, actor.tenantId, project.id, planId);
  if (!plan) throw notFound(`test plan ${planId} not found`);
  if (plan.closed_at !== null)
    throw conflict(`test plan ${planId} is closed; a closed plan takes no changes`);
  const prepared = await preparePlanRuns(db, actor.tenantId, project.id, input.runs, plan.milestone_id);
  if (clash) throw clashConflict(clash);
  const taken = async (trx: Db): Promise<AppError | undefined> => {
    for (const run of prepared)
      if ((await findPlanRunIdByTitle(trx, actor.tenantId, project.id, planId, run.title)) !== undefined)
        return planRunTitleConflict(trx, actor.tenantId, project.id, planId, run.title);
    return undefined;
  };
  try {
    const runIds = await db.transaction().execute(async (trx) => {
      const row = await lockOpenPlan(trx, actor.tenantId, project.id, planId);
      const clashing = await taken(trx);
      if (clashing) throw clashing;
      const ids: number[] = [];
      // The plan's milestone as it is now, under its lock: an edit made meanwhile is followed.
      for (const run of prepared)
        ids.push(
          await insertPreparedRun(trx, actor, project.id, { ...run, milestoneId: row.milestone_id }, planId),
        );
      await repo.updatePlan(trx, actor.tenantId, planId, { updated_at: nowIso() });
      await recordPlanChange(
        trx,
        actor,
        project,
        'plan.runs_added',
        { id: planId, title: row.title, milestoneId: row.milestone_id, closed: false, changed: ['runs'] },
        { run_ids: ids },
      );
      return ids;
    });
    return { runIds };
  } catch (err) {
    // A concurrent writer took a title after our check: the unique index decided (D10).
    if (isUniqueViolation(err)) throw (await taken(db)) ?? err;
    throw err;
  }
}

/**
 * Closes a test plan and, in the same transaction, every run of it still open (each as POST run close does):
 * the plan's lock first, then its runs' in id order. Closing a closed plan is a 409 (as for runs, D9).
 */
export async function closePlan(
  db: Db,
  actor: Actor,
  projectRef: string,
  planId: number,
): Promise<{ message: string; closedRunIds: number[] }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  return db.transaction().execute(async (trx) => {
    const row = await repo.lockPlan(trx, actor.tenantId, project.id, planId);
    if (!row) throw notFound(`test plan ${planId} not found`);
    if (row.closed_at !== null) throw conflict(`test plan ${planId} is already closed`);
    const closedRunIds = await closePlanRuns(trx, actor, project.id, planId);
    const now = nowIso();
    await repo.updatePlan(trx, actor.tenantId, planId, {
      closed_at: now,
      closed_by: actor.userId,
      updated_at: now,
    });
    await recordPlanChange(
      trx,
      actor,
      project,
      'plan.closed',
      { id: planId, title: row.title, milestoneId: row.milestone_id, closed: true, changed: ['closed'] },
      { closed_run_ids: closedRunIds },
    );
    return { message: 'Plan closed', closedRunIds };
  });
}
