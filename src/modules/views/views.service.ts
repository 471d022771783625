import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../auth/actor.js';
import { atLeast } from '../../auth/roles.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import { checkFilters } from './views.filters.js';
import * as repo from './views.repository.js';
import type {
  CreateViewBody,
  SavedView,
  UpdateViewBody,
  ViewFilters,
  ViewList,
  ViewPage,
} from './views.schemas.js';

type ViewRow = NonNullable<Awaited<ReturnType<typeof repo.findView>>>;

/**
 * Saved views (docs/api-decisions.md#saved-views). A private view is its owner's alone: to anyone else it does
 * not exist (404), admins included. A shared one is read by everyone who reads the project, and changed or
 * deleted by its owner or an admin (or the owner of the tenant).
 */
const sees = (actor: Actor, row: ViewRow) => row.owner_id === actor.userId || row.shared === 1;
const mayEdit = (actor: Actor, row: ViewRow) =>
  row.owner_id === actor.userId || (row.shared === 1 && atLeast(actor.role, 'admin'));

function toView(actor: Actor, row: ViewRow): SavedView {
  return {
    id: row.id,
    name: row.name,
    page: row.page as ViewPage,
    filters: parseJson<ViewFilters>(row.filters, {}),
    shared: row.shared === 1,
    owner: { id: row.owner_id, name: row.owner_name },
    editable: mayEdit(actor, row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function nameOf(raw: string): string {
  const name = raw.trim();
  if (name === '') throw badRequest('name must not be blank', '/name');
  return name;
}

/** D3: viewers read; sharing something with the whole project is a write to it (test-runner and up). */
function checkMayShare(actor: Actor): void {
  if (!atLeast(actor.role, 'test-runner')) {
    throw forbidden(
      'sharing a view with the project needs the role test-runner or higher; viewers save private views',
    );
  }
}

const clash = (name: string, page: ViewPage) =>
  conflict(`you already have a view named "${name}" on the ${page} page`);

async function findVisible(db: Db, actor: Actor, projectId: string, code: string, id: number) {
  const row = await repo.findView(db, actor.tenantId, projectId, id);
  if (!row || !sees(actor, row)) throw notFound(`view ${id} not found in project ${code}`);
  return row;
}

/** The caller's own views and those shared with the project; `page` keeps one page's. */
export async function listViews(
  db: Db,
  actor: Actor,
  projectRef: string,
  page?: ViewPage,
): Promise<ViewList> {
  const project = await resolveProject(db, actor, projectRef);
  const rows = await repo.listViews(db, actor.tenantId, project.id, actor.userId, page);
  return { views: rows.map((r) => toView(actor, r)) };
}

/** Saves a view: every member may keep private views; shared ones need test-runner (D3). */
export async function createView(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateViewBody,
): Promise<SavedView> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const name = nameOf(input.name);
  checkFilters(input.page, input.filters);
  if (input.shared) checkMayShare(actor);
  const now = nowIso();
  let id: number;
  try {
    id = await repo.insertView(db, {
      tenant_id: actor.tenantId,
      project_id: project.id,
      owner_id: actor.userId,
      page: input.page,
      name,
      name_norm: name.toLowerCase(),
      filters: JSON.stringify(input.filters),
      shared: input.shared ? 1 : 0,
      created_at: now,
      updated_at: now,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw clash(name, input.page);
    throw err;
  }
  return toView(actor, await findVisible(db, actor, project.id, project.code, id));
}

/** Renames, refilters, shares or unshares a view (only the given fields); its page stays. */
export async function updateView(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  input: UpdateViewBody,
): Promise<SavedView> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const row = await findVisible(db, actor, project.id, project.code, id);
  if (!mayEdit(actor, row)) throw forbidden('only the view’s owner or an admin may change a shared view');
  const page = row.page as ViewPage;
  const name = input.name === undefined ? undefined : nameOf(input.name);
  if (input.filters !== undefined) checkFilters(page, input.filters);
  if (input.shared ?? row.shared === 1) checkMayShare(actor);
  try {
    await repo.updateView(db, actor.tenantId, row.id, {
      ...(name !== undefined ? { name, name_norm: name.toLowerCase() } : {}),
      ...(input.filters !== undefined ? { filters: JSON.stringify(input.filters) } : {}),
      ...(input.shared !== undefined ? { shared: input.shared ? 1 : 0 } : {}),
      updated_at: nowIso(),
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw clash(name ?? row.name, page);
    throw err;
  }
  return toView(actor, await findVisible(db, actor, project.id, project.code, row.id));
}

/** Deletes a view: its owner always, an admin a shared one. */
export async function deleteView(db: Db, actor: Actor, projectRef: string, id: number): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const row = await findVisible(db, actor, project.id, project.code, id);
  if (!mayEdit(actor, row)) throw forbidden('only the view’s owner or an admin may delete a shared view');
  await repo.deleteView(db, actor.tenantId, row.id);
}
