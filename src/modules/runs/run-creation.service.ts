import { recordAudit } from '../audit/audit.service.js';
import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../auth/actor.js';
import { AppError, badRequest, conflict, type ErrorDetail, validationFailed } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { nowIso } from '../../lib/time.js';
import { getConfiguration } from '../configurations/configurations.service.js';
import { listFoldersByIds } from '../folders/folders.service.js';
import { assertMilestoneUsable } from '../milestones/milestones.service.js';
import { getTagsByIds } from '../tags/tags.service.js';
import { listTcaseKinds, selectMatchingTcaseIds } from '../test-cases/test-cases.service.js';
import { assertAssignable } from './assignees/assignees.service.js';
import { checkDueAt } from './due-dates.js';
import * as runTcasesRepo from './run-tcases/run-tcases.repository.js';
import * as repo from './runs.repository.js';
import { RUN_DESCRIPTION_MAX, RUN_TITLE_MAX, type QueryPlan, type RunType } from './runs.schemas.js';
import { enqueueEvent } from '../webhooks/webhook-events.service.js';

/*
 * Making a run: the body's rules (D9, D16, query plans), the selection of its test cases, and the insert with its
 * test cases and counters. Runs, clones and the runs of a plan (plans.service.ts) all go through here.
 */

const fail = (errors: ErrorDetail[]) => validationFailed(errors);

export interface RunRefsInput {
  milestoneId?: number;
  assignmentId?: number;
  configurationId?: string;
}

/**
 * D9: a missing milestone, user or configuration named in a body is a 400; milestones must be open, and the
 * assignee one the project's cases could be assigned to (docs/api-decisions.md#who-can-be-assigned).
 */
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
    await assertAssignable(db, tenantId, projectId, input.assignmentId, `${path}/assignmentId`, 'a run');
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
 * names the offending ids by reason. Duplicates are dropped (docs/api-decisions.md#run-creation-by-the-uploader), first occurrence wins.
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
  const kinds = new Map((await listTcaseKinds(db, tenantId, projectId, bad)).map((r) => [r.id, r]));
  const drafts: string[] = [];
  const templates: string[] = [];
  const missing: string[] = [];
  for (const id of bad) {
    const kind = kinds.get(id);
    if (!kind || kind.deleted) missing.push(id);
    else if (kind.isDraft) drafts.push(id);
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

/** docs/api-decisions.md#query-plans: the union of the plans, each an AND of its filters (empty = unrestricted). */
export async function evaluatePlans(
  db: Db,
  tenantId: string,
  projectId: string,
  plans: QueryPlan[],
  onlyAmong?: string[],
): Promise<string[]> {
  const out = new Set<string>();
  for (const plan of plans) {
    // An explicit empty list selects nothing (docs/api-decisions.md#query-plans: an empty run), unlike an omitted one.
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
  /** A backdated creation time (extensions.md §7a), checked already; now when absent. */
  createdAt?: string;
  /** YYYY-MM-DD, checked already; null or absent: none (a clone is the next round of work: it starts with none). */
  dueAt?: string | null;
}

export interface RunInput extends RunRefsInput {
  title: string;
  description?: string;
  type: RunType;
  queryPlans: QueryPlan[];
  dueAt?: string | null;
}

/** Validates a run body (D9, D16, docs/api-decisions.md#run-types-and-propagation rule 4) and resolves its test cases. */
export async function prepareRun(
  db: Db,
  tenantId: string,
  projectId: string,
  input: RunInput,
  path = '',
): Promise<PreparedRun> {
  const errors: ErrorDetail[] = [];
  const { title, description } = checkTitleAndDescription(input.title, input.description, path, errors);
  const dueAt = checkDueAt(input.dueAt, `${path}/dueAt`, errors);
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
    dueAt: dueAt ?? null,
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
    created_at: run.createdAt ?? now,
    updated_at: now,
    closed_at: null,
    closed_by: null,
    due_at: run.dueAt ?? null,
    ...repo.initialCounters(run.tcaseIds.length),
  });
  await runTcasesRepo.insertOpenRunTcases(
    trx,
    actor.tenantId,
    run.tcaseIds.map((tcaseId) => ({ runId: id, tcaseId })),
    now,
  );
  await enqueueEvent(trx, {
    tenantId: actor.tenantId,
    projectId,
    type: 'run_created',
    object: { id, title: run.title, type: run.type, planId, tcaseCount: run.tcaseIds.length },
  });
  await recordAudit(trx, actor, 'run.created', {
    project_id: projectId,
    run_id: id,
    run_title: run.title,
    run_type: run.type,
    plan_id: planId ?? undefined,
    tcase_count: run.tcaseIds.length,
  });
  // D17: a static run shows, forever, the version each case had at creation.
  if (run.type === 'static') await runTcasesRepo.pinRunTcasesToLatest(trx, actor.tenantId, id);
  return id;
}

/** D10: the 409 for a taken run title ends with `conflicting run id: <id>` so uploaders can reuse the run. */
async function titleConflict(db: Db, tenantId: string, projectId: string, title: string): Promise<AppError> {
  const id = await repo.findRunIdByTitle(db, tenantId, projectId, 0, title);
  return conflict(`a run titled "${title}" exists in this project; conflicting run id: ${id ?? 'unknown'}`);
}

/** Inserts a run outside plans in its own transaction; a taken title is a 409 naming the run (D10). */
export async function insertStandaloneRun(
  db: Db,
  actor: Actor,
  projectId: string,
  run: PreparedRun,
  /** Called in the run's transaction once it is inserted (the audit of a backdated run). */
  onInserted?: (trx: Db, id: number) => Promise<void>,
): Promise<number> {
  const existing = await repo.findRunIdByTitle(db, actor.tenantId, projectId, 0, run.title);
  if (existing !== undefined) throw await titleConflict(db, actor.tenantId, projectId, run.title);
  try {
    return await db.transaction().execute(async (trx) => {
      const id = await insertPreparedRun(trx, actor, projectId, run);
      await onInserted?.(trx, id);
      return id;
    });
  } catch (err) {
    // A concurrent creator took the title after our check: the unique index decided (D10).
    if (isUniqueViolation(err)) throw await titleConflict(db, actor.tenantId, projectId, run.title);
    throw err;
  }
}
