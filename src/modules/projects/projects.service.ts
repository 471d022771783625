import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ProjectsTable } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor, KnownProject } from '../../auth/actor.js';
import {
  AppError,
  badRequest,
  conflict,
  forbidden,
  notFound,
  type ErrorDetail,
  validationFailed,
} from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { newUuid } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { atLeast } from '../../auth/roles.js';
import { getUser, setJoinsNewProjects } from '../users/users.service.js';
import * as repo from './projects.repository.js';
import type {
  CreateProjectBody,
  Project,
  ProjectCounts,
  ProjectMember,
  UpdateProjectBody,
} from './projects.schemas.js';
import { isHttpUrl } from '../../lib/urls.js';

export function toProject(row: Selectable<ProjectsTable>): Project {
  return {
    id: row.id,
    code: row.code,
    title: row.title,
    description: row.overview_description,
    overviewTitle: row.overview_title,
    overviewDescription: row.overview_description,
    links: parseJson(row.links, []),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archivedAt: row.archived_at,
  };
}

/** D3: owners and admins see every project; other roles see the projects they are members of. */
const seesAll = (actor: Actor) => atLeast(actor.role, 'admin');

export async function listProjects(db: Db, actor: Actor): Promise<Project[]> {
  const rows = await repo.listProjects(db, actor.tenantId, seesAll(actor) ? undefined : actor.userId);
  return rows.map(toProject);
}

/**
 * Hands resolveProject what authentication read of the project the request names (Actor.knownProject), so that
 * a read needs no statement of its own. Used at most once: the first resolveProject of the request takes it
 * away, whatever it asks.
 */
export function rememberProject(actor: Actor, project: KnownProject): void {
  actor.knownProject = project;
}

/**
 * What authentication read, when this first resolution of the request may use it: the same ref, a read (a write
 * checks the project as it is now, not as it was before a possibly long upload), outside a transaction (which
 * reads on its own connection).
 */
function takeKnownProject(
  db: Db,
  actor: Actor,
  ref: string,
  options: ResolveOptions,
): KnownProject | undefined {
  const known = actor.knownProject;
  if (known === undefined) return undefined;
  actor.knownProject = undefined;
  return known.ref === ref && !options.write && !db.isTransaction ? known : undefined;
}

export interface ResolveOptions {
  /** The caller wants to change something in the project: an archived project is read-only (403). */
  write?: boolean;
}

/**
 * Resolves `{project_id}` (code in any letter case, or id) for the caller: 404 when it does not exist in
 * the tenant, 403 when the caller is not a member (D3), and 403 for writes to an archived project.
 * Every project-scoped module starts here.
 */
export async function resolveProject(
  db: Db,
  actor: Actor,
  ref: string,
  options: ResolveOptions = {},
): Promise<Project> {
  const known = takeKnownProject(db, actor, ref, options);
  const row = known ? known.row : await repo.findProjectByRef(db, actor.tenantId, ref);
  if (!row) throw notFound(`project "${ref}" not found`);
  if (!seesAll(actor) && !(known ? known.member : await repo.isMember(db, row.id, actor.userId))) {
    throw forbidden(`you have no access to project ${row.code}`);
  }
  if (options.write && row.archived_at) throw forbidden(`project ${row.code} is archived`);
  return toProject(row);
}

const CODE = /^[A-Za-z0-9]{2,5}$/;

function validateProjectInput(input: Partial<CreateProjectBody>): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (input.code !== undefined && !CODE.test(input.code))
    errors.push({ path: '/code', message: 'code must be 2-5 alphanumeric characters' });
  if (input.title !== undefined && (input.title.trim() === '' || input.title.length > 255)) {
    errors.push({ path: '/title', message: 'title must be 1-255 characters' });
  }
  if (input.overviewTitle !== undefined && input.overviewTitle.length > 255) {
    errors.push({ path: '/overviewTitle', message: 'overviewTitle must be at most 255 characters' });
  }
  (input.links ?? []).forEach((link, i) => {
    if (link.url.length > 255 || !isHttpUrl(link.url))
      errors.push({
        path: `/links/${i}/url`,
        message: 'link url must be an absolute http(s) URL of at most 255 characters',
      });
    if (link.text.length > 255)
      errors.push({ path: `/links/${i}/text`, message: 'link text must be at most 255 characters' });
  });
  return errors;
}

/** Creates a project (admin or owner, D3); codes and titles are unique in the tenant (409). The creator becomes a member. */
export async function createProject(db: Db, actor: Actor, input: CreateProjectBody): Promise<{ id: string }> {
  const errors = validateProjectInput(input);
  if (errors.length > 0) throw validationFailed(errors);
  const title = input.title.trim();
  const codeNorm = input.code.toUpperCase();
  const clash = await repo.findConflicting(db, actor.tenantId, codeNorm, title);
  const reportClash = (rows: typeof clash) => {
    const byCode = rows.find((r) => r.code_norm === codeNorm);
    // The field is named so a form can show the message beside it.
    const clashOn = (field: string, message: string) =>
      new AppError('CONFLICT', message, [{ path: field, message }]);
    if (byCode) return clashOn('/code', `a project with the code ${byCode.code} exists`);
    return clashOn('/title', `a project with the title "${title}" exists`);
  };
  if (clash.length > 0) throw reportClash(clash);
  const id = newUuid();
  const now = nowIso();
  const description = input.overviewDescription ?? input.description ?? '';
  try {
    await db.transaction().execute(async (trx) => {
      await repo.insertProject(trx, {
        id,
        tenant_id: actor.tenantId,
        code: input.code,
        code_norm: codeNorm,
        title,
        overview_title: input.overviewTitle ?? '',
        overview_description: sanitizeHtmlField(description),
        links: JSON.stringify((input.links ?? []).map((l) => ({ url: l.url, text: l.text }))),
        created_by: actor.userId,
        next_tcase_seq: 1,
        created_at: now,
        updated_at: now,
        archived_at: null,
      });
      await repo.insertMember(trx, actor.tenantId, id, actor.userId, now);
      // People who join every project (invited to all of them) are members of this one too.
      await repo.insertMembersJoiningNew(trx, actor.tenantId, id, now);
    });
  } catch (err) {
    // Two creators raced past the check above; the unique constraint decided.
    if (isUniqueViolation(err))
      throw reportClash(await repo.findConflicting(db, actor.tenantId, codeNorm, title));
    throw err;
  }
  return { id };
}

/**
 * Edits a project's title, overview and links (docs/api-decisions.md#project-edits): admin or owner like the
 * rest of project administration (D3); an archived project is read-only (403). The title stays unique in the
 * tenant (409). No audit event: the event table has none for it (D25).
 */
export async function updateProject(
  db: Db,
  actor: Actor,
  ref: string,
  input: UpdateProjectBody,
): Promise<Project> {
  const errors = validateProjectInput(input);
  if (input.overviewDescription !== undefined && input.description !== undefined) {
    errors.push({
      path: '/description',
      message: 'send overviewDescription or its alias description, not both',
    });
  }
  if (errors.length > 0)
    throw new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);
  const project = await resolveProject(db, actor, ref, { write: true });
  const title = input.title?.trim();
  const clashMessage = () => `a project with the title "${title}" exists`;
  if (title !== undefined && title !== project.title) {
    // '' matches no code (codes have 2-5 characters): only the title is checked.
    const clash = await repo.findConflicting(db, actor.tenantId, '', title);
    if (clash.some((r) => r.id !== project.id && r.title === title)) throw conflict(clashMessage());
  }
  const values: Parameters<typeof repo.updateProject>[3] = { updated_at: nowIso() };
  if (title !== undefined) values.title = title;
  if (input.overviewTitle !== undefined) values.overview_title = input.overviewTitle;
  const description = input.overviewDescription ?? input.description;
  if (description !== undefined) values.overview_description = sanitizeHtmlField(description);
  if (input.links !== undefined) {
    values.links = JSON.stringify(input.links.map((l) => ({ url: l.url, text: l.text })));
  }
  try {
    await repo.updateProject(db, actor.tenantId, project.id, values);
  } catch (err) {
    // A concurrent edit or creation took the title after the check: the unique constraint decided.
    if (isUniqueViolation(err)) throw conflict(clashMessage());
    throw err;
  }
  return resolveProject(db, actor, project.id);
}

/** Grants a user access to a project (D3 visibility for non-admins). */
export async function addMember(db: Db, tenantId: string, projectId: string, userId: number): Promise<void> {
  await repo.insertMember(db, tenantId, projectId, userId, nowIso());
}

/** Makes a user a member of every project, those made later too (an invitation to all projects). */
export async function joinAllProjects(db: Db, tenantId: string, userId: number): Promise<void> {
  await repo.insertMemberOfAll(db, tenantId, userId, nowIso());
  await setJoinsNewProjects(db, tenantId, userId, true);
}

/** The projects named by id or code, in the order named; 400 naming the first that is not one (at `path`). */
export async function projectsByRefs(
  db: Db,
  tenantId: string,
  refs: string[],
  path: string,
): Promise<{ id: string; code: string; title: string }[]> {
  const found = await repo.findProjectsByRefs(db, tenantId, refs);
  return refs.map((ref, i) => {
    const p = found.find((f) => f.id === ref || f.code.toUpperCase() === ref.toUpperCase());
    if (!p) throw badRequest(`project "${ref}" not found`, `${path}/${i}`);
    return p;
  });
}

/** The projects among `ids` that exist (in no particular order). */
export const projectsByIds = (
  db: Db,
  tenantId: string,
  ids: string[],
): Promise<{ id: string; code: string; title: string }[]> => repo.findProjectsByRefs(db, tenantId, ids);

/** Hands out `count` consecutive sequence numbers of the project; call inside the creating transaction. */
export const allocateTcaseSeqs = (db: Db, projectId: string, count: number): Promise<number> =>
  repo.allocateSeqs(db, projectId, count);

// ---- administration (archive, delete, members) ----

const projectMeta = (p: Project) => ({ project_id: p.id, project_code: p.code, project_title: p.title });

/** Archives a project: it stays readable and every write to it is a 403 (docs/api-decisions.md#archived-projects); audit `archive_project` (D25). */
export async function archiveProject(db: Db, actor: Actor, ref: string): Promise<Project> {
  return setArchived(db, actor, ref, true);
}

/** Makes an archived project writable again; audit `unarchive_project` (D25). */
export async function unarchiveProject(db: Db, actor: Actor, ref: string): Promise<Project> {
  return setArchived(db, actor, ref, false);
}

async function setArchived(db: Db, actor: Actor, ref: string, archived: boolean): Promise<Project> {
  const project = await resolveProject(db, actor, ref);
  if ((project.archivedAt !== null) === archived) {
    throw conflict(`project ${project.code} is ${archived ? 'already' : 'not'} archived`);
  }
  const now = nowIso();
  await db.transaction().execute(async (trx) => {
    await repo.updateProject(trx, actor.tenantId, project.id, {
      archived_at: archived ? now : null,
      updated_at: now,
    });
    await recordAudit(trx, actor, archived ? 'archive_project' : 'unarchive_project', projectMeta(project));
  });
  return resolveProject(db, actor, project.id);
}

/** Deletes a project and everything in it (cascading foreign keys), archived or not; audit `delete_project` (D25). */
export async function deleteProject(db: Db, actor: Actor, ref: string): Promise<void> {
  const project = await resolveProject(db, actor, ref);
  await db.transaction().execute(async (trx) => {
    await repo.removeProject(trx, actor.tenantId, project.id);
    await recordAudit(trx, actor, 'delete_project', projectMeta(project));
  });
}

/**
 * What the project holds, for the confirmations that name what archiving or deleting concerns
 * (docs/api-decisions.md#what-a-project-holds): one count per table, archived projects too.
 */
export async function countProjectContents(db: Db, actor: Actor, ref: string): Promise<ProjectCounts> {
  const project = await resolveProject(db, actor, ref);
  const cases = await repo.countLiveCases(db, project.id);
  const runs = await repo.countRuns(db, project.id);
  const results = await repo.countResults(db, project.id);
  const files = await repo.countCaseFiles(db, actor.tenantId, project.id);
  return { cases, ...runs, results, ...files };
}

/** The users granted access to the project (D3: they see it although they are not admins). */
export async function listMembers(db: Db, actor: Actor, ref: string): Promise<ProjectMember[]> {
  const project = await resolveProject(db, actor, ref);
  return (await repo.listMembers(db, actor.tenantId, project.id)).map((r) => ({
    userId: r.id,
    name: r.name,
    email: r.email,
    role: r.role,
    createdAt: r.created_at,
  }));
}

/** Grants a user access to the project (D3); granting twice changes nothing. Unknown or deactivated user: 400. */
export async function grantAccess(db: Db, actor: Actor, ref: string, userId: number): Promise<void> {
  const project = await resolveProject(db, actor, ref);
  const user = await findUserOrUndefined(db, actor.tenantId, userId);
  if (!user) throw badRequest(`user ${userId} not found`, '/userId');
  if (!user.active) throw badRequest(`user ${user.email} is deactivated`, '/userId');
  await repo.insertMember(db, actor.tenantId, project.id, userId, nowIso());
}

/** Revokes a user's access (D3); 404 when the user is not a member. */
export async function revokeAccess(db: Db, actor: Actor, ref: string, userId: number): Promise<void> {
  const project = await resolveProject(db, actor, ref);
  const result = await repo.removeMember(db, actor.tenantId, project.id, userId);
  if (Number(result.numDeletedRows) === 0) {
    throw notFound(`user ${userId} is not a member of project ${project.code}`);
  }
}

async function findUserOrUndefined(db: Db, tenantId: string, userId: number) {
  try {
    return await getUser(db, tenantId, userId);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}
