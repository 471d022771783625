import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { nowIso } from '../../lib/time.js';
import { lockForTreeChange, markFoldersDeleted, subtreeFolderIds } from '../folders/folders.service.js';
import type { Project as ProjectShape } from '../projects/projects.schemas.js';
import {
  deleteCasesById,
  liveCasesInFolders,
  lockTcaseWrites,
  restoreImportedRemovals,
  revertImportedCases,
  type TcasesChanged,
} from '../test-cases/test-cases.service.js';
import { enqueueEvent } from '../webhooks/webhook-events.service.js';
import * as repo from './imports.repository.js';

/* Taking back what an import wrote (imports.pipeline.ts), when it stops part-way or another attempt takes it over. */

type Project = ProjectShape & { tenantId: string };

/**
 * Takes back, in one transaction, what earlier attempts or this one wrote: the cases created are deleted (as deleting
 * a case does), the cases changed get their earlier content as a new version, the filled cases deleted (a template's
 * Parameter Values no longer naming them) are restored, the folders created are deleted
 * deepest first when they hold no live case or folder (another writer may have put something there meanwhile).
 * Answers what it took back.
 */
export async function removeCreated(
  db: Db,
  actor: Actor,
  importId: number,
  project: Project,
  tcasesChanged: TcasesChanged,
) {
  const ids = await repo.listCreated(db, importId);
  const versions = await repo.listVersions(db, importId);
  const removed = await repo.listRemoved(db, importId);
  const folders = (await repo.listFolders(db, importId)).sort((a, b) => b - a);
  let foldersRemoved = 0;
  // What came back: not a case deleted meanwhile or already as it was, nor a filled case whose template is gone
  // or that someone restored meanwhile.
  let reverted: string[] = [];
  let restored: string[] = [];
  await db.transaction().execute(async (trx) => {
    await lockTcaseWrites(trx, project.id);
    await lockForTreeChange(trx, project.id);
    const at = nowIso();
    if (ids.length > 0) await deleteCasesById(trx, project.tenantId, project.id, ids, tcasesChanged);
    if (versions.length > 0)
      reverted = await revertImportedCases(trx, actor, project, versions, tcasesChanged, at);
    if (removed.length > 0)
      restored = await restoreImportedRemovals(trx, actor, project, removed, tcasesChanged, at);
    // Subscribers were told of the chunks that committed: they are told those were taken back.
    if (ids.length + reverted.length + restored.length > 0)
      await enqueueEvent(trx, {
        tenantId: project.tenantId,
        projectId: project.id,
        type: 'tcases_edited',
        object: {
          action: 'import_taken_back',
          importId,
          count: ids.length + reverted.length + restored.length,
          deletedTcaseIds: ids,
          revertedTcaseIds: reverted,
          restoredTcaseIds: restored,
        },
      });
    // Children were created after their parents: the highest ids first empties a path from its leaf up.
    for (const id of folders) {
      const subtree = await subtreeFolderIds(trx, project.tenantId, project.id, [id]);
      if (subtree.length !== 1) continue;
      if ((await liveCasesInFolders(trx, project.tenantId, project.id, [id])).length > 0) continue;
      await markFoldersDeleted(trx, project.tenantId, project.id, [id], at);
      foldersRemoved++;
    }
    await repo.forgetCreated(trx, importId);
  });
  return { cases: ids.length, changed: versions.length, restored: restored.length, folders: foldersRemoved };
}
