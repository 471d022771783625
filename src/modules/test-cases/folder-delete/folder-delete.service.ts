import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { conflict } from '../../../errors.js';
import { nowIso } from '../../../lib/time.js';
import { resolveProject } from '../../projects/projects.service.js';
import { folderSubtree, lockForTreeChange, markFoldersDeleted } from '../../folders/folders.service.js';
import type { DeletedFolder } from '../../folders/folders.schemas.js';
import {
  deleteCasesById,
  liveCasesInFolders,
  lockTcaseWrites,
  type TcasesChanged,
} from '../test-cases.service.js';

/*
 * Deleting a folder deletes its test cases, so it lives with test cases (which use folders), never in the folders
 * module: that would make the two module folders import each other. The route is in test-cases.routes.ts.
 */

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Deletes a folder (docs/api-decisions.md#folder-deletion). Without `recursive` only an empty folder goes: one
 * holding subfolders or live test cases is a 409 naming how many, so nothing disappears by surprise. With
 * `recursive` the whole subtree goes and its test cases are deleted as deleting one does (soft: runs keep their
 * results; live runs drop them, D17). Folders become tombstones (soft-deleted cases still point at them).
 */
export async function deleteFolder(
  db: Db,
  actor: Actor,
  projectRef: string,
  folderId: number,
  recursive: boolean,
  tcasesChanged: TcasesChanged,
): Promise<DeletedFolder> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const tenantId = actor.tenantId;
  return db.transaction().execute(async (trx) => {
    // The same order as test-case writes that create folders (project row, then folder positions).
    await lockTcaseWrites(trx, project.id);
    await lockForTreeChange(trx, project.id);
    const { folder, ids } = await folderSubtree(trx, tenantId, project.id, folderId);
    const tcaseIds = await liveCasesInFolders(trx, tenantId, project.id, ids);
    const subfolders = ids.length - 1;
    if (!recursive && (subfolders > 0 || tcaseIds.length > 0)) {
      throw conflict(
        `folder "${folder.title}" holds ${plural(subfolders, 'subfolder', 'subfolders')} and ` +
          `${plural(tcaseIds.length, 'test case', 'test cases')}; delete with recursive=true to delete them too`,
      );
    }
    if (tcaseIds.length > 0) await deleteCasesById(trx, tenantId, project.id, tcaseIds, tcasesChanged);
    await markFoldersDeleted(trx, tenantId, project.id, ids, nowIso());
    return {
      message: 'Folder deleted',
      deletedFolderIds: [folderId, ...ids.filter((id) => id !== folderId)],
      deletedTcaseCount: tcaseIds.length,
    };
  });
}
