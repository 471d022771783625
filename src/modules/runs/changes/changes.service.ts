import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { notFound } from '../../../errors.js';
import { resolveProject } from '../../projects/projects.service.js';
import * as repo from './changes.repository.js';
import { CHANGES_MAX, type RunChangesQuery, type RunChangesResponse } from './changes.schemas.js';

/**
 * "What changed in this run since cursor X", polled by an open run page every 2-3 s so results recorded
 * elsewhere (CI, a colleague, another server process on the same database) appear within 5 s.
 *
 * The cursor is a result id. It is sound across processes because a run's results are written under the run's
 * row lock (results.service.ts: lockOpenRun / getRunForResults with lock), and their ids are taken under it:
 * within one run, a committed result never gets an id below one committed earlier, so "latest_result_id >
 * since" misses nothing. The new cursor is read first and the changes are read up to it.
 */
export async function listRunChanges(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  query: RunChangesQuery,
): Promise<RunChangesResponse> {
  const project = await resolveProject(db, actor, projectRef);
  const cursor = await repo.maxLatestResultId(db, actor.tenantId, runId);
  const run = await repo.findRunCounters(db, actor.tenantId, project.id, runId);
  if (!run) throw notFound(`run ${runId} not found`);
  const counts = {
    open: run.cnt_open,
    passed: run.cnt_passed,
    failed: run.cnt_failed,
    blocked: run.cnt_blocked,
    skipped: run.cnt_skipped,
    custom1: run.cnt_custom1,
    custom2: run.cnt_custom2,
    custom3: run.cnt_custom3,
    custom4: run.cnt_custom4,
  };
  const statusCounts = { all: Object.values(counts).reduce((a, b) => a + b, 0), ...counts };
  const base = {
    cursor,
    closed: run.closed_at !== null,
    membershipVersion: run.membership_version,
    statusCounts,
  };
  if (query.since === undefined || query.since === cursor) return { ...base, truncated: false, tcases: [] };
  // A cursor from the future (another database, a restore): the page cannot know what it missed.
  if (query.since > cursor) return { ...base, truncated: true, tcases: [] };
  const rows = await repo.listChangedRunTcases(
    db,
    actor.tenantId,
    runId,
    query.since,
    cursor,
    CHANGES_MAX + 1,
  );
  if (rows.length > CHANGES_MAX) return { ...base, truncated: true, tcases: [] };
  return {
    ...base,
    truncated: false,
    tcases: rows.map((r) => ({
      id: r.tcase_id,
      seq: r.seq,
      status: r.status,
      isAutomated: r.is_automated === 1,
      inRun: r.in_run === 1,
      latestResult: {
        id: r.result_id,
        status: r.result_status,
        authorId: r.author_id ?? 0,
        timeTaken: r.time_taken,
        createdAt: r.created_at,
      },
    })),
  };
}
