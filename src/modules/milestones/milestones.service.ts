import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { MilestonesTable } from '../../db/schema.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './milestones.repository.js';
import type { CreateMilestoneBody, Milestone } from './milestones.schemas.js';

export function toMilestone(row: Selectable<MilestonesTable>): Milestone {
  const milestone: Milestone = {
    id: row.id,
    title: row.title,
    archived: row.archived_at !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  // docs/api-decisions.md#response-shapes: never null for an optional scalar; absent means "not archived".
  if (row.archived_at !== null) milestone.archivedAt = row.archived_at;
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

/** Creates a milestone (test-runner or higher, D3); the title is trimmed and must be 1-255 characters. */
export async function createMilestone(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateMilestoneBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const title = input.title.trim();
  if (title === '' || title.length > 255) throw badRequest('title must be 1-255 characters', '/title');
  const now = nowIso();
  const { id } = await repo.insertMilestone(db, {
    tenant_id: actor.tenantId,
    project_id: project.id,
    title,
    created_at: now,
    updated_at: now,
    archived_at: null,
  });
  return { id };
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
