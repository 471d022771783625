import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict, notFound, type ErrorDetail, validationFailed } from '../../errors.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './shared-items.repository.js';
import type { SharedItemHead, SharedItemKind } from './shared-items.repository.js';
import {
  SHARED_ITEM_SORT_FIELDS,
  type SharedItemListQuery,
  type SharedItemUserList,
} from './shared-items.schemas.js';

/**
 * The rules shared steps and shared preconditions have in common: lookups, use by test cases, unique live
 * titles, new versions and soft deletion. Each module keeps its content (sub-steps, text) and its API shape.
 */

export interface ItemRef {
  id: number;
  version: number;
}

/** The key of one item at one version in a loader's map. */
export const refKey = (id: number, version: number) => `${id}@${version}`;

/** Loads items at exact versions in their API shape, keyed by refKey; missing pairs are absent. */
export type ItemLoader<T> = (
  db: Db,
  tenantId: string,
  heads: SharedItemHead[],
  refs: ItemRef[],
) => Promise<Map<string, T>>;

/** Writes the content of a new version of item `id` (version rows and whatever hangs off them). */
export type VersionWriter = (trx: Db, id: number, version: number, at: string) => Promise<void>;

export const SHARED_ITEM_TITLE_MAX = 255;

/**
 * Checks the title (trimmed, 1-SHARED_ITEM_TITLE_MAX characters), then the rest of the content with
 * `checkRest`, which adds its own errors; any error makes one 400 VALIDATION_FAILED listing them all.
 */
export function validateContent<C extends { title: string }>(
  rawTitle: string,
  checkRest: (errors: ErrorDetail[]) => Omit<C, 'title'>,
): C {
  const errors: ErrorDetail[] = [];
  const title = rawTitle.trim();
  if (title === '' || title.length > SHARED_ITEM_TITLE_MAX) {
    errors.push({ path: '/title', message: `title must be 1-${SHARED_ITEM_TITLE_MAX} characters` });
  }
  const rest = checkRest(errors);
  if (errors.length > 0) throw validationFailed(errors);
  return { ...rest, title } as C;
}

const latestRefs = (heads: SharedItemHead[]) => heads.map((h) => ({ id: h.id, version: h.version }));

/**
 * 400 at `path` unless every id names a live item of this project (unknown, deleted or another project's are
 * refused). Returns each id's latest version, so a caller can record which version it showed.
 */
export async function assertUsable(
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
  path: string,
): Promise<Map<number, number>> {
  const distinct = [...new Set(ids)];
  // Locked: a concurrent delete waits for this transaction, then finds the item in use (409).
  const heads = distinct.length > 0 ? await repo.lockHeadsForUse(k, db, tenantId, distinct) : [];
  const byId = new Map(heads.map((h) => [h.id, h]));
  for (const id of distinct) {
    const head = byId.get(id);
    if (!head || head.project_id !== projectId) {
      throw badRequest(`${k.label} ${id} does not exist in this project`, path);
    }
    if (head.deleted_at) throw badRequest(`${k.label} ${id} was deleted`, path);
  }
  return new Map(heads.map((h) => [h.id, h.version]));
}

/** The latest version of each item, keyed by id. */
export async function getLatest<T extends { id: number }>(
  k: SharedItemKind,
  load: ItemLoader<T>,
  db: Db,
  tenantId: string,
  ids: number[],
): Promise<Map<number, T>> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return new Map();
  const heads = await repo.findHeads(k, db, tenantId, distinct);
  const found = await load(db, tenantId, heads, latestRefs(heads));
  return new Map([...found.values()].map((item) => [item.id, item]));
}

/** Items as they were at given versions; `result[i]` answers `refs[i]`. */
export async function getAtVersions<T>(
  k: SharedItemKind,
  load: ItemLoader<T>,
  db: Db,
  tenantId: string,
  refs: ItemRef[],
): Promise<(T | undefined)[]> {
  if (refs.length === 0) return [];
  const heads = await repo.findHeads(k, db, tenantId, [...new Set(refs.map((r) => r.id))]);
  const found = await load(db, tenantId, heads, refs);
  return refs.map((r) => found.get(refKey(r.id, r.version)));
}

/** The head of an item of the project, deleted or not; 404 otherwise. */
export async function findInProject(
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  id: number,
): Promise<SharedItemHead> {
  const head = await repo.findHead(k, db, tenantId, id);
  if (!head || head.project_id !== projectId) throw notFound(`${k.label} ${id} not found`);
  return head;
}

/** As findInProject, and 404 for a deleted one (it cannot change any more). */
export async function findLiveInProject(
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  id: number,
): Promise<SharedItemHead> {
  const head = await findInProject(k, db, tenantId, projectId, id);
  if (head.deleted_at) throw notFound(`${k.label} ${id} was deleted`);
  return head;
}

const titleTaken = (k: SharedItemKind, title: string, id: number) =>
  conflict(`a ${k.label} titled "${title}" exists in this project: ${k.label} ${id}`);

async function assertTitleFree(
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  title: string,
  self?: number,
) {
  const other = await repo.findLiveByTitle(k, db, tenantId, projectId, title);
  if (other && other.id !== self) throw titleTaken(k, title, other.id);
}

/** Runs a write; a unique-title race lost to another writer becomes the same 409 the pre-check gives. */
async function withTitleRace<T>(
  k: SharedItemKind,
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
      const other = await repo.findLiveByTitle(k, db, tenantId, projectId, title);
      if (other) throw titleTaken(k, title, other.id);
    }
    throw err;
  }
}

/** Lists a project's live items at their latest version (by id unless `sortField` says otherwise). */
export async function listItems<T>(
  k: SharedItemKind,
  load: ItemLoader<T>,
  db: Db,
  actor: Actor,
  projectRef: string,
  query: SharedItemListQuery,
): Promise<(T & { tcaseCount?: number })[]> {
  const project = await resolveProject(db, actor, projectRef);
  if (query.sortOrder && !query.sortField) throw badRequest('sortOrder needs sortField', '/sortOrder');
  const sortColumn = query.sortField
    ? SHARED_ITEM_SORT_FIELDS[query.sortField as keyof typeof SHARED_ITEM_SORT_FIELDS]
    : 'id';
  const withCount = (query.include ?? []).includes('tcaseCount');
  const heads = await repo.listLiveHeads(k, db, actor.tenantId, project.id, {
    sortColumn,
    desc: query.sortOrder === 'desc',
    withCount,
  });
  const found = await load(db, actor.tenantId, heads, latestRefs(heads));
  return heads.map((h) => {
    const item: T & { tcaseCount?: number } = { ...found.get(refKey(h.id, h.version))! };
    if (withCount) item.tcaseCount = Number(h.tcase_count ?? 0);
    return item;
  });
}

/** One item of the project at its latest version, or at `version` (old versions stay readable). */
export async function getItem<T>(
  k: SharedItemKind,
  load: ItemLoader<T>,
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  version?: number,
): Promise<T> {
  const project = await resolveProject(db, actor, projectRef);
  const head = await findInProject(k, db, actor.tenantId, project.id, id);
  const v = version ?? head.version;
  const found = (await load(db, actor.tenantId, [head], [{ id, version: v }])).get(refKey(id, v));
  if (!found) throw notFound(`${k.label} ${id} has no version ${v}`);
  return found;
}

/**
 * The live test cases whose latest version uses the item (deleted items too: the list is then empty or what
 * still shows it), by seq. 404 for another project's item, like getItem.
 */
export async function listUsers(
  k: SharedItemKind,
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
): Promise<SharedItemUserList> {
  const project = await resolveProject(db, actor, projectRef);
  await findInProject(k, db, actor.tenantId, project.id, id);
  const rows = await repo.listUsingTcases(k, db, actor.tenantId, id);
  return { tcases: rows.map((r) => ({ id: r.id, seq: r.seq, title: r.title, folderId: r.folder_id })) };
}

/** Creates an item at version 1; its title is unique among the project's live items (409). */
export async function createItem(
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  title: string,
  writeVersion: VersionWriter,
): Promise<{ id: number }> {
  await assertTitleFree(k, db, tenantId, projectId, title);
  const at = nowIso();
  const id = await withTitleRace(k, db, tenantId, projectId, title, () =>
    db.transaction().execute(async (trx) => {
      const newId = await repo.insertHead(k, trx, {
        tenant_id: tenantId,
        project_id: projectId,
        title,
        version: 1,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      });
      await writeVersion(trx, newId, 1, at);
      return newId;
    }),
  );
  return { id };
}

/** Makes version n+1 of a live item titled `title`; 409 for a taken title or a head that moved meanwhile. */
export async function writeNextVersion(
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  head: SharedItemHead,
  title: string,
  writeVersion: VersionWriter,
): Promise<void> {
  const { id, project_id: projectId } = head;
  if (title !== head.title) await assertTitleFree(k, db, tenantId, projectId, title, id);
  const at = nowIso();
  const version = head.version + 1;
  await withTitleRace(k, db, tenantId, projectId, title, () =>
    db.transaction().execute(async (trx) => {
      const moved = await repo.advanceHead(k, trx, tenantId, id, head.version, {
        title,
        version,
        updated_at: at,
      });
      if (!moved)
        throw conflict(`${k.label} ${id} was changed or deleted meanwhile; read it again and retry`);
      await writeVersion(trx, id, version, at);
    }),
  );
}

/**
 * What one kind of item says about its content (sub-steps, text): how a body is checked and written, how two
 * contents compare, and the content of an item as shown. The writes below are the same for both kinds.
 */
export interface ItemContent<In, C extends In & { title: string }, T> {
  load: ItemLoader<T>;
  /** Checks and sanitises a body (every problem in one 400). */
  validate(input: In): C;
  write(tenantId: string, content: C): VersionWriter;
  contentOf(item: T): C;
  same(a: C, b: C): boolean;
}

/** Creates an item of `content`'s kind at version 1 in the project; its title is unique among the live ones (409). */
export async function createWithContent<In, C extends In & { title: string }, T>(
  k: SharedItemKind,
  content: ItemContent<In, C, T>,
  db: Db,
  actor: Actor,
  projectRef: string,
  input: In,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const valid = content.validate(input);
  return createItem(k, db, actor.tenantId, project.id, valid.title, content.write(actor.tenantId, valid));
}

/**
 * Changes the given fields of an item: a changed content makes version n+1 (old versions stay readable); an
 * update that changes nothing makes no version. 404 for a deleted one; 409 for a taken title.
 */
export async function updateWithContent<In, C extends In & { title: string }, T>(
  k: SharedItemKind,
  content: ItemContent<In, C, T>,
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  patch: Partial<In>,
): Promise<T> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const head = await findLiveInProject(k, db, actor.tenantId, project.id, id);
  const current = (await content.load(db, actor.tenantId, [head], [{ id, version: head.version }])).get(
    refKey(id, head.version),
  )!;
  const was = content.contentOf(current);
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined && v !== null));
  const next = content.validate({ ...was, ...given });
  if (!content.same(next, was)) {
    await writeNextVersion(k, db, actor.tenantId, head, next.title, content.write(actor.tenantId, next));
  }
  return getItem(k, content.load, db, actor, project.id, id);
}

/** The ids among `ids` that name a live item of the project. */
export async function liveIdsInProject(
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
): Promise<Set<number>> {
  const heads = ids.length === 0 ? [] : await repo.findHeads(k, db, tenantId, [...new Set(ids)]);
  return new Set(heads.filter((h) => h.project_id === projectId && !h.deleted_at).map((h) => h.id));
}

/**
 * An import's item, inside its transaction: the live one titled as `input` (`same`: its latest content is the
 * input's), else one created at version 1 when `create` (undefined otherwise). The content is validated first (400).
 */
export async function findOrCreateForImport<In, C extends In & { title: string }, T>(
  k: SharedItemKind,
  content: ItemContent<In, C, T>,
  trx: Db,
  tenantId: string,
  projectId: string,
  input: In,
  create: boolean,
): Promise<{ id: number; same: boolean } | undefined> {
  const valid = content.validate(input);
  const found = await repo.findLiveByTitle(k, trx, tenantId, projectId, valid.title);
  if (found) {
    const heads = await repo.findHeads(k, trx, tenantId, [found.id]);
    const current = (await content.load(trx, tenantId, heads, latestRefs(heads))).get(
      refKey(found.id, heads[0].version),
    );
    return { id: found.id, same: current !== undefined && content.same(valid, content.contentOf(current)) };
  }
  if (!create) return undefined;
  const at = nowIso();
  const id = await repo.insertHead(k, trx, {
    tenant_id: tenantId,
    project_id: projectId,
    title: valid.title,
    version: 1,
    created_at: at,
    updated_at: at,
    deleted_at: null,
  });
  await content.write(tenantId, valid)(trx, id, 1, at);
  return { id, same: true };
}

/** Soft-deletes an item; 409 while the latest version of a live test case uses it. */
export async function deleteItem(
  k: SharedItemKind,
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  await db.transaction().execute(async (trx) => {
    // Locked first, so a test case that starts using it meanwhile is counted below (or waits and gets a 400).
    const head = await repo.lockHeadForDelete(k, trx, actor.tenantId, id);
    if (!head || head.project_id !== project.id) throw notFound(`${k.label} ${id} not found`);
    if (head.deleted_at) throw notFound(`${k.label} ${id} was deleted`);
    const used = await repo.countUsingTcases(k, trx, actor.tenantId, id);
    if (used > 0) throw conflict(`${k.label} ${id} is used by ${used} test case${used === 1 ? '' : 's'}`);
    await repo.markDeleted(k, trx, actor.tenantId, id, nowIso());
  });
}
