import type { Db } from '../../db/create-db.js';
import { notFound } from '../../errors.js';
import * as repo from './reports.repository.js';

/** The project's run, or 404 naming it (shared by the run report and the run's flaky scores). */
export async function findRunOr404(db: Db, tenantId: string, projectId: string, code: string, runId: number) {
  const run = await repo.findRun(db, tenantId, projectId, runId);
  if (!run) throw notFound(`run ${runId} not found in project ${code}`);
  return run;
}
