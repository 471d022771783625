import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { RunsTable } from '../../db/tables/execution.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../http/auth.js';
import { AppError, badRequest, conflict, notFound, type ErrorDetail } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { getConfiguration } from '../configurations/configurations.service.js';
import { listFoldersByIds } from '../folders/folders.service.js';
import { assertMilestoneUsable } from '../milestones/milestones.service.js';
import { resolveProject } from '../projects/projects.service.js';
import type { Project } from '../projects/projects.schemas.js';
import { getTagsByIds } from '../tags/tags.service.js';
import { selectMatchingTcaseIds } from '../test-cases/test-cases.service.js';
import { atLeast } from '../users/roles.js';
import { getUser } from '../users/users.service.js';
import * as repo from './runs.repository.js';
import {
  RUN_DESCRIPTION_MAX,
  RUN_INCLUDES,
  RUN_TITLE_MAX,
  type CloneRunBody,
  type CreateRunBody,
  type ListRunsQuery,
  type QueryPlan,
  type Run,
  type RunInclude,
  type RunType,
} from './runs.schemas.js';

export type RunRow = Selectable<RunsTable>;

const fail = (errors: ErrorDetail[]) =>
  new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);

// ---- mapping ----

function toRun(row: repo.RunWithRelationsRow, project: Project, include: ReadonlySet<RunInclude>): Run {
  const counts = {
    blocked: row.cnt_blocked,
    failed: row.cnt_failed,
    open: row.cnt_open,
    passed: row.cnt_passed,
    skipped: row.cnt_skipped,
    custom1: row.cnt_custom1,
    custom2: row.cnt_custom2,
    custom3: row.cnt_custom3,
    custom4: row.cnt_custom4,
  };
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
    assignment:
      include.has('assignment') && row.assignment_id !== null && row.assignee_email !== null
        ? {
            id: row.assignment_id,
            email: row.assignee_email,
            name: row.assignee_name ?? '',
            avatar: row.assignee_avatar,
            role: row.assignee_role ?? '',
          }
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
  };
}

const ALL_INCLUDES: ReadonlySet<RunInclude> = new Set(RUN_INCLUDES);

// ---- validation shared by runs, clones and plan runs ----

export interface RunRefsInput {
  milestoneId?: number;
  assignmentId?: number;
  configurationId?: string;
}

/** D9: a missing milestone, user or configuration named in a body is a 400; milestones must be open, assignees active and above viewer. */
export async function assertRunRefs(
  db: Db,
  tenantId: string,
  projectId: string,
  input: RunRefsInput,
  path = '',
): Promise<void> {
  if (input.milestoneId !== undefined) {
    await assertMilestoneUsable(db, tenantId, projectId, input.milestoneId, `${path}/milestoneId`);
  }
  if (input.assignmentId !== undefined) {
    const where = `${path}/assignmentId`;
    const user = await getUser(db, tenantId, input.assignmentId).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    });
    if (!user) throw badRequest(`user ${input.assignmentId} does not exist`, where);
    if (!user.active) throw badRequest(`user ${input.assignmentId} is deactivated`, where);
    if (!atLeast(user.role, 'test-runner')) {
      throw badRequest(`user ${input.assignmentId} is a viewer and cannot be assigned a run`, where);
    }
  }
  if (input.configurationId !== undefined) {
    const found = await getConfiguration(db, tenantId, projectId, input.configurationId);
    if (!found) {
      throw badRequest(
        `configuration "${input.configurationId}" does not exist in this project`,
        `${path}/configurationId`,
      );
    }
  }
}

/** Title 1–255 characters (trimmed) and description ≤ 512 characters, sanitised (D22). */
export function checkTitleAndDescription(
  title: string,
  description: string | undefined,
  path = '',
  errors: ErrorDetail[] = [],
): { title: string; description: string } {
  const trimmed = title.trim();
  if (trimmed.length === 0 || trimmed.length > RUN_TITLE_MAX) {
    errors.push({ path: `${path}/title`, message: `run title must be 1-${RUN_TITLE_MAX} characters` });
  }
  if (description !== undefined && description.length > RUN_DESCRIPTION_MAX) {
    errors.push({
      path: `${path}/description`,
      message: `run description must be at most ${RUN_DESCRIPTION_MAX} characters`,
    });
  }
  return { title: trimmed, description: sanitizeHtmlField(description ?? '') };
}

/**
 * D16 and rule 4: every id must name a published standalone or filled test case of the project; a 400
 * names the offending ids by reason. Duplicates are dropped (extensions.md §3), first occurrence wins.
 */
export async function assertSelectableTcaseIds(
  db: Db,
  tenantId: string,
  projectId: string,
  ids: string[],
  path: string,
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const ok = new Set(await selectMatchingTcaseIds(db, tenantId, projectId, { tcaseIds: unique }));
  const bad = unique.filter((id) => !ok.has(id));
  if (bad.length === 0) return unique;
  const kinds = new Map((await repo.listTcaseKinds(db, tenantId, projectId, bad)).map((r) => [r.id, r]));
  const drafts: string[] = [];
  const templates: string[] = [];
  const missing: string[] = [];
  for (const id of bad) {
    const kind = kinds.get(id);
    if (!kind || kind.deleted_at !== null) missing.push(id);
    else if (kind.is_draft === 1) drafts.push(id);
    else if (kind.type === 'template') templates.push(id);
    else missing.push(id);
  }
  const list = (ids: string[]) => ids.slice(0, 20).join(', ') + (ids.length > 20 ? ', …' : '');
  const errors: ErrorDetail[] = [];
  if (missing.length)
    errors.push({ path, message: `test cases not found in this project: ${list(missing)}` });
  if (drafts.length)
    errors.push({ path, message: `draft test cases cannot be added to a run: ${list(drafts)}` });
  if (templates.length) {
    errors.push({
      path,
      message: `templates cannot be added to a run, only their filled test cases: ${list(templates)}`,
    });
  }
  throw fail(errors);
}

/** Unknown folders or tags in a filter are a 400 (D9: a missing thing named in a body). */
async function assertFilterRefs(db: Db, tenantId: string, projectId: string, plan: QueryPlan, path: string) {
  const errors: ErrorDetail[] = [];
  if (plan.folderIds && plan.folderIds.length > 0) {
    const found = new Set((await listFoldersByIds(db, tenantId, projectId, plan.folderIds)).map((f) => f.id));
    const missing = [...new Set(plan.folderIds)].filter((id) => !found.has(id));
    if (missing.length) {
      errors.push({
        path: `${path}/folderIds`,
        message: `folders not found in this project: ${missing.join(', ')}`,
      });
    }
  }
  if (plan.tagIds && plan.tagIds.length > 0) {
    const found = await getTagsByIds(db, tenantId, plan.tagIds);
    const missing = [...new Set(plan.tagIds)].filter((id) => !found.has(id));
    if (missing.length)
      errors.push({ path: `${path}/tagIds`, message: `tags not found: ${missing.join(', ')}` });
  }
  if (errors.length) throw fail(errors);
}

const filtersOf = (plan: QueryPlan) => ({
  folderIds: plan.folderIds,
  tagIds: plan.tagIds,
  priorities: plan.priorities,
});

/** public-api.md "Query plan": the union of the plans, each an AND of its filters (empty = unrestricted). */
async function evaluatePlans(
  db: Db,
  tenantId: string,
  projectId: string,
  plans: QueryPlan[],
  onlyAmong?: string[],
): Promise<string[]> {
  const out = new Set<string>();
  for (const plan of plans) {
    // An explicit empty list selects nothing (extensions.md §3: an empty run), unlike an omitted one.
    if (plan.tcaseIds !== undefined && plan.tcaseIds.length === 0) continue;
    const ids = await selectMatchingTcaseIds(
      db,
      tenantId,
      projectId,
      { ...filtersOf(plan), tcaseIds: plan.tcaseIds },
      onlyAmong,
    );
    for (const id of ids) out.add(id);
  }
  return [...out];
}

/** The query plans' shape for a run type: live runs take filters only (one or more plans), others exactly one plan. */
export function queryPlanShapeErrors(type: RunType, plans: QueryPlan[], path = ''): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (type === 'live') {
    if (plans.length === 0)
      errors.push({ path: `${path}/queryPlans`, message: 'a live run needs at least one query plan' });
    plans.forEach((plan, i) => {
      if (plan.tcaseIds !== undefined) {
        errors.push({
          path: `${path}/queryPlans/${i}/tcaseIds`,
          message: 'live runs select test cases by filters only; tcaseIds is not allowed',
        });
      }
    });
  } else if (plans.length !== 1) {
    errors.push({ path: `${path}/queryPlans`, message: `a ${type} run takes exactly one query plan` });
  }
  return errors;
}

/**
 * THE selection of a run's test cases from its query plans (shape already checked): unknown folders and tags
 * are a 400, named tcaseIds must be selectable (D16, rule 4; duplicates dropped), and the union of the plans
 * is evaluated (subfolders included, drafts and templates excluded). Run creation and the query-plan preview
 * (preview.service.ts) both call this, so a preview shows exactly the set a created run gets.
 */
export async function selectRunTcases(
  db: Db,
  tenantId: string,
  projectId: string,
  plans: QueryPlan[],
  path = '',
): Promise<{ queryPlans: QueryPlan[]; tcaseIds: string[] }> {
  const stored: QueryPlan[] = [];
  for (const [i, plan] of plans.entries()) {
    await assertFilterRefs(db, tenantId, projectId, plan, `${path}/queryPlans/${i}`);
    const normalised: QueryPlan = { ...plan };
    if (plan.tcaseIds !== undefined) {
      normalised.tcaseIds = await assertSelectableTcaseIds(
        db,
        tenantId,
        projectId,
        plan.tcaseIds,
        `${path}/queryPlans/${i}/tcaseIds`,
      );
    }
    stored.push(normalised);
  }
  // Static and static_struct runs fix their set now; live runs too start from what matches now.
  return { queryPlans: stored, tcaseIds: await evaluatePlans(db, tenantId, projectId, stored) };
}

/** A validated run, ready to insert. */
export interface PreparedRun {
  type: RunType;
  title: string;
  description: string;
  milestoneId: number | null;
  assignmentId: number | null;
  configurationId: string | null;
  queryPlans: QueryPlan[];
  tcaseIds: string[];
}

export interface RunInput extends RunRefsInput {
  title: string;
  description?: string;
  type: RunType;
  queryPlans: QueryPlan[];
}

/** Validates a run body (public-api.md "POST run"; D9, D16, rule 4) and resolves its test cases. */
export async function prepareRun(
  db: Db,
  tenantId: string,
  projectId: string,
  input: RunInput,
  path = '',
): Promise<PreparedRun> {
  const errors: ErrorDetail[] = [];
  const { title, description } = checkTitleAndDescription(input.title, input.description, path, errors);
  errors.push(...queryPlanShapeErrors(input.type, input.queryPlans, path));
  if (errors.length) throw fail(errors);
  await assertRunRefs(db, tenantId, projectId, input, path);
  const { queryPlans: stored, tcaseIds } = await selectRunTcases(
    db,
    tenantId,
    projectId,
    input.queryPlans,
    path,
  );
  return {
    type: input.type,
    title,
    description,
    milestoneId: input.milestoneId ?? null,
    assignmentId: input.assignmentId ?? null,
    configurationId: input.configurationId ?? null,
    queryPlans: stored,
    tcaseIds,
  };
}

/** Inserts a prepared run with its test cases and counters; call inside a transaction. */
export async function insertPreparedRun(
  trx: Db,
  actor: Actor,
  projectId: string,
  run: PreparedRun,
  planId: number | null = null,
): Promise<number> {
  const now = nowIso();
  const id = await repo.insertRun(trx, {
    tenant_id: actor.tenantId,
    project_id: projectId,
    type: run.type,
    title: run.title,
    description: run.description,
    plan_id: planId,
    plan_key: planId ?? 0,
    milestone_id: run.milestoneId,
    assignment_id: run.assignmentId,
    configuration_id: run.configurationId,
    is_automated: actor.via === 'key' ? 1 : 0, // D19
    time_spent: null,
    query_plans: JSON.stringify(run.queryPlans),
    created_by: actor.userId,
    created_at: now,
    updated_at: now,
    closed_at: null,
    closed_by: null,
    cnt_open: run.tcaseIds.length,
    cnt_passed: 0,
    cnt_failed: 0,
    cnt_blocked: 0,
    cnt_skipped: 0,
    cnt_custom1: 0,
    cnt_custom2: 0,
    cnt_custom3: 0,
    cnt_custom4: 0,
  });
  await repo.insertRunTcases(trx, actor.tenantId, id, run.tcaseIds, now);
  // D17: a static run shows, forever, the version each case had at creation.
  if (run.type === 'static') await repo.pinRunTcasesToLatest(trx, actor.tenantId, id);
  return id;
}

/** D10: the 409 for a taken run title ends with `conflicting run id: <id>` so uploaders can reuse the run. */
async function titleConflict(db: Db, tenantId: string, projectId: string, title: string): Promise<AppError> {
  const id = await repo.findRunIdByTitle(db, tenantId, projectId, 0, title);
  return conflict(`a run titled "${title}" exists in this project; conflicting run id: ${id ?? 'unknown'}`);
}

async function insertStandaloneRun(
  db: Db,
  actor: Actor,
  projectId: string,
  run: PreparedRun,
): Promise<number> {
  const existing = await repo.findRunIdByTitle(db, actor.tenantId, projectId, 0, run.title);
  if (existing !== undefined) throw await titleConflict(db, actor.tenantId, projectId, run.title);
  try {
    return await db.transaction().execute((trx) => insertPreparedRun(trx, actor, projectId, run));
  } catch (err) {
    // A concurrent creator took the title after our check: the unique index decided (D10).
    if (isUniqueViolation(err)) throw await titleConflict(db, actor.tenantId, projectId, run.title);
    throw err;
  }
}

// ---- endpoints ----

/** Creates a run (public-api.md "POST run"): D10 titles, D16 drafts, D19 isAutomated, extensions §3 duplicates/empty. */
export async function createRun(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateRunBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const run = await prepareRun(db, actor.tenantId, project.id, { ...input, type: input.type as RunType });
  return { id: await insertStandaloneRun(db, actor, project.id, run) };
}

/** Lists a project's runs, newest first, with `include` semantics of public-api.md (unlisted relations are null). */
export async function listRuns(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: ListRunsQuery,
): Promise<Run[]> {
  const project = await resolveProject(db, actor, projectRef);
  const include = query.include ? new Set(query.include as RunInclude[]) : ALL_INCLUDES;
  const rows = await repo.listRuns(db, actor.tenantId, project.id, {
    closed: query.closed,
    milestoneIds: query.milestoneIds,
    limit: query.limit,
  });
  return rows.map((row) => toRun(row, project, include));
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
 * Clones a run (public-api.md "POST run/clone"): same type; live runs keep their query plans and reflect
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
  const queryPlans = parseJson<QueryPlan[]>(source.query_plans, []);
  let tcaseIds: string[];
  if (source.type === 'live') {
    tcaseIds = await evaluatePlans(db, actor.tenantId, project.id, queryPlans);
  } else {
    // The source's set, minus cases deleted since (they cannot join a new run); versions are those of now.
    const inSource = await repo.listInRunTcaseIds(db, actor.tenantId, source.id);
    tcaseIds = inSource.length
      ? await selectMatchingTcaseIds(db, actor.tenantId, project.id, {}, inSource)
      : [];
  }
  const run: PreparedRun = {
    type: source.type as RunType,
    title,
    description,
    milestoneId: input.milestoneId ?? source.milestone_id,
    assignmentId: input.assignmentId ?? source.assignment_id,
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
  const run = await (lock ? repo.findRunInfoForWrite : repo.findRunInfo)(db, tenantId, projectId, runId);
  if (!run) throw notFound(`run ${runId} not found`);
  return toRunInfo(run);
}

/** D9/D17: closes an open run (409 when closed already) and freezes its set, versions, folders and positions. */
export async function closeRun(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
): Promise<{ message: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  await findRunOr404(db, actor.tenantId, project.id, runId);
  await db.transaction().execute(async (trx) => {
    if (!(await repo.markClosed(trx, actor.tenantId, runId, actor.userId, nowIso()))) {
      throw conflict(`run ${runId} is already closed`);
    }
    await repo.freezeRunTcases(trx, actor.tenantId, runId);
  });
  return { message: 'Run closed' };
}

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
  return db.transaction().execute(async (trx) => {
    const now = nowIso();
    if (!(await repo.lockOpenRun(trx, actor.tenantId, runId, now))) throw conflict(`run ${runId} is closed`);
    const rows = new Map(
      (await repo.listRunTcaseMembership(trx, actor.tenantId, runId, ids)).map((r) => [r.tcase_id, r.in_run]),
    );
    const fresh = ids.filter((id) => !rows.has(id));
    const back = ids.filter((id) => rows.get(id) === 0);
    await repo.insertRunTcases(trx, actor.tenantId, runId, fresh, now);
    await repo.setInRun(trx, actor.tenantId, runId, back, 1, now);
    await repo.recountRuns(trx, actor.tenantId, [runId]);
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
  await openStaticStructRun(db, actor, projectRef, runId);
  const ids = [...new Set(tcaseIds)];
  return db.transaction().execute(async (trx) => {
    const now = nowIso();
    if (!(await repo.lockOpenRun(trx, actor.tenantId, runId, now))) throw conflict(`run ${runId} is closed`);
    const inRun = new Set(
      (await repo.listRunTcaseMembership(trx, actor.tenantId, runId, ids))
        .filter((r) => r.in_run === 1)
        .map((r) => r.tcase_id),
    );
    const absent = ids.filter((id) => !inRun.has(id));
    if (absent.length)
      throw badRequest(`test cases not in run ${runId}: ${absent.slice(0, 20).join(', ')}`, '/tcaseIds');
    await repo.setInRun(trx, actor.tenantId, runId, ids, 0, now);
    await repo.recountRuns(trx, actor.tenantId, [runId]);
    return { removed: ids.length };
  });
}

// ---- propagation (D17) ----

/**
 * D17: called by the test-case service, inside its writing transaction, after test cases were created,
 * edited, moved, tagged or deleted. Open live runs re-evaluate their query plans for those cases: a case
 * that starts matching joins (or comes back with its results and latest status), one that stops matching
 * leaves (its row and results are kept). Versions, folders and positions need nothing here: open runs read
 * them from the test case (unless pinned), closed runs from their frozen columns.
 */
export async function onTcasesChanged(
  db: Db,
  tenantId: string,
  projectId: string,
  tcaseIds: string[],
): Promise<void> {
  const ids = [...new Set(tcaseIds)];
  if (ids.length === 0) return;
  const runs = await repo.listOpenLiveRuns(db, tenantId, projectId);
  if (runs.length === 0) return;
  // Many live runs share their query plans ("everything", "smoke"): each distinct set is evaluated once.
  const matchingByPlans = new Map<string, Set<string>>();
  for (const run of runs) {
    if (matchingByPlans.has(run.query_plans)) continue;
    const plans = parseJson<QueryPlan[]>(run.query_plans, []);
    matchingByPlans.set(run.query_plans, new Set(await evaluatePlans(db, tenantId, projectId, plans, ids)));
  }
  const membership = new Map<number, Map<string, number>>(runs.map((run) => [run.id, new Map()]));
  for (const row of await repo.listMembershipInRuns(
    db,
    tenantId,
    runs.map((run) => run.id),
    ids,
  )) {
    membership.get(row.run_id)!.set(row.tcase_id, row.in_run);
  }
  const changes = runs
    .map((run) => {
      const matching = matchingByPlans.get(run.query_plans)!;
      const rows = membership.get(run.id)!;
      return {
        runId: run.id,
        join: ids.filter((id) => matching.has(id) && !rows.has(id)),
        // A returning case keeps its row: status, pinned version and latest result are those of its last result (D18).
        back: ids.filter((id) => matching.has(id) && rows.get(id) === 0),
        leave: ids.filter((id) => !matching.has(id) && rows.get(id) === 1),
      };
    })
    .filter((c) => c.join.length + c.back.length + c.leave.length > 0);
  if (changes.length === 0) return;
  // Every changed run is locked first (in id order), then written with a few statements for all of them: one
  // round trip per step, not per run (50 open live runs on PostgreSQL).
  const open = new Set(
    await repo.lockOpenRuns(
      db,
      tenantId,
      changes.map((c) => c.runId),
    ),
  );
  const locked = changes.filter((c) => open.has(c.runId));
  if (locked.length === 0) return;
  const now = nowIso();
  // Under the run locks, the counters move by exactly the rows that changed (no recount of the whole run).
  const deltas = new Map<number, Partial<Record<repo.CountedStatus, number>>>(
    locked.map((c) => [c.runId, {}]),
  );
  const bump = (runId: number, status: string, by: number) => {
    const d = deltas.get(runId)!;
    const s = status as repo.CountedStatus;
    d[s] = (d[s] ?? 0) + by;
  };
  const joins = locked.flatMap((c) => c.join.map((tcaseId) => ({ runId: c.runId, tcaseId })));
  for (const [runId, count] of await repo.insertOpenRunTcasesInRuns(db, tenantId, joins, now)) {
    bump(runId, 'open', count);
  }
  for (const c of locked) {
    for (const status of await repo.moveInRunReturningStatus(db, tenantId, c.runId, c.back, 1, now)) {
      bump(c.runId, status, 1);
    }
    for (const status of await repo.moveInRunReturningStatus(db, tenantId, c.runId, c.leave, 0, now)) {
      bump(c.runId, status, -1);
    }
  }
  await repo.touchRunsAddingCounters(db, tenantId, deltas, now);
}

// ---- for results and run logs ----

export interface RunInfo {
  id: number;
  projectId: string;
  type: RunType;
  title: string;
  planId: number | null;
  closedAt: string | null;
}

const toRunInfo = (
  row: Pick<RunRow, 'id' | 'project_id' | 'type' | 'title' | 'plan_id' | 'closed_at'>,
): RunInfo => ({
  id: row.id,
  projectId: row.project_id,
  type: row.type as RunType,
  title: row.title,
  planId: row.plan_id,
  closedAt: row.closed_at,
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
  const row = await repo.findRunTcaseByRef(db, tenantId, run.projectId, run.id, ref);
  return row ? { tcaseId: row.tcase_id, shownVersion: row.pinned_version ?? row.latest_version } : undefined;
}
