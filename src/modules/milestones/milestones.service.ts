import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { MilestonesTable } from '../../db/schema.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict, notFound, validationFailed, type ErrorDetail } from '../../errors.js';
import { isCalendarDate, nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './milestones.repository.js';
import {
  MILESTONE_DESCRIPTION_MAX,
  MILESTONE_TITLE_MAX,
  type CreateMilestoneBody,
  type Milestone,
  type UpdateMilestoneBody,
} from './milestones.schemas.js';

export function toMilestone(row: Selectable<MilestonesTable>): Milestone {
  const milestone: Milestone = {
    id: row.id,
    title: row.title,
    description: row.description,
    archived: row.archived_at !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  // docs/api-decisions.md#response-shapes: never null for an optional scalar; absent means "not archived".
  if (row.archived_at !== null) milestone.archivedAt = row.archived_at;
  if (row.due !== null) milestone.due = row.due;
  return milestone;
}

/** Lists a project's milestones in creation order; `archived` filters by state (omitted: all). */
export async function listMilestones(
  db: Db,
  actor: Actor,
  projectRef: string,
  archived?: boolean,
): Promise<Milestone[]> {
  const project = await resolveProject(db, actor, projectRef);
  return (await repo.listMilestones(db, actor.tenantId, project.id, archived)).map(toMilestone);
}

// A calendar date written YYYY-MM-DD that exists (2026-02-30 does not): one rule for every due date, in lib/time.ts.
export { isCalendarDate };

/** The fields of a create or an edit, checked together (every bad field named, D7); undefined: not given. */
function checkFields(input: { title?: string; description?: string; due?: string | null }) {
  const errors: ErrorDetail[] = [];
  const title = input.title?.trim();
  if (title !== undefined && (title === '' || title.length > MILESTONE_TITLE_MAX))
    errors.push({ path: '/title', message: `title must be 1-${MILESTONE_TITLE_MAX} characters` });
  const description = input.description?.trim();
  if (description !== undefined && description.length > MILESTONE_DESCRIPTION_MAX)
    errors.push({
      path: '/description',
      message: `description must be at most ${MILESTONE_DESCRIPTION_MAX} characters`,
    });
  const due = input.due === undefined || input.due === null ? input.due : input.due.trim();
  if (typeof due === 'string' && !isCalendarDate(due))
    errors.push({ path: '/due', message: 'due must be a calendar date written YYYY-MM-DD, or null' });
  if (errors.length) throw validationFailed(errors);
  return { title, description, due };
}

/**
 * Creates a milestone (test-runner or higher, D3): the title trimmed, 1-255 characters; an optional plain-text
 * description and due date (YYYY-MM-DD).
 */
export async function createMilestone(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateMilestoneBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const { title, description, due } = checkFields(input);
  if (title === undefined) throw badRequest('title must be 1-255 characters', '/title');
  const now = nowIso();
  return db.transaction().execute(async (trx) => {
    const { id } = await repo.insertMilestone(trx, {
      tenant_id: actor.tenantId,
      project_id: project.id,
      title,
      description: description ?? '',
      due: due ?? null,
      created_at: now,
      updated_at: now,
      archived_at: null,
    });
    await recordAudit(trx, actor, 'milestone.created', {
      project_id: project.id,
      project_code: project.code,
      milestone_id: id,
      milestone_title: title,
      due: due ?? undefined,
    });
    return { id };
  });
}

/** One milestone of the project, archived or not; 404 when the project has none of that id. */
export async function readMilestone(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
): Promise<Milestone> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await repo.findMilestone(db, actor.tenantId, project.id, id);
  if (!row) throw notFound(`milestone ${id} not found in project ${project.code}`);
  return toMilestone(row);
}

/**
 * Edits a milestone's title, description and due date (null removes it); only the given fields change. Titles
 * are not unique (creation never refused a duplicate), so neither is a rename. Archived milestones can be edited
 * too: archiving keeps new runs and plans away, not corrections. An edit that changed something is audited
 * (`milestone.updated`, docs/api-decisions.md#plans-and-milestones).
 */
export async function updateMilestone(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  input: UpdateMilestoneBody,
): Promise<Milestone> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const fields = checkFields(input);
  return db.transaction().execute(async (trx) => {
    const row = await repo.findMilestone(trx, actor.tenantId, project.id, id);
    if (!row) throw notFound(`milestone ${id} not found in project ${project.code}`);
    const next = {
      title: fields.title ?? row.title,
      description: fields.description ?? row.description,
      due: fields.due === undefined ? row.due : fields.due,
    };
    const changed = (['title', 'description', 'due'] as const).filter((k) => next[k] !== row[k]);
    if (changed.length === 0) return toMilestone(row);
    const now = nowIso();
    await repo.updateMilestone(trx, actor.tenantId, id, { ...next, updated_at: now });
    await recordAudit(trx, actor, 'milestone.updated', {
      project_id: project.id,
      project_code: project.code,
      milestone_id: id,
      milestone_title: next.title,
      changed,
      previous_title: changed.includes('title') ? row.title : undefined,
      due: changed.includes('due') ? next.due : undefined,
    });
    return toMilestone({ ...row, ...next, updated_at: now });
  });
}

async function setArchived(db: Db, actor: Actor, projectRef: string, id: number, archive: boolean) {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const row = await repo.findMilestone(db, actor.tenantId, project.id, id);
  if (!row) throw notFound(`milestone ${id} not found in project ${project.code}`);
  const now = nowIso();
  const result = await repo.updateMilestoneArchived(db, actor.tenantId, id, !archive, {
    archived_at: archive ? now : null,
    updated_at: now,
  });
  // Like closing a closed run (D9), repeating the change is a conflict rather than a silent no-op.
  if (Number(result.numUpdatedRows) === 0) {
    throw conflict(`milestone ${id} is ${archive ? 'already archived' : 'not archived'}`);
  }
}

/** Archives a milestone: it stays listed (`archived=true`) but new runs and plans cannot use it; 409 when already archived. */
export async function archiveMilestone(db: Db, actor: Actor, projectRef: string, id: number) {
  await setArchived(db, actor, projectRef, id, true);
  return { message: 'Milestone archived' };
}

/** Makes an archived milestone usable again; 409 when it is not archived. */
export async function unarchiveMilestone(db: Db, actor: Actor, projectRef: string, id: number) {
  await setArchived(db, actor, projectRef, id, false);
  return { message: 'Milestone unarchived' };
}

/**
 * The milestone `id` of the project, archived or not; `undefined` when the project has no such milestone
 * (callers choose 404 for a path and 400 for a body, D9). Never throws for a missing milestone.
 */
export async function getMilestone(
  db: Db,
  tenantId: string,
  projectId: string,
  id: number,
): Promise<Milestone | undefined> {
  const row = await repo.findMilestone(db, tenantId, projectId, id);
  return row ? toMilestone(row) : undefined;
}

/**
 * D9 (create run / plan): a `milestoneId` in a body must name a milestone of the project
 * that is not archived; otherwise a 400 at `path`. Returns the milestone.
 */
export async function assertMilestoneUsable(
  db: Db,
  tenantId: string,
  projectId: string,
  id: number,
  path = '/milestoneId',
): Promise<Milestone> {
  const milestone = await getMilestone(db, tenantId, projectId, id);
  if (!milestone) throw badRequest(`milestone ${id} does not exist in this project`, path);
  if (milestone.archived) throw badRequest(`milestone ${id} is archived`, path);
  return milestone;
}
