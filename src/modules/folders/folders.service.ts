import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { FoldersTable } from '../../db/schema.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict, notFound, type ErrorDetail, validationFailed } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './folders.repository.js';
import {
  FOLDER_SORT_FIELDS,
  type BulkFoldersBody,
  type Folder,
  type FolderList,
  type FolderListQuery,
  type FolderSortColumn,
  type ListedFolder,
  type UpdateFolderBody,
} from './folders.schemas.js';

type FolderRow = Selectable<FoldersTable>;

export const toFolder = (row: FolderRow): Folder => ({
  id: row.id,
  projectId: row.project_id,
  parentId: row.parent_id,
  pos: row.pos,
  title: row.title,
  comment: row.comment,
});

const bySiblingOrder = (a: FolderRow, b: FolderRow) => a.pos - b.pos || a.id - b.id;

/** D12: depth-first, parents before children, siblings by pos (then id); folders whose parent is gone come last. */
function depthFirst(rows: FolderRow[]): FolderRow[] {
  const children = new Map<number, FolderRow[]>();
  for (const row of rows) {
    const list = children.get(row.parent_id) ?? [];
    list.push(row);
    children.set(row.parent_id, list);
  }
  for (const list of children.values()) list.sort(bySiblingOrder);
  const out: FolderRow[] = [];
  const seen = new Set<number>();
  const visit = (parentId: number) => {
    // An explicit stack: deep trees must not overflow the call stack.
    const stack = [...(children.get(parentId) ?? [])].reverse();
    while (stack.length > 0) {
      const row = stack.pop()!;
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      out.push(row);
      const kids = children.get(row.id);
      if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
  };
  visit(0);
  for (const row of [...rows].sort(bySiblingOrder)) if (!seen.has(row.id)) visit(row.parent_id);
  return out;
}

function compareBy(column: FolderSortColumn) {
  return (a: FolderRow, b: FolderRow): number => {
    const x = a[column];
    const y = b[column];
    if (x === y) return 0;
    return x < y ? -1 : 1;
  };
}

/** Which slice of the list a query asks for; undefined means the whole list (D12). */
function pagination(query: FolderListQuery): { offset: number; limit: number } | undefined {
  const { offset, limit, page } = query;
  if (offset === undefined && limit === undefined && page === undefined) return undefined;
  // docs/api-decisions.md#folders: page is ignored when offset is set; with page and no limit the page size is 10.
  const applied = limit ?? (page !== undefined && offset === undefined ? 10 : 5000);
  return { offset: offset ?? (page !== undefined ? (page - 1) * applied : 0), limit: applied };
}

/** The 1-based page the slice falls on; with limit 0 there are no pages, so a page that was sent stands. */
function pageOf(slice: { offset: number; limit: number }, query: FolderListQuery): number {
  if (slice.limit === 0) return query.offset === undefined ? (query.page ?? 1) : 1;
  return Math.floor(slice.offset / slice.limit) + 1;
}

/**
 * Lists a project's folders (docs/api-decisions.md#folders): D12 depth-first tree without pagination,
 * `search` (case-insensitive title substring), `sortField`/`sortOrder`, offset/limit/deprecated page.
 */
export async function listFolders(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: FolderListQuery,
): Promise<FolderList> {
  if (query.sortOrder !== undefined && query.sortField === undefined) {
    throw badRequest('sortOrder requires sortField', '/sortOrder');
  }
  const project = await resolveProject(db, actor, projectRef);
  let rows = depthFirst(await repo.listProjectFolders(db, actor.tenantId, project.id));
  // Counted over the whole tree before search and pagination narrow it: a subfolder left out still counts.
  const counts = query.withCounts
    ? caseCounts(rows, await repo.countTcasesByFolder(db, actor.tenantId, project.id))
    : undefined;
  const listed = (row: FolderRow): ListedFolder =>
    counts
      ? { ...toFolder(row), ...(counts.get(row.id) ?? { tcaseCount: 0, subtreeTcaseCount: 0 }) }
      : toFolder(row);
  if (query.search !== undefined && query.search !== '') {
    const needle = query.search.toLowerCase();
    rows = rows.filter((r) => r.title.toLowerCase().includes(needle));
  }
  if (query.sortField !== undefined) {
    const column = FOLDER_SORT_FIELDS[query.sortField as keyof typeof FOLDER_SORT_FIELDS];
    const compare = compareBy(column);
    const sign = query.sortOrder === 'desc' ? -1 : 1;
    // Ties keep a stable order by id, so pages never overlap.
    rows = [...rows].sort((a, b) => sign * compare(a, b) || a.id - b.id);
  }
  const total = rows.length;
  const slice = pagination(query);
  if (!slice) return { total, data: rows.map(listed) };
  // D12 (revised): a paginated answer echoes all three; the official MCP server requires `page`.
  return {
    total,
    offset: slice.offset,
    limit: slice.limit,
    page: pageOf(slice, query),
    data: rows.slice(slice.offset, slice.offset + slice.limit).map(listed),
  };
}

/**
 * docs/api-decisions.md#folder-case-counts: each folder's own live cases and those of its whole subtree. `rows`
 * is depth-first (every folder before its descendants), so walking it backwards adds each subtree to its parent
 * once it is complete: linear in folders, no query per folder.
 */
function caseCounts(
  rows: FolderRow[],
  own: { folderId: number; count: number }[],
): Map<number, { tcaseCount: number; subtreeTcaseCount: number }> {
  const direct = new Map(own.map((c) => [c.folderId, c.count]));
  const out = new Map<number, { tcaseCount: number; subtreeTcaseCount: number }>();
  for (const row of rows) {
    const n = direct.get(row.id) ?? 0;
    out.set(row.id, { tcaseCount: n, subtreeTcaseCount: n });
  }
  for (let i = rows.length - 1; i >= 0; i--) {
    const parent = out.get(rows[i].parent_id);
    if (parent) parent.subtreeTcaseCount += out.get(rows[i].id)!.subtreeTcaseCount;
  }
  return out;
}

/** A folder of the project, or NOT_FOUND. */
export async function getFolder(
  db: Db,
  tenantId: string,
  projectId: string,
  folderId: number,
): Promise<Folder> {
  const row = await repo.findFolder(db, tenantId, projectId, folderId);
  if (!row) throw notFound(`folder ${folderId} not found`);
  return toFolder(row);
}

export async function folderExists(
  db: Db,
  tenantId: string,
  projectId: string,
  folderId: number,
): Promise<boolean> {
  return (await repo.findFolder(db, tenantId, projectId, folderId)) !== undefined;
}

/** Folders of the project with these ids (unknown ids are simply absent), in the order of `ids`. */
export async function listFoldersByIds(
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
): Promise<Folder[]> {
  const unique = [...new Set(ids)];
  const rows = await repo.listFoldersByIds(db, tenantId, projectId, unique);
  const byId = new Map(rows.map((r) => [r.id, toFolder(r)]));
  return unique.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/** The given folders and all their descendants (folder filters "include subfolders"); unknown ids are dropped. */
export async function subtreeFolderIds(
  db: Db,
  tenantId: string,
  projectId: string,
  folderIds: number[],
): Promise<number[]> {
  if (folderIds.length === 0) return [];
  const links = await repo.listProjectFolderLinks(db, tenantId, projectId);
  const children = new Map<number, number[]>();
  const known = new Set<number>();
  for (const { id, parent_id } of links) {
    known.add(id);
    const list = children.get(parent_id) ?? [];
    list.push(id);
    children.set(parent_id, list);
  }
  const out = new Set<number>();
  const stack = folderIds.filter((id) => known.has(id));
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    for (const child of children.get(id) ?? []) stack.push(child);
  }
  return [...out].sort((a, b) => a - b);
}

/** The folders from the root down to `folderId` (root first); NOT_FOUND when the folder does not exist. */
export async function folderPath(
  db: Db,
  tenantId: string,
  projectId: string,
  folderId: number,
): Promise<Folder[]> {
  const rows = await repo.listProjectFolders(db, tenantId, projectId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  if (!byId.has(folderId)) throw notFound(`folder ${folderId} not found`);
  const path: Folder[] = [];
  const seen = new Set<number>();
  for (let row = byId.get(folderId); row && !seen.has(row.id); row = byId.get(row.parent_id)) {
    seen.add(row.id);
    path.push(toFolder(row));
  }
  return path.reverse();
}

export const FOLDER_NAME_MAX = 255;

/** docs/api-decisions.md#folders: the path is not empty, each name is 1-255 characters and not blank. */
function validatePaths(folders: { path: string[] }[], pointer: (i: number) => string): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  folders.forEach(({ path }, i) => {
    if (path.length === 0) {
      errors.push({ path: pointer(i), message: 'a folder path must name at least one folder' });
    }
    path.forEach((name, j) => {
      if (name.trim() === '' || name.length > FOLDER_NAME_MAX) {
        errors.push({
          path: `${pointer(i)}/${j}`,
          message: `folder name must be 1-${FOLDER_NAME_MAX} characters and not blank`,
        });
      }
    });
  });
  return errors;
}

export interface UpsertOptions {
  /** JSON pointer of the i-th path in the request, for error details; default `/folders/i/path`. */
  pointer?: (i: number) => string;
  /** Receives the id of every folder this call created (not those found, nor a concurrent caller's). */
  created?: number[];
}

/**
 * Creates or updates folders by path (docs/api-decisions.md#folders): ids root→leaf per
 * path; missing folders are created (pos = max sibling pos + 1); existing ones keep id, parent and pos;
 * only an existing leaf's comment changes, and null/absent keeps it. Idempotent,
 * one transaction (joins the caller's), and safe against concurrent identical calls.
 */
export async function upsertFolderPaths(
  db: Db,
  tenantId: string,
  projectId: string,
  folders: { path: string[]; comment?: string | null }[],
  options: UpsertOptions = {},
): Promise<number[][]> {
  const errors = validatePaths(folders, options.pointer ?? ((i) => `/folders/${i}/path`));
  if (errors.length > 0) {
    throw validationFailed(errors, errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  }
  const work = (trx: Db) => upsertInTransaction(trx, tenantId, projectId, folders, options.created);
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

async function upsertInTransaction(
  db: Db,
  tenantId: string,
  projectId: string,
  folders: { path: string[]; comment?: string | null }[],
  createdIds: number[] = [],
): Promise<number[][]> {
  const key = (parentId: number, title: string) => `${parentId}\u0000${title}`;
  // comment undefined: created by a concurrent request, its comment unknown here.
  const known = new Map<string, { id: number; comment: string | undefined }>();
  const load = async () => {
    for (const row of await repo.listProjectFolders(db, tenantId, projectId)) {
      known.set(key(row.parent_id, row.title), { id: row.id, comment: row.comment });
    }
  };
  await load();
  const missing = folders.some(({ path }) => {
    let parentId = 0;
    for (const title of path) {
      const folder = known.get(key(parentId, title));
      if (!folder) return true;
      parentId = folder.id;
    }
    return false;
  });
  if (missing) {
    // Two requests creating different folders under one parent would read the same largest pos. The lock comes
    // before any other write of this transaction (so it never waits holding a folder row), then a fresh read.
    await repo.lockSiblingPositions(db, projectId);
    await load();
  }
  const now = nowIso();
  const ids: number[][] = [];
  const commentUpdates = new Map<number, string>();
  for (const { path, comment } of folders) {
    const leafComment = typeof comment === 'string' ? sanitizeHtmlField(comment) : undefined;
    const chain: number[] = [];
    let parentId = 0;
    for (let j = 0; j < path.length; j++) {
      const title = path[j];
      const isLeaf = j === path.length - 1;
      let folder = known.get(key(parentId, title));
      if (!folder) {
        const pos = (await repo.maxSiblingPos(db, tenantId, projectId, parentId)) + 1;
        const created = await repo.insertFolderIfAbsent(db, {
          tenant_id: tenantId,
          project_id: projectId,
          parent_id: parentId,
          title,
          comment: isLeaf ? (leafComment ?? '') : '',
          pos,
          created_at: now,
          updated_at: now,
        });
        if (created !== undefined) {
          folder = { id: created, comment: isLeaf ? (leafComment ?? '') : '' };
          createdIds.push(created);
        } else {
          // A concurrent request created it first: use theirs.
          const found = await repo.findChildByTitle(db, tenantId, projectId, parentId, title);
          if (!found) throw new Error(`folder "${title}" vanished during upsert`);
          folder = { id: found.id, comment: undefined };
        }
        known.set(key(parentId, title), folder);
      }
      if (isLeaf && leafComment !== undefined && folder.comment !== leafComment) {
        commentUpdates.set(folder.id, leafComment);
        folder.comment = leafComment;
      }
      chain.push(folder.id);
      parentId = folder.id;
    }
    ids.push(chain);
  }
  // In id order: two requests updating the same folders lock them in the same order (no deadlock).
  for (const [id, text] of [...commentUpdates].sort((x, y) => x[0] - y[0])) {
    await repo.updateFolderComment(db, tenantId, projectId, id, text, now);
  }
  return ids;
}

/** POST folder/bulk for an API caller: write access to the project (403 archived), then the upsert. */
export async function bulkUpsertFolders(
  db: Db,
  actor: Actor,
  projectRef: string,
  body: BulkFoldersBody,
): Promise<{ ids: number[][] }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  return { ids: await upsertFolderPaths(db, actor.tenantId, project.id, body.folders) };
}

/** Checks a folder name: 1-255 characters, not blank (docs/api-decisions.md#folders). */
function checkName(title: string, path: string): void {
  if (title.trim() === '' || title.length > FOLDER_NAME_MAX) {
    throw badRequest(`folder name must be 1-${FOLDER_NAME_MAX} characters and not blank`, path);
  }
}

/**
 * Renames, moves, reorders a folder and changes its comment (docs/api-decisions.md#folder-edits), in one
 * transaction under the project's folder-position lock, so concurrent edits of one tree see each other's
 * result: no cycle from two crossing moves, no two siblings given one position.
 * `parentId` 0 makes it a root; a folder never moves into its own subtree (400). `pos` is its 0-based index
 * among its siblings after the edit (clamped to the end); siblings are renumbered 0..n-1. A move without `pos`
 * puts it last. A title taken by a sibling is a 409.
 */
export async function updateFolder(
  db: Db,
  actor: Actor,
  projectRef: string,
  folderId: number,
  input: UpdateFolderBody,
): Promise<Folder> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  if (input.title !== undefined) checkName(input.title, '/title');
  const tenantId = actor.tenantId;
  const at = nowIso();
  return db.transaction().execute(async (trx) => {
    await repo.lockSiblingPositions(trx, project.id);
    const row = await repo.findFolder(trx, tenantId, project.id, folderId);
    if (!row) throw notFound(`folder ${folderId} not found`);
    const parentId = input.parentId ?? row.parent_id;
    const title = input.title ?? row.title;
    const moved = parentId !== row.parent_id;
    if (moved && parentId !== 0) {
      const links = await repo.listProjectFolderLinks(trx, tenantId, project.id);
      const parentOf = new Map(links.map((l) => [l.id, l.parent_id]));
      if (!parentOf.has(parentId))
        throw badRequest(`folder ${parentId} not found in this project`, '/parentId');
      // Walking up from the new parent must not meet the folder itself.
      const seen = new Set<number>();
      for (let id = parentId; id !== 0 && !seen.has(id); id = parentOf.get(id) ?? 0) {
        if (id === folderId) {
          throw badRequest(
            `folder ${folderId} cannot move into itself or one of its subfolders`,
            '/parentId',
          );
        }
        seen.add(id);
      }
    }
    if (moved || title !== row.title) {
      const clash = await repo.findChildByTitle(trx, tenantId, project.id, parentId, title);
      if (clash && clash.id !== folderId) {
        throw conflict(`a folder named "${title}" already exists there (folder ${clash.id})`);
      }
    }
    const values: { title?: string; parent_id?: number; comment?: string; updated_at: string } = {
      updated_at: at,
    };
    if (title !== row.title) values.title = title;
    if (moved) values.parent_id = parentId;
    if (input.comment !== undefined) values.comment = sanitizeHtmlField(input.comment);
    let pos = row.pos;
    if (moved || input.pos !== undefined) {
      const siblings = (await repo.listSiblings(trx, tenantId, project.id, parentId)).filter(
        (s) => s.id !== folderId,
      );
      const index = Math.min(input.pos ?? siblings.length, siblings.length);
      const order = [
        ...siblings.slice(0, index).map((s) => s.id),
        folderId,
        ...siblings.slice(index).map((s) => s.id),
      ];
      const current = new Map(siblings.map((s) => [s.id, s.pos]));
      // Only siblings whose position changes are written, in id order (the same lock order for every writer).
      const writes = order
        .map((id, i) => ({ id, pos: i }))
        .filter(({ id, pos: p }) => id !== folderId && current.get(id) !== p)
        .sort((a, b) => a.id - b.id);
      for (const w of writes) {
        await repo.updateFolder(trx, tenantId, project.id, w.id, { pos: w.pos, updated_at: at });
      }
      pos = index;
    }
    await repo.updateFolder(trx, tenantId, project.id, folderId, { ...values, pos });
    return toFolder({ ...row, ...values, pos });
  });
}

/**
 * The folder and the ids of its whole subtree (itself included, by id), for deletion (test-cases/folder-delete/folder-delete.service.ts), or
 * NOT_FOUND. Call inside the deleting transaction, after lockForTreeChange.
 */
export async function folderSubtree(
  db: Db,
  tenantId: string,
  projectId: string,
  folderId: number,
): Promise<{ folder: Folder; ids: number[] }> {
  const row = await repo.findFolder(db, tenantId, projectId, folderId);
  if (!row) throw notFound(`folder ${folderId} not found`);
  return { folder: toFolder(row), ids: await subtreeFolderIds(db, tenantId, projectId, [folderId]) };
}

/** Until the transaction ends, no other transaction moves, creates or deletes folders of the project. */
export const lockForTreeChange = (db: Db, projectId: string) => repo.lockSiblingPositions(db, projectId);

/** Tombstones folders (see FoldersTable.deleted_at): they leave every list, path and filter. */
export const markFoldersDeleted = (db: Db, tenantId: string, projectId: string, ids: number[], at: string) =>
  repo.markFoldersDeleted(db, tenantId, projectId, ids, at);
