import type { Db } from '../../../db/create-db.js';
import { chunks } from '../../../lib/chunks.js';

/*
 * The few reads of a JUnit upload that no other module answers in one query per thousand names: test cases of the
 * project by seq, and the uploader's `cli-import` folder's cases by title. Only reads.
 */

/** Live test cases of the project with these seqs. */
export async function findTcasesBySeq(db: Db, tenantId: string, projectId: string, seqs: number[]) {
  const out: { id: string; seq: number }[] = [];
  for (const part of chunks(seqs)) {
    out.push(
      ...(await db
        .selectFrom('tcases')
        .select(['id', 'seq'])
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('seq', 'in', part)
        .where('deleted_at', 'is', null)
        .execute()),
    );
  }
  return out;
}

/** Live test cases in the root folder `folderTitle` whose title is one of `titles` (the first of equal titles). */
export async function findTcasesInRootFolderByTitle(
  db: Db,
  tenantId: string,
  projectId: string,
  folderTitle: string,
  titles: string[],
) {
  const folder = await db
    .selectFrom('folders')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('parent_id', '=', 0)
    .where('title', '=', folderTitle)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const out = new Map<string, string>();
  if (!folder) return out;
  for (const part of chunks(titles)) {
    const rows = await db
      .selectFrom('tcases')
      .select(['id', 'title'])
      .where('tenant_id', '=', tenantId)
      .where('folder_id', '=', folder.id)
      .where('title', 'in', part)
      .where('deleted_at', 'is', null)
      .orderBy('pos')
      .execute();
    for (const r of rows) if (!out.has(r.title)) out.set(r.title, r.id);
  }
  return out;
}
