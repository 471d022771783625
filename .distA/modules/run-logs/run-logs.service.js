import { badRequest } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { newId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { getRunForRead, getRunForResults } from '../runs/runs.service.js';
import * as repo from './run-logs.repository.js';
const toRunLog = (row) => ({
    id: row.id,
    runId: row.run_id,
    comment: row.comment,
    authorId: row.author_id ?? 0,
    createdAt: row.created_at,
});
/**
 * Records a message against a run (public-api.md "Run logs", D21): the comment is sanitised (D22) and
 * trimmed and must not be empty afterwards (400); 404 unknown project or run, 403 archived project,
 * 409 closed run.
 */
export async function createRunLog(db, actor, projectRef, runId, input) {
    const { run } = await getRunForResults(db, actor, projectRef, runId);
    const comment = sanitizeHtmlField(input.comment).trim();
    if (comment === '') {
        throw badRequest('comment must not be empty (after removing disallowed HTML and surrounding spaces)', '/comment');
    }
    const id = newId();
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
export async function listRunLogs(db, actor, projectRef, runId) {
    const { run } = await getRunForRead(db, actor, projectRef, runId);
    return (await repo.listRunLogs(db, actor.tenantId, run.id)).map(toRunLog);
}
//# sourceMappingURL=run-logs.service.js.map