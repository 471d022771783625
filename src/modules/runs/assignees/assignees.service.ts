import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { atLeast } from '../../../auth/roles.js';
import { badRequest, conflict, notFound, validationFailed, type ErrorDetail } from '../../../errors.js';
import { checkDueAt } from '../due-dates.js';
import { resolveProject } from '../../projects/projects.service.js';
import { recordAudit } from '../../audit/audit.service.js';
import * as runsRepo from '../runs.repository.js';
import * as repo from './assignees.repository.js';
import type { AssignRunTcasesBody, AssignRunTcasesResponse, RunAssignableList } from './assignees.schemas.js';

/** How many case ids an audit event lists; the count is always whole. */
const AUDITED_IDS = 100;

/**
 * Who can be assigned a run's cases (docs/api-decisions.md#run-test-case-assignees): the run's project readable by
 * the caller; the people are active, above viewer (they record results) and see the project (members, admins).
 */
export async function listRunAssignable(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
): Promise<RunAssignableList> {
  const project = await resolveProject(db, actor, projectRef);
  if (!(await runsRepo.findRunInfo(db, actor.tenantId, project.id, runId)))
    throw notFound(`run ${runId} not found`);
  const rows = await repo.listAssignable(db, actor.tenantId, project.id);
  return { users: rows.map((u) => ({ id: u.id, name: u.name, email: u.email })) };
}

/** Who can be assigned a new run of the project or its cases: the people `assertAssignable` accepts, by name. */
export async function listProjectAssignable(
  db: Db,
  actor: Actor,
  projectRef: string,
): Promise<RunAssignableList> {
  const project = await resolveProject(db, actor, projectRef);
  const rows = await repo.listAssignable(db, actor.tenantId, project.id);
  return { users: rows.map((u) => ({ id: u.id, name: u.name, email: u.email })) };
}

/**
 * THE rule for whom a run or its cases may be assigned (docs/api-decisions.md#who-can-be-assigned): an active user
 * above viewer who can open the project (a member, or an admin or owner: D3). A refusal is a 400 at `where`.
 */
export async function assertAssignable(
  db: Db,
  tenantId: string,
  projectId: string,
  userId: number,
  where: string,
  what: 'a run' | 'test cases',
) {
  const user = await repo.findCandidate(db, tenantId, projectId, userId);
  if (!user) throw badRequest(`user ${userId} does not exist`, where);
  if (user.deactivated_at !== null) throw badRequest(`user ${userId} is deactivated`, where);
  if (!atLeast(user.role, 'test-runner'))
    throw badRequest(`user ${userId} is a viewer and cannot be assigned ${what}`, where);
  if (!atLeast(user.role, 'admin') && Number(user.is_member) !== 1)
    throw badRequest(`user ${userId} has no access to project ${user.project_code ?? projectId}`, where);
  return user;
}

/** Whether the person may still be assigned in the project (the rule above, as a yes or no). */
export async function isAssignable(db: Db, tenantId: string, projectId: string, userId: number) {
  const user = await repo.findCandidate(db, tenantId, projectId, userId);
  return (
    user !== undefined &&
    user.deactivated_at === null &&
    atLeast(user.role, 'test-runner') &&
    (atLeast(user.role, 'admin') || Number(user.is_member) === 1)
  );
}

/**
 * Assigns test cases of an open run to a person, or to nobody (`assigneeId: null`), all or nothing: a case id not in
 * the run is a 400 naming them (nothing changes), a closed run a 409, any run type. An optional `dueAt` sets the
 * assignment's due date (docs/api-decisions.md#due-dates). Recorded as the audit event
 * `run_tcases.assigned` when some case's assignee changed.
 */
export async function assignRunTcases(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  input: AssignRunTcasesBody,
): Promise<AssignRunTcasesResponse> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const run = await runsRepo.findRunInfo(db, actor.tenantId, project.id, runId);
  if (!run) throw notFound(`run ${runId} not found`);
  if (run.closed_at !== null) throw conflict(`run ${runId} is closed`);
  // docs/api-decisions.md#due-dates: a due date belongs to an assignment, so nobody's cases carry none.
  const errors: ErrorDetail[] = [];
  const dueAt = checkDueAt(input.dueAt, '/dueAt', errors);
  if (input.assigneeId === null && typeof input.dueAt === 'string')
    errors.push({ path: '/dueAt', message: 'a due date needs an assignee; unassigning removes it' });
  if (errors.length) throw validationFailed(errors);
  const assignee =
    input.assigneeId === null
      ? null
      : await assertAssignable(db, actor.tenantId, project.id, input.assigneeId, '/assigneeId', 'test cases');
  const ids = [...new Set(input.tcaseIds)];
  return db.transaction().execute(async (trx) => {
    // The run's lock, as every write of its cases: a case removed or a close meanwhile is seen here.
    const locked = await runsRepo.lockRunForWrite(trx, actor.tenantId, project.id, runId);
    if (!locked || locked.closed_at !== null) throw conflict(`run ${runId} is closed`);
    const inRun = await repo.listInRun(trx, actor.tenantId, runId, ids);
    const absent = ids.filter((id) => !inRun.has(id));
    if (absent.length > 0) {
      const more = absent.length > 20 ? ` and ${absent.length - 20} more` : '';
      throw badRequest(
        `test cases not in run ${runId}: ${absent.slice(0, 20).join(', ')}${more}`,
        '/tcaseIds',
      );
    }
    const changed = await repo.setAssignee(trx, actor.tenantId, runId, ids, assignee?.id ?? null);
    const dueChanged =
      assignee === null || dueAt !== undefined
        ? await repo.setDueAt(trx, actor.tenantId, runId, ids, assignee === null ? null : (dueAt ?? null))
        : 0;
    if (changed > 0 || dueChanged > 0)
      await recordAudit(trx, actor, 'run_tcases.assigned', {
        project_id: project.id,
        project_code: project.code,
        run_id: runId,
        run_title: locked.title,
        assignee_id: assignee?.id ?? null,
        assignee_name: assignee?.name ?? null,
        tcase_count: ids.length,
        changed_count: changed,
        ...(dueAt !== undefined || dueChanged > 0
          ? { due_at: assignee === null ? null : (dueAt ?? null) }
          : {}),
        tcase_ids: ids.slice(0, AUDITED_IDS),
      });
    return { assigned: ids.length, changed };
  });
}
