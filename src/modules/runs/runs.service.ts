import { recordAudit } from '../audit/audit.service.js';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { RunsTable } from '../../db/tables/execution.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict, notFound, type ErrorDetail, validationFailed } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { bumpStatus, STATUS_IDS, type StatusCounts, type StatusId } from '../../lib/statuses.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import type { Project } from '../projects/projects.schemas.js';
import { selectMatchingTcaseIds } from '../test-cases/test-cases.service.js';
import {
  assertRunRefs,
  assertSelectableTcaseIds,
  checkTitleAndDescription,
  evaluatePlans,
  insertStandaloneRun,
  prepareRun,
  type PreparedRun,
} from './run-creation.service.js';
import { isAssignable } from './assignees/assignees.service.js';
import { runDueFields } from './due-dates.js';
import { joinedUser } from './joined-user.js';
import * as runTcasesRepo from './run-tcases/run-tcases.repository.js';
import * as repo from './runs.repository.js';
import {
  RUN_INCLUDES,
  type CloneRunBody,
  type CreateRunBody,
  type GetRunQuery,
  type ListRunsQuery,
  type QueryPlan,
  type Run,
  type RunInclude,
  type RunType,
} from './runs.schemas.js';
import { enqueueEvent } from '../webhooks/webhook-events.service.js';
import { auditBackdatedRun, backdatedRunTime } from './backdating/backdating.service.js';

/** D17's reaction to test-case writes, for writers outside a request (the import job; the app's context.ts). */
export { onTcasesChanged } from './propagation/propagation.service.js';

/*
 * Runs: create, clone, list, close; cases added to and removed from static_struct runs (D17); and the run checks
 * of every write into a run (results, logs) and of its reads. Making a run is run-creation.service.ts; its test
 * cases as shown run-tcases/; results results/; test-case changes propagation/.
 */

export type RunRow = Selectable<RunsTable>;

const fail = (errors: ErrorDetail[]) => validationFailed(errors);

// ---- mapping ----

function toRun(row: repo.RunWithRelationsRow, project: Project, include: ReadonlySet<RunInclude>): Run {
  const counts = Object.fromEntries(STATUS_IDS.map((s) => [s, row[`cnt_${s}`]])) as Record<StatusId, number>;
  const all = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    id: row.id,
    type: row.type as RunType,
    title: row.title,
    description: row.description,
    projectId: row.project_id,
    project: include.has('project') ? { id: project.id, code: project.code, title: project.title } : null,
    planId: row.plan_id,
    plan: include.has('plan') && row.plan_title !== null ? { title: row.plan_title } : null,
    milestoneId: row.milestone_id,
    milestone:
      include.has('milestone') && row.milestone_title !== null ? { title: row.milestone_title } : null,
    assignmentId: row.assignment_id,
    assignment: include.has('assignment')
      ? joinedUser(
          row.assignment_id,
          row.assignee_email,
          row.assignee_name,
          row.assignee_avatar,
          row.assignee_role,
        )
      : null,
    configurationId: row.configuration_id,
    configuration:
      include.has('configuration') && row.configuration_id !== null && row.configuration_title !== null
        ? {
            id: row.configuration_id,
            title: row.configuration_title,
            createdAt: row.configuration_created_at ?? '',
            updatedAt: row.configuration_updated_at ?? '',
          }
        : null,
    statusCounts: include.has('statusCounts') ? { all, ...counts } : null,
    timeSpent: row.time_spent,
    isAutomated: row.is_automated === 1,
    createdAt: row.created_at,
    // The official clients' run type declares `closed` beside `closedAt`.
    closed: row.closed_at !== null,
    closedAt: row.closed_at,
    closedByUserId: row.closed_by,
    ...runDueFields(row),
  };
}

const ALL_INCLUDES: ReadonlySet<RunInclude> = new Set(RUN_INCLUDES);
/** A query's `include`: the listed related objects, or all of them when it names none. */
const includesOf = (include: string[] | undefined): ReadonlySet<RunInclude> =>
  include ? new Set(include as RunInclude[]) : ALL_INCLUDES;

// ---- endpoints ----

/** Creates a run: D10 titles, D16 drafts, D19 isAutomated, docs/api-decisions.md#run-creation-by-the-uploader. */
export async function createRun(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateRunBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const createdAt = backdatedRunTime(actor, input.createdAt); // extensions.md §7a: refused before anything else
  const run = await prepareRun(db, actor.tenantId, project.id, { ...input, type: input.type as RunType });
  const audit =
    createdAt === undefined
      ? undefined
      : (trx: Db, id: number) => auditBackdatedRun(trx, actor, project, id, run.title);
  return { id: await insertStandaloneRun(db, actor, project.id, { ...run, createdAt }, audit) };
}

/** Lists a project's runs, newest first, with `include` semantics of docs/api-decisions.md#shapes (unlisted relations are null). */
export async function listRuns(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: ListRunsQuery,
): Promise<Run[]> {
  const project = await resolveProject(db, actor, projectRef);
  const include = includesOf(query.include);
  const rows = await repo.listRuns(db, actor.tenantId, project.id, {
    closed: query.closed,
    milestoneIds: query.milestoneIds,
    limit: query.limit,
  });
  return rows.map((row) => toRun(row, project, include));
}

/** One run of a project, shaped as in the list; 404 when the project has no such run. */
export async function getRun(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  query: GetRunQuery,
): Promise<Run> {
  const project = await resolveProject(db, actor, projectRef);
  const include = includesOf(query.include);
  const [row] = await repo.listRuns(db, actor.tenantId, project.id, { id: runId });
  if (!row) throw notFound(`run ${runId} not found`);
  return toRun(row, project, include);
}

/** The runs of a test plan, oldest first, every relation included. */
export async function listPlanRuns(
  db: Db,
  tenantId: string,
  project: Project,
  planId: number,
): Promise<Run[]> {
  const rows = await repo.listRuns(db, tenantId, project.id, { planId });
  return rows.map((row) => toRun(row, project, ALL_INCLUDES));
}

/**
 * Clones a run (D9): same type; live runs keep their query plans and reflect
 * the test cases as they are now; every clone starts all open; a run in a plan cannot be cloned (D9: 400).
 */
export async function cloneRun(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CloneRunBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const source = await repo.findRun(db, actor.tenantId, project.id, input.runId);
  if (!source) throw badRequest(`run ${input.runId} does not exist in this project`, '/runId');
  if (source.plan_id !== null)
    throw badRequest(`run ${input.runId} belongs to a test plan and cannot be cloned`, '/runId');
  const errors: ErrorDetail[] = [];
  const { title, description } = checkTitleAndDescription(
    input.title,
    input.description ?? source.description,
    '',
    errors,
  );
  if (errors.length) throw fail(errors);
  await assertRunRefs(db, actor.tenantId, project.id, {
    milestoneId: input.milestoneId,
    assignmentId: input.assignmentId,
  });
  // The source's assignee goes with it only while the same rule still accepts them (removed from the project,
  // deactivated or made a viewer since: the clone starts unassigned rather than refused for a field not sent).
  const carried =
    input.assignmentId === undefined &&
    source.assignment_id !== null &&
    (await isAssignable(db, actor.tenantId, project.id, source.assignment_id))
      ? source.assignment_id
      : null;
  const queryPlans = parseJson<QueryPlan[]>(source.query_plans, []);
  let tcaseIds: string[];
  if (source.type === 'live') {
    tcaseIds = await evaluatePlans(db, actor.tenantId, project.id, queryPlans);
  } else {
    // The source's set, minus cases deleted since (they cannot join a new run); versions are those of now.
    const inSource = await runTcasesRepo.listInRunTcaseIds(db, actor.tenantId, source.id);
    tcaseIds = inSource.length
      ? await selectMatchingTcaseIds(db, actor.tenantId, project.id, {}, inSource)
      : [];
  }
  const run: PreparedRun = {
    type: source.type as RunType,
    title,
    description,
    milestoneId: input.milestoneId ?? source.milestone_id,
    assignmentId: input.assignmentId ?? carried,
    configurationId: source.configuration_id,
    queryPlans,
    tcaseIds,
  };
  return { id: await insertStandaloneRun(db, actor, project.id, run) };
}

async function findRunOr404(db: Db, tenantId: string, projectId: string, runId: number): Promise<RunRow> {
  const run = await repo.findRun(db, tenantId, projectId, runId);
  if (!run) throw notFound(`run ${runId} not found`);
  return run;
}

/** The run of the project, or 404; with `lock`, its row locked until the transaction ends (FOR NO KEY UPDATE). */
async function findRunInfoOr404(
  db: Db,
  tenantId: string,
  projectId: string,
  runId: number,
  lock = false,
): Promise<RunInfo> {
  const run = await (lock ? repo.lockRunForWrite : repo.findRunInfo)(db, tenantId, projectId, runId);
  if (!run) throw notFound(`run ${runId} not found`);
  return toRunInfo(run);
}

/** Closes a run whose lock the transaction holds and which is open: freezes its cases and says so (run_closed). */
async function closeLockedRun(trx: Db, actor: Actor, projectId: string, run: { id: number; title: string }) {
  await repo.markClosed(trx, actor.tenantId, run.id, actor.userId, nowIso());
  await runTcasesRepo.freezeRunTcases(trx, actor.tenantId, run.id);
  await enqueueEvent(trx, {
    tenantId: actor.tenantId,
    projectId,
    type: 'run_closed',
    object: { id: run.id, title: run.title },
  });
  await recordAudit(trx, actor, 'run.closed', {
    project_id: projectId,
    run_id: run.id,
    run_title: run.title,
  });
}

/** D9/D17: closes an open run (409 when closed already) and freezes its set, versions, folders and positions. */
export async function closeRun(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
): Promise<{ message: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  await db.transaction().execute(async (trx) => {
    // The run's lock first, as for every write of run state: a result written meanwhile is in or out, never half.
    const run = await findRunInfoOr404(trx, actor.tenantId, project.id, runId, true);
    if (run.closedAt !== null) throw conflict(`run ${runId} is already closed`);
    await closeLockedRun(trx, actor, project.id, run);
  });
  return { message: 'Run closed' };
}

/**
 * Closes the open runs of a test plan inside the caller's transaction (the plans service, which holds the plan's
 * lock): each run's lock taken in id order, as every writer of several runs does, then closed as POST run close
 * does. Answers the ids of the runs it closed.
 */
export async function closePlanRuns(
  trx: Db,
  actor: Actor,
  projectId: string,
  planId: number,
): Promise<number[]> {
  const runs = await repo.listPlanRunTitles(trx, actor.tenantId, projectId, planId);
  const open = await repo.lockOpenRuns(
    trx,
    actor.tenantId,
    runs.map((r) => r.id),
  );
  const titles = new Map(runs.map((r) => [r.id, r.title]));
  for (const id of open) await closeLockedRun(trx, actor, projectId, { id, title: titles.get(id) ?? '' });
  return open;
}

/**
 * Files every run of a test plan, open or closed, under the plan's new milestone (or none) inside the caller's
 * transaction: a plan moved to another milestone is moved whole. Each run that changed sends run_updated.
 */
export async function movePlanRunsToMilestone(
  trx: Db,
  tenantId: string,
  projectId: string,
  planId: number,
  milestoneId: number | null,
): Promise<void> {
  const runs = await repo.listPlanRunTitles(trx, tenantId, projectId, planId);
  const moving = runs.filter((r) => r.milestone_id !== milestoneId);
  if (moving.length === 0) return;
  await repo.setPlanRunsMilestone(trx, tenantId, planId, milestoneId, nowIso());
  for (const r of moving) {
    await enqueueEvent(trx, {
      tenantId,
      projectId,
      type: 'run_updated',
      object: {
        id: r.id,
        title: r.title,
        changed: ['milestoneId'],
        assignmentId: r.assignment_id,
        milestoneId,
      },
    });
  }
}

/** D10 inside a plan: the run of the plan titled `title`, if any. */
export const findPlanRunIdByTitle = (
  db: Db,
  tenantId: string,
  projectId: string,
  planId: number,
  title: string,
): Promise<number | undefined> => repo.findRunIdByTitle(db, tenantId, projectId, planId, title);

async function openStaticStructRun(db: Db, actor: Actor, projectRef: string, runId: number) {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const run = await findRunOr404(db, actor.tenantId, project.id, runId);
  if (run.type !== 'static_struct') {
    throw badRequest(
      `test cases can be added to or removed from static_struct runs only; run ${runId} is ${run.type}`,
    );
  }
  if (run.closed_at !== null) throw conflict(`run ${runId} is closed`);
  return { project, run };
}

/** D17: adds test cases to an open static_struct run; cases removed before come back with their results. */
export async function addRunTcases(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  tcaseIds: string[],
): Promise<{ added: number }> {
  const { project } = await openStaticStructRun(db, actor, projectRef, runId);
  const ids = await assertSelectableTcaseIds(db, actor.tenantId, project.id, tcaseIds, '/tcaseIds');
  return writeRunTcases(db, actor.tenantId, project.id, runId, async (trx, now, counts) => {
    const rows = new Map(
      (await runTcasesRepo.listMembershipInRuns(trx, actor.tenantId, [runId], ids)).map((r) => [
        r.tcase_id,
        r.in_run,
      ]),
    );
    const fresh = ids.filter((id) => !rows.has(id));
    const back = ids.filter((id) => rows.get(id) === 0);
    const inserted = await runTcasesRepo.insertOpenRunTcases(
      trx,
      actor.tenantId,
      fresh.map((tcaseId) => ({ runId, tcaseId })),
      now,
    );
    bumpStatus(counts, 'open', inserted.get(runId) ?? 0);
    // A case that comes back shows the status of its latest result again (D18).
    for (const status of await runTcasesRepo.setInRun(trx, actor.tenantId, runId, back, 1, now)) {
      bumpStatus(counts, status, 1);
    }
    return { added: fresh.length + back.length };
  });
}

/** D17: removes test cases from an open static_struct run; their results are kept. Ids not in the run are a 400. */
export async function removeRunTcases(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  tcaseIds: string[],
): Promise<{ removed: number }> {
  const { project } = await openStaticStructRun(db, actor, projectRef, runId);
  const ids = [...new Set(tcaseIds)];
  return writeRunTcases(db, actor.tenantId, project.id, runId, async (trx, now, counts) => {
    const inRun = new Set(
      (await runTcasesRepo.listMembershipInRuns(trx, actor.tenantId, [runId], ids))
        .filter((r) => r.in_run === 1)
        .map((r) => r.tcase_id),
    );
    const absent = ids.filter((id) => !inRun.has(id));
    if (absent.length)
      throw badRequest(`test cases not in run ${runId}: ${absent.slice(0, 20).join(', ')}`, '/tcaseIds');
    // A case that leaves keeps its row, status and results (D17).
    for (const status of await runTcasesRepo.setInRun(trx, actor.tenantId, runId, ids, 0, now)) {
      bumpStatus(counts, status, -1);
    }
    return { removed: ids.length };
  });
}

/**
 * A change of a run's test cases in one transaction: the run's lock first (409 when it was closed meanwhile), then
 * `work`, which notes the status moves in `counts`, then the one counter write.
 */
async function writeRunTcases<T>(
  db: Db,
  tenantId: string,
  projectId: string,
  runId: number,
  work: (trx: Db, now: string, counts: StatusCounts) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const now = nowIso();
    const locked = await repo.lockRunForWrite(trx, tenantId, projectId, runId);
    if (!locked || locked.closed_at !== null) throw conflict(`run ${runId} is closed`);
    const counts: StatusCounts = {};
    const out = await work(trx, now, counts);
    await repo.addToRunCounters(trx, tenantId, new Map([[runId, { counts, membershipChanged: true }]]), now);
    return out;
  });
}

// ---- for results and run logs ----

export interface RunInfo {
  id: number;
  projectId: string;
  type: RunType;
  title: string;
  planId: number | null;
  closedAt: string | null;
  createdAt: string;
}

const toRunInfo = (
  row: Pick<RunRow, 'id' | 'project_id' | 'type' | 'title' | 'plan_id' | 'closed_at' | 'created_at'>,
): RunInfo => ({
  id: row.id,
  projectId: row.project_id,
  type: row.type as RunType,
  title: row.title,
  planId: row.plan_id,
  closedAt: row.closed_at,
  createdAt: row.created_at,
});

/** For writes into a run (results, logs): 404 project/run, 403 non-member or archived project, 409 closed run. */
export async function getRunForResults(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  /** In a transaction: lock the run's row until it ends (the writer of its results and counters). */
  options: { lock?: boolean } = {},
): Promise<{ project: Project; run: RunInfo }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const run = await findRunInfoOr404(db, actor.tenantId, project.id, runId, options.lock);
  if (run.closedAt !== null) throw conflict('run is closed');
  return { project, run };
}

/** For reads of a run: 404 project/run, 403 non-member. */
export async function getRunForRead(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
): Promise<{ project: Project; run: RunInfo }> {
  const project = await resolveProject(db, actor, projectRef);
  return { project, run: await findRunInfoOr404(db, actor.tenantId, project.id, runId) };
}

/** A case in the run (in_run) by id, seq or legacy id, with the version the run shows now (D18); undefined otherwise. */
export async function resolveRunTcase(
  db: Db,
  tenantId: string,
  run: { id: number; projectId: string },
  ref: string,
): Promise<{ tcaseId: string; shownVersion: number } | undefined> {
  const row = await runTcasesRepo.findRunTcaseByRef(db, tenantId, run.projectId, run.id, ref);
  return row ? { tcaseId: row.tcase_id, shownVersion: row.pinned_version ?? row.latest_version } : undefined;
}
