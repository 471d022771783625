import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../http/auth.js';
import { AppError, badRequest, conflict, notFound, type ErrorDetail } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './shared-preconditions.repository.js';
import {
  SHARED_PRECONDITION_SORT_FIELDS,
  type CreateSharedPreconditionBody,
  type SharedPrecondition,
  type SharedPreconditionListItem,
  type SharedPreconditionListQuery,
  type UpdateSharedPreconditionBody,
} from './shared-preconditions.schemas.js';

export const SHARED_PRECONDITION_TITLE_MAX = 255;

type Head = NonNullable<Awaited<ReturnType<typeof repo.findHead>>>;
interface PreconditionRef {
  id: number;
  version: number;
}
interface Content {
  title: string;
  text: string;
}

/** Loads shared preconditions at exact versions in the API shape; missing pairs are absent. */
async function loadPreconditions(
  db: Db,
  tenantId: string,
  heads: Head[],
  refs: PreconditionRef[],
): Promise<Map<string, SharedPrecondition>> {
  const out = new Map<string, SharedPrecondition>();
  if (refs.length === 0) return out;
  const rows = await repo.findVersions(
    db,
    tenantId,
    [...new Set(refs.map((r) => r.id))],
    [...new Set(refs.map((r) => r.version))],
  );
  const headById = new Map(heads.map((h) => [h.id, h]));
  const byKey = new Map(rows.map((r) => [`${r.shared_precondition_id}@${r.version}`, r]));
  for (const ref of refs) {
    const k = `${ref.id}@${ref.version}`;
    const head = headById.get(ref.id);
    const row = byKey.get(k);
    if (!head || !row) continue;
    out.set(k, {
      projectId: head.project_id,
      id: head.id,
      version: row.version,
      isLatest: row.version === head.version,
      type: 'shared',
      title: row.title,
      text: row.text,
      createdAt: head.created_at,
      updatedAt: row.created_at,
      ...(head.deleted_at ? { deletedAt: head.deleted_at } : {}),
    });
  }
  return out;
}

/**
 * 400 unless every id names a live shared precondition of this project (unknown, deleted or another
 * project's are refused). Returns each id's latest version.
 */
export async function assertSharedPreconditionsUsable(
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
): Promise<Map<number, number>> {
  const distinct = [...new Set(ids)];
  // Locked: a concurrent delete waits for this transaction, then finds the step in use (409).
  const heads = distinct.length > 0 ? await repo.lockHeadsForUse(db, tenantId, distinct) : [];
  const byId = new Map(heads.map((h) => [h.id, h]));
  for (const id of distinct) {
    const head = byId.get(id);
    if (!head || head.project_id !== projectId) {
      throw badRequest(
        `shared precondition ${id} does not exist in this project`,
        '/precondition/sharedPreconditionId',
      );
    }
    if (head.deleted_at)
      throw badRequest(`shared precondition ${id} was deleted`, '/precondition/sharedPreconditionId');
  }
  return new Map(heads.map((h) => [h.id, h.version]));
}

/** The latest version of each shared precondition, keyed by id; deleted ones carry `deletedAt`. */
export async function getSharedPreconditions(
  db: Db,
  tenantId: string,
  ids: number[],
): Promise<Map<number, SharedPrecondition>> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return new Map();
  const heads = await repo.findHeads(db, tenantId, distinct);
  const found = await loadPreconditions(
    db,
    tenantId,
    heads,
    heads.map((h) => ({ id: h.id, version: h.version })),
  );
  return new Map([...found.values()].map((p) => [p.id, p]));
}

/** Shared preconditions as they were at given versions; `result[i]` answers `refs[i]`. */
export async function getSharedPreconditionsAtVersions(
  db: Db,
  tenantId: string,
  refs: PreconditionRef[],
): Promise<(SharedPrecondition | undefined)[]> {
  if (refs.length === 0) return [];
  const heads = await repo.findHeads(db, tenantId, [...new Set(refs.map((r) => r.id))]);
  const found = await loadPreconditions(db, tenantId, heads, refs);
  return refs.map((r) => found.get(`${r.id}@${r.version}`));
}

function validateContent(input: Content): Content {
  const errors: ErrorDetail[] = [];
  const title = input.title.trim();
  if (title === '' || title.length > SHARED_PRECONDITION_TITLE_MAX) {
    errors.push({ path: '/title', message: `title must be 1-${SHARED_PRECONDITION_TITLE_MAX} characters` });
  }
  const text = sanitizeHtmlField(input.text);
  if (text.trim() === '') errors.push({ path: '/text', message: 'text must not be empty' });
  if (errors.length > 0)
    throw new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);
  return { title, text };
}

const titleTaken = (title: string, id: number) =>
  conflict(`a shared precondition titled "${title}" exists in this project: shared precondition ${id}`);

async function assertTitleFree(db: Db, tenantId: string, projectId: string, title: string, self?: number) {
  const other = await repo.findLiveByTitle(db, tenantId, projectId, title);
  if (other && other.id !== self) throw titleTaken(title, other.id);
}

async function withTitleRace<T>(
  db: Db,
  tenantId: string,
  projectId: string,
  title: string,
  fn: () => Promise<T>,
) {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) {
      const other = await repo.findLiveByTitle(db, tenantId, projectId, title);
      if (other) throw titleTaken(title, other.id);
    }
    throw err;
  }
}

async function findInProject(db: Db, tenantId: string, projectId: string, id: number): Promise<Head> {
  const head = await repo.findHead(db, tenantId, id);
  if (!head || head.project_id !== projectId) throw notFound(`shared precondition ${id} not found`);
  return head;
}

/** Lists a project's live shared preconditions at their latest version (by id unless `sortField` says otherwise). */
export async function listSharedPreconditions(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: SharedPreconditionListQuery,
): Promise<SharedPreconditionListItem[]> {
  const project = await resolveProject(db, actor, projectRef);
  if (query.sortOrder && !query.sortField) throw badRequest('sortOrder needs sortField', '/sortOrder');
  const sortColumn = query.sortField
    ? SHARED_PRECONDITION_SORT_FIELDS[query.sortField as keyof typeof SHARED_PRECONDITION_SORT_FIELDS]
    : 'id';
  const withCount = (query.include ?? []).includes('tcaseCount');
  const heads = await repo.listLiveHeads(db, actor.tenantId, project.id, {
    sortColumn,
    desc: query.sortOrder === 'desc',
    withCount,
  });
  const found = await loadPreconditions(
    db,
    actor.tenantId,
    heads,
    heads.map((h) => ({ id: h.id, version: h.version })),
  );
  return heads.map((h) => {
    const item: SharedPreconditionListItem = { ...found.get(`${h.id}@${h.version}`)! };
    if (withCount) item.tcaseCount = Number((h as { tcase_count?: number }).tcase_count ?? 0);
    return item;
  });
}

/** One shared precondition of the project at its latest version, or at `version`. */
export async function getSharedPrecondition(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  version?: number,
): Promise<SharedPrecondition> {
  const project = await resolveProject(db, actor, projectRef);
  const head = await findInProject(db, actor.tenantId, project.id, id);
  const v = version ?? head.version;
  const found = (await loadPreconditions(db, actor.tenantId, [head], [{ id, version: v }])).get(`${id}@${v}`);
  if (!found) throw notFound(`shared precondition ${id} has no version ${v}`);
  return found;
}

/** Creates a shared precondition at version 1; its title is unique among the project's live ones (409). */
export async function createSharedPrecondition(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateSharedPreconditionBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const content = validateContent(input);
  await assertTitleFree(db, actor.tenantId, project.id, content.title);
  const at = nowIso();
  const id = await withTitleRace(db, actor.tenantId, project.id, content.title, () =>
    db.transaction().execute(async (trx) => {
      const newId = await repo.insertHead(trx, {
        tenant_id: actor.tenantId,
        project_id: project.id,
        title: content.title,
        version: 1,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      });
      await repo.insertVersion(trx, {
        tenant_id: actor.tenantId,
        shared_precondition_id: newId,
        version: 1,
        title: content.title,
        text: content.text,
        created_at: at,
      });
      return newId;
    }),
  );
  return { id };
}

/**
 * Changes a shared precondition: a changed title or text makes version n+1 (old versions stay readable);
 * an update that changes nothing makes no version. 404 for a deleted one; 409 for a taken title.
 */
export async function updateSharedPrecondition(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  input: UpdateSharedPreconditionBody,
): Promise<SharedPrecondition> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const head = await findInProject(db, actor.tenantId, project.id, id);
  if (head.deleted_at) throw notFound(`shared precondition ${id} was deleted`);
  const current = (await loadPreconditions(db, actor.tenantId, [head], [{ id, version: head.version }])).get(
    `${id}@${head.version}`,
  )!;
  const next = validateContent({ title: input.title ?? current.title, text: input.text ?? current.text });
  if (next.title !== current.title || next.text !== current.text) {
    if (next.title !== current.title) await assertTitleFree(db, actor.tenantId, project.id, next.title, id);
    const at = nowIso();
    const version = head.version + 1;
    await withTitleRace(db, actor.tenantId, project.id, next.title, () =>
      db.transaction().execute(async (trx) => {
        const moved = await repo.advanceHead(trx, actor.tenantId, id, head.version, {
          title: next.title,
          version,
          updated_at: at,
        });
        if (!moved) {
          throw conflict(
            `shared precondition ${id} was changed or deleted meanwhile; read it again and retry`,
          );
        }
        await repo.insertVersion(trx, {
          tenant_id: actor.tenantId,
          shared_precondition_id: id,
          version,
          title: next.title,
          text: next.text,
          created_at: at,
        });
      }),
    );
  }
  return getSharedPrecondition(db, actor, project.id, id);
}

/** Soft-deletes a shared precondition; 409 while the latest version of a live test case uses it. */
export async function deleteSharedPrecondition(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  await db.transaction().execute(async (trx) => {
    // Locked first, so a test case that starts using it meanwhile is counted below (or waits and gets a 400).
    const head = await repo.lockHeadForDelete(trx, actor.tenantId, id);
    if (!head || head.project_id !== project.id) throw notFound(`shared precondition ${id} not found`);
    if (head.deleted_at) throw notFound(`shared precondition ${id} was deleted`);
    const used = await repo.countUsingTcases(trx, actor.tenantId, id);
    if (used > 0)
      throw conflict(`shared precondition ${id} is used by ${used} test case${used === 1 ? '' : 's'}`);
    await repo.markDeleted(trx, actor.tenantId, id, nowIso());
  });
}
