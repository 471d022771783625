import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { notFound } from '../../../errors.js';
import { resolveProject } from '../../projects/projects.service.js';
import { resolveTcaseRef } from '../../test-cases/test-cases.service.js';
import * as repo from './history.repository.js';
import { stepsOfResults, withSteps } from '../result-steps/result-steps.service.js';
import { filesOfResults, withFiles } from '../result-files/result-files.service.js';
import type { FilesContext } from '../../files/files.service.js';
import {
  HISTORY_DEFAULT_LIMIT,
  type TcaseHistoryQuery,
  type TcaseHistoryResponse,
} from './history.schemas.js';

/**
 * A test case's result history across runs, for the run page's "latest results in other runs": its latest
 * result in every run (open or closed, also runs it has left), newest first (by the results' createdAt, which
 * may be backdated, then id), paged with offset/limit.
 */
export async function listTcaseResultHistory(
  db: Db,
  files: FilesContext,
  actor: Actor,
  projectRef: string,
  tcaseRef: string,
  query: TcaseHistoryQuery,
): Promise<TcaseHistoryResponse> {
  const project = await resolveProject(db, actor, projectRef);
  const tcase = await resolveTcaseRef(db, actor.tenantId, project.id, tcaseRef);
  if (!tcase) throw notFound(`test case "${tcaseRef}" not found`);
  const offset = query.offset ?? 0;
  const limit = query.limit ?? HISTORY_DEFAULT_LIMIT;
  const [rows, total] = await Promise.all([
    limit === 0 ? [] : repo.listLatestResultsOfTcase(db, actor.tenantId, tcase.id, offset, limit),
    repo.countRunsWithResultsOfTcase(db, actor.tenantId, tcase.id),
  ]);
  const ids = rows.map((r) => r.id);
  const steps = await stepsOfResults(db, actor.tenantId, ids);
  const attached = await filesOfResults(db, files, actor.tenantId, ids);
  return {
    total,
    offset,
    limit,
    results: rows.map((r) => ({
      id: r.id,
      run: { id: r.run_id, title: r.run_title, type: r.run_type, closed: r.run_closed_at !== null },
      inRun: r.in_run === 1,
      status: r.status,
      comment: r.comment,
      authorId: r.author_id ?? 0,
      author:
        r.author_id !== null && r.author_email !== null
          ? { id: r.author_id, name: r.author_name ?? '', email: r.author_email }
          : null,
      tcaseVersion: r.tcase_version,
      timeTaken: r.time_taken,
      createdAt: r.created_at,
      ...withSteps(steps.get(r.id)),
      ...withFiles(attached.get(r.id)),
    })),
  };
}
