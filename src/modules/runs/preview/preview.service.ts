import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { AppError } from '../../../errors.js';
import { listFoldersByIds } from '../../folders/folders.service.js';
import { resolveProject } from '../../projects/projects.service.js';
import { listTcaseSummaries } from '../../test-cases/test-cases.service.js';
import { PREVIEW_DEFAULT_LIMIT, type RunPreviewBody, type RunPreviewResponse } from './preview.schemas.js';
import type { RunType } from '../runs.schemas.js';
import { queryPlanShapeErrors, selectRunTcases } from '../run-creation.service.js';

/**
 * The query-plan preview of the run builder: which test cases a run created now from these plans would hold.
 * It runs the very selection of run creation (selectRunTcases: subfolders included, drafts and templates
 * excluded, the same 400s), so the page can send the ids it shows. A read: viewers may preview.
 */
export async function previewRunSelection(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: RunPreviewBody,
): Promise<RunPreviewResponse> {
  const project = await resolveProject(db, actor, projectRef);
  const errors = queryPlanShapeErrors(input.type as RunType, input.queryPlans);
  if (errors.length) {
    throw new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);
  }
  const { tcaseIds } = await selectRunTcases(db, actor.tenantId, project.id, input.queryPlans);
  const offset = input.offset ?? 0;
  const limit = input.limit ?? PREVIEW_DEFAULT_LIMIT;
  // The union of several plans comes plan by plan; the builder lists cases in seq order.
  const all = await listTcaseSummaries(db, actor.tenantId, tcaseIds);
  all.sort((a, b) => a.seq - b.seq);
  const page = all.slice(offset, offset + limit);
  const folders = new Map(
    (await listFoldersByIds(db, actor.tenantId, project.id, [...new Set(page.map((c) => c.folderId))])).map(
      (f) => [f.id, f],
    ),
  );
  return {
    total: tcaseIds.length,
    offset,
    limit,
    tcases: page.map((c) => ({
      ...c,
      folder: { id: c.folderId, title: folders.get(c.folderId)?.title ?? '' },
    })),
  };
}
