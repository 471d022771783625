import type { Actor } from '../../auth/actor.js';
import type { Role } from '../../auth/roles.js';
import type { Db } from '../../db/create-db.js';
import { AppError } from '../../errors.js';
import { nowIso } from '../../lib/time.js';
import { lockForTreeChange, markFoldersDeleted, subtreeFolderIds } from '../folders/folders.service.js';
import type { Project as ProjectShape } from '../projects/projects.schemas.js';
import { resolveProject } from '../projects/projects.service.js';
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

/*
 * Taking an import back: what its attempts wrote (cases created, versions added, filled cases deleted, folders
 * created) undone in one transaction. The pipeline does it when an import fails part-way or an attempt finds an
 * earlier one died; `abandonImport` when the job's attempts ran out with no attempt left to do it.
 */

/** The project imported into, with its tenant. */
export type ImportProject = ProjectShape & { tenantId: string };

/** Who an import writes as: the person who started it, with the role they had then. */
export const importActor = (tenantId: string, userId: number, role: Role): Actor => ({
  tenantId,
  userId,
  role,
  apiKeyId: null,
  via: 'session',
  ip: '',
  userAgent: 'casebook import',
});

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
  project: ImportProject,
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

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a take-back undid, in words for the import's error. */
export const takenBackWords = (removed: Awaited<ReturnType<typeof removeCreated>>): string =>
  'what it had written was taken back: ' +
  `${plural(removed.cases, 'test case', 'test cases')} created, ` +
  `${plural(removed.changed, 'test case', 'test cases')} changed, ` +
  (removed.restored > 0
    ? `${plural(removed.restored, 'filled test case', 'filled test cases')} deleted, `
    : '') +
  `${plural(removed.folders, 'folder', 'folders')} created`;

/**
 * An import whose job ran out of attempts (each died or stalled past its lease): what its attempts wrote is taken
 * back and its error says so. The row already says it failed; answers false when there was nothing to do.
 */
export async function abandonImport(
  db: Db,
  importId: number,
  tcasesChanged: TcasesChanged,
): Promise<boolean> {
  const row = await repo.findImportById(db, importId);
  if (!row || row.status !== 'failed' || row.created_by === null) return false;
  const o = JSON.parse(row.options) as { role: Role; dryRun: boolean };
  if (o.dryRun) return false;
  const actor = importActor(row.tenant_id, row.created_by, o.role);
  let project: ImportProject;
  try {
    project = {
      ...(await resolveProject(db, actor, row.project_id, { write: true })),
      tenantId: row.tenant_id,
    };
  } catch (err) {
    // The project is gone, or the person lost access: nothing of theirs is left to take back.
    if (err instanceof AppError) return false;
    throw err;
  }
  const removed = await removeCreated(db, actor, importId, project, tcasesChanged);
  const errors = [
    ...(JSON.parse(row.errors) as unknown[]),
    { row: 0, message: `the import was not finished; ${takenBackWords(removed)}` },
  ];
  await repo.updateImport(db, importId, { created: 0, updated: 0, errors: JSON.stringify(errors) });
  return true;
}
