import type { Db } from '../../../db/create-db.js';
import { isUniqueViolation } from '../../../db/dialect.js';
import type { Actor } from '../../../auth/actor.js';
import { AppError, conflict, notFound, type ErrorDetail } from '../../../errors.js';
import { nowIso } from '../../../lib/time.js';
import { resolveProject } from '../../projects/projects.service.js';
import * as editRepo from './run-edit.repository.js';
import type { UpdateRunBody } from './run-edit.schemas.js';
import * as repo from '../runs.repository.js';
import { assertRunRefs, checkTitleAndDescription } from '../run-creation.service.js';
import { checkDueAt } from '../due-dates.js';
import { enqueueEvent } from '../../webhooks/webhook-events.service.js';

/** D10 for a run being renamed: unique in its plan, or among the project's runs outside plans. */
async function titleConflict(
  db: Db,
  tenantId: string,
  projectId: string,
  planKey: number,
  title: string,
): Promise<AppError> {
  const id = await repo.findRunIdByTitle(db, tenantId, projectId, planKey, title);
  const where = planKey === 0 ? 'this project' : 'its test plan';
  return conflict(`a run titled "${title}" exists in ${where}; conflicting run id: ${id ?? 'unknown'}`);
}

/**
 * Edits a run's title, description, assignee, milestone and due date (docs/api-decisions.md#due-dates), with run creation's rules: title and description
 * limits (D22 sanitised), D10 uniqueness (409 ending `conflicting run id: <id>`), an unknown, deactivated or
 * viewer assignee and an unknown or archived milestone are 400s (D9), a closed run is a 409 (it is read-only).
 * Only the given fields change; null removes the assignee or milestone. No audit event: the event table of
 * docs/api-decisions.md (D25) has none for runs.
 */
export async function updateRun(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  input: UpdateRunBody,
): Promise<{ message: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const run = await repo.findRun(db, actor.tenantId, project.id, runId);
  if (!run) throw notFound(`run ${runId} not found`);
  if (run.closed_at !== null) throw conflict(`run ${runId} is closed`);
  const errors: ErrorDetail[] = [];
  const { title, description } = checkTitleAndDescription(
    input.title ?? run.title,
    input.description ?? run.description,
    '',
    errors,
  );
  const dueAt = checkDueAt(input.dueAt, '/dueAt', errors);
  if (errors.length) {
    throw new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);
  }
  await assertRunRefs(db, actor.tenantId, project.id, {
    assignmentId: input.assignmentId ?? undefined,
    milestoneId: input.milestoneId ?? undefined,
  });
  if (title !== run.title) {
    const other = await repo.findRunIdByTitle(db, actor.tenantId, project.id, run.plan_key, title);
    if (other !== undefined && other !== run.id) {
      throw await titleConflict(db, actor.tenantId, project.id, run.plan_key, title);
    }
  }
  let updated: boolean;
  try {
    const next = {
      title,
      description: input.description === undefined ? run.description : description,
      assignment_id: input.assignmentId === undefined ? run.assignment_id : input.assignmentId,
      milestone_id: input.milestoneId === undefined ? run.milestone_id : input.milestoneId,
      due_at: dueAt === undefined ? run.due_at : dueAt,
    };
    // Only what really changed counts as an update (run_updated names those fields).
    const changed = [
      next.title !== run.title && 'title',
      next.description !== run.description && 'description',
      next.assignment_id !== run.assignment_id && 'assignmentId',
      next.milestone_id !== run.milestone_id && 'milestoneId',
      next.due_at !== run.due_at && 'dueAt',
    ].filter((f): f is string => f !== false);
    updated = await db.transaction().execute(async (trx) => {
      const ok = await editRepo.updateOpenRunDetails(trx, actor.tenantId, run.id, {
        ...next,
        updated_at: nowIso(),
      });
      if (ok && changed.length > 0)
        await enqueueEvent(trx, {
          tenantId: actor.tenantId,
          projectId: project.id,
          type: 'run_updated',
          object: {
            id: run.id,
            title: next.title,
            changed,
            assignmentId: next.assignment_id,
            milestoneId: next.milestone_id,
            ...(changed.includes('dueAt') ? { dueAt: next.due_at } : {}),
          },
        });
      return ok;
    });
  } catch (err) {
    // A concurrent writer took the title after our check: the unique index decided (D10).
    if (isUniqueViolation(err))
      throw await titleConflict(db, actor.tenantId, project.id, run.plan_key, title);
    throw err;
  }
  // Closed between the read and the write.
  if (!updated) throw conflict(`run ${runId} is closed`);
  return { message: 'Run updated' };
}
