import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { RunLogsTable } from '../../db/tables/execution.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { newOrderedId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { getRunForRead, getRunForResults } from '../runs/runs.service.js';
import * as repo from './run-logs.repository.js';
import type { CreateRunLogBody, RunLog } from './run-logs.schemas.js';

const toRunLog = (row: Selectable<RunLogsTable>): RunLog => ({
  id: row.id,
  runId: row.run_id,
  comment: row.comment,
  authorId: row.author_id ?? 0,
  createdAt: row.created_at,
});

/**
 * Records a message against a run (D21): the comment is sanitised (D22) and
 * trimmed and must not be empty afterwards (400); 404 unknown project or run, 403 archived project,
 * 409 closed run.
 */
export async function createRunLog(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  input: CreateRunLogBody,
): Promise<{ id: string }> {
  const { run } = await getRunForResults(db, actor, projectRef, runId);
  const comment = sanitizeHtmlField(input.comment).trim();
  if (comment === '') {
    throw badRequest(
      'comment must not be empty (after removing disallowed HTML and surrounding spaces)',
      '/comment',
    );
  }
  const id = newOrderedId();
  await repo.insertRunLog(db, {
    id,
    tenant_id: actor.tenantId,
    run_id: run.id,
    comment,
    author_id: actor.userId,
    created_at: nowIso(),
  });
  return { id };
}

/** D21: the logs of a run, oldest first; 404 for an unknown project or run. */
export async function listRunLogs(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
): Promise<RunLog[]> {
  const { run } = await getRunForRead(db, actor, projectRef, runId);
  return (await repo.listRunLogs(db, actor.tenantId, run.id)).map(toRunLog);
}
