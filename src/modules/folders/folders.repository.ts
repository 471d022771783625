import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { FoldersTable } from '../../db/schema.js';
import { lockKeyForTransaction } from '../../db/dialect.js';

/** Every folder of a project: trees are ordered and filtered in memory (one query, same order on both databases). */
export const listProjectFolders = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('folders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .execute();

/**
 * Live test cases per folder of a project, in one grouped statement read from one index alone
 * (tcases_live_folder_idx, migration 0033). A read of the test-case module's table, kept here for speed (docs/architecture.md): the folder
 * list with counts is one statement for the tree and one for the counts, whatever the number of folders.
 */
export const countTcasesByFolder = async (db: Db, tenantId: string, projectId: string) =>
  (
    await db
      .selectFrom('tcases')
      .select(['folder_id', (eb) => eb.fn.countAll().as('n')])
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .groupBy('folder_id')
      .execute()
  ).map((r) => ({ folderId: r.folder_id, count: Number(r.n) }));

/** The parent links only, for walking subtrees and paths. */
export const listProjectFolderLinks = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('folders')
    .select(['id', 'parent_id'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .execute();

export const findFolder = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('folders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export const listFoldersByIds = (db: Db, tenantId: string, projectId: string, ids: number[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('folders')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('id', 'in', ids)
        .where('deleted_at', 'is', null)
        .execute();

export const findChildByTitle = (
  db: Db,
  tenantId: string,
  projectId: string,
  parentId: number,
  title: string,
) =>
  db
    .selectFrom('folders')
    .select(['id'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('parent_id', '=', parentId)
    .where('title', '=', title)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export const maxSiblingPos = async (db: Db, tenantId: string, projectId: string, parentId: number) => {
  const row = await db
    .selectFrom('folders')
    .select((eb) => eb.fn.max('pos').as('max'))
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('parent_id', '=', parentId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.max === null || row?.max === undefined ? -1 : Number(row.max);
};

/**
 * Inserts a folder unless a sibling of that title exists (the unique constraint `folders_sibling_title_uq`
 * decides between concurrent callers); returns the new id, or undefined when it already existed.
 */
export const insertFolderIfAbsent = async (db: Db, row: Insertable<FoldersTable>) =>
  (
    await db
      .insertInto('folders')
      .values(row)
      .onConflict((oc) => oc.columns(['project_id', 'parent_id', 'title']).doNothing())
      .returning('id')
      .executeTakeFirst()
  )?.id;

export const updateFolderComment = (
  db: Db,
  tenantId: string,
  projectId: string,
  id: number,
  comment: string,
  at: string,
) =>
  db
    .updateTable('folders')
    .set({ comment, updated_at: at })
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();

/** Until the transaction ends, no other one computes a new folder position in this project (maxSiblingPos). */
export const lockSiblingPositions = (db: Db, projectId: string) =>
  lockKeyForTransaction(db, `folders:${projectId}`);

/** Live children of a parent (0: the roots), in sibling order. */
export const listSiblings = (db: Db, tenantId: string, projectId: string, parentId: number) =>
  db
    .selectFrom('folders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('parent_id', '=', parentId)
    .where('deleted_at', 'is', null)
    .orderBy('pos')
    .orderBy('id')
    .execute();

export const updateFolder = (
  db: Db,
  tenantId: string,
  projectId: string,
  id: number,
  values: Updateable<FoldersTable>,
) =>
  db
    .updateTable('folders')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();

/** Tombstones folders: deleted_at set, and each leaves its siblings' title namespace (parent_id = -id). */
export const markFoldersDeleted = async (
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
  at: string,
) => {
  if (ids.length === 0) return;
  await db
    .updateTable('folders')
    .set((eb) => ({ deleted_at: at, updated_at: at, parent_id: eb.neg(eb.ref('id')) }))
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
};
