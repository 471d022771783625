import { sql } from 'kysely';
import { forUpdate } from '../../db/dialect.js';
import { prepareQuery } from '../../db/prepared.js';
// Results own `results` and `result_links`. Recording a result also moves the run test case's status
// and the run's counters (the execution tables of contracts.md, "RESULTS writes against them"), in the
// same transaction as the results, so reading a run never scans its results.
/**
 * Rows per multi-row statement: SQLite binds at most 32,766 variables per statement and PostgreSQL
 * 65,535; a budget of 16,000 keeps both far away while writing thousands of rows in a few statements.
 */
const VARIABLE_BUDGET = 16_000;
function chunks(rows, columns) {
    const size = Math.max(1, Math.floor(VARIABLE_BUDGET / columns));
    const out = [];
    for (let i = 0; i < rows.length; i += size)
        out.push(rows.slice(i, i + size));
    return out;
}
/**
 * Takes the run's row lock for the rest of the transaction (PostgreSQL: SELECT ... FOR UPDATE; SQLite: the
 * transaction holds the write lock already) and confirms the run is still open. Every writer of the run's
 * counters goes through the run row first, so concurrent batches on one run are serialised and their counter
 * deltas never get lost. The run row is written once, at the end (finishRunWrite): a run created from
 * thousands of tcaseIds has a long query_plans, and SQLite rewrites the whole row on every update.
 */
export const lockOpenRun = async (db, tenantId, runId) => (await lockRun.executeTakeFirst(db, tenantId, runId)) !== undefined;
// The statements of recording one result are prepared (db/prepared.ts): CI posts them by the thousand.
const lockRun = prepareQuery((db, tenantId, runId) => forUpdate(db, db
    .selectFrom('runs')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', runId)
    .where('closed_at', 'is', null)));
/**
 * The run test cases (in_run = 1) named by id, sequence number or legacy id. Reads `tcases` in the same
 * query (as the runs module does for its lists) so that thousands of references resolve in a few
 * statements, each on an index: ids on the run_tcases key, seqs and legacy ids on the tcases indexes.
 */
export function findRunTcaseStates(db, tenantId, runId, projectId) {
    const base = () => db
        .selectFrom('run_tcases as rt')
        .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
        .select([
        'rt.tcase_id',
        't.seq',
        't.legacy_id',
        'rt.status',
        'rt.version',
        't.version as latest_version',
    ])
        .where('rt.tenant_id', '=', tenantId)
        .where('rt.run_id', '=', runId)
        .where('rt.in_run', '=', 1);
    // By seq or legacy id, the test case comes first: SQLite reads the CROSS JOIN in the order written, and
    // otherwise walked the whole run (all 10,000 cases of it) to find 20 seqs (9 ms instead of 0.06 ms).
    const byCase = () => stateByCase(db, tenantId, runId, projectId);
    const inChunks = async (values, query) => {
        const out = [];
        for (const part of chunks(values, 1))
            out.push(...(await query(part)));
        return out;
    };
    // One reference (a single result) takes a prepared statement.
    return {
        byIds: (ids) => ids.length === 1
            ? oneStateById.execute(db, tenantId, runId, ids[0])
            : inChunks(ids, (part) => base().where('rt.tcase_id', 'in', part).execute()),
        bySeqs: (seqs) => seqs.length === 1
            ? oneStateBySeq.execute(db, tenantId, runId, projectId, seqs[0])
            : inChunks(seqs, (part) => byCase().where('t.seq', 'in', part).execute()),
        byLegacyIds: (legacyIds) => legacyIds.length === 1
            ? oneStateByLegacyId.execute(db, tenantId, runId, projectId, legacyIds[0])
            : inChunks(legacyIds, (part) => byCase().where('t.legacy_id', 'in', part).execute()),
    };
}
const stateBase = (db, tenantId, runId) => db
    .selectFrom('run_tcases as rt')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .select(['rt.tcase_id', 't.seq', 't.legacy_id', 'rt.status', 'rt.version', 't.version as latest_version'])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1);
const oneStateById = prepareQuery((db, tenantId, runId, id) => stateBase(db, tenantId, runId).where('rt.tcase_id', '=', id));
/** As findRunTcaseStates' byCase: the test case first, then its row in the run. */
const stateByCase = (db, tenantId, runId, projectId) => db
    .selectFrom('tcases as t')
    .crossJoin('run_tcases as rt')
    .select(['rt.tcase_id', 't.seq', 't.legacy_id', 'rt.status', 'rt.version', 't.version as latest_version'])
    .whereRef('rt.tcase_id', '=', 't.id')
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1)
    .where('t.project_id', '=', projectId);
const oneStateBySeq = prepareQuery((db, tenantId, runId, projectId, seq) => stateByCase(db, tenantId, runId, projectId).where('t.seq', '=', seq));
const oneStateByLegacyId = prepareQuery((db, tenantId, runId, projectId, legacyId) => stateByCase(db, tenantId, runId, projectId).where('t.legacy_id', '=', legacyId));
/** Inserts results with multi-row statements; returns their ids in the order of `rows`. */
export async function insertResults(db, rows) {
    if (rows.length === 1) {
        const r = rows[0];
        const row = await insertOneResult.executeTakeFirst(db, r.tenant_id, r.run_id, r.tcase_id, r.tcase_version, r.status, r.comment ?? '', r.time_taken ?? null, r.author_id ?? null, r.api_key_id ?? null, r.internal ?? 0, r.created_at);
        return [Number(row.id)];
    }
    const ids = [];
    for (const part of chunks(rows, 11)) {
        const inserted = await db.insertInto('results').values(part).returning('id').execute();
        // Both databases hand out the ids of one statement in the order of its rows, but neither promises
        // the order of RETURNING: sorting restores the row order.
        ids.push(...inserted.map((r) => Number(r.id)).sort((a, b) => a - b));
    }
    return ids;
}
const insertOneResult = prepareQuery((db, tenantId, runId, tcaseId, tcaseVersion, status, comment, timeTaken, authorId, apiKeyId, internal, createdAt) => db
    .insertInto('results')
    .values({
    tenant_id: tenantId,
    run_id: runId,
    tcase_id: tcaseId,
    tcase_version: tcaseVersion,
    status,
    comment,
    time_taken: timeTaken,
    author_id: authorId,
    api_key_id: apiKeyId,
    internal,
    created_at: createdAt,
})
    .returning('id'));
export async function insertResultLinks(db, rows) {
    for (const part of chunks(rows, 6))
        await db.insertInto('result_links').values(part).execute();
}
/**
 * Writes the new state of run test cases that exist (the run lock is held): a multi-row upsert on the
 * primary key is the portable way to update thousands of rows to different values in a few statements.
 */
export async function updateRunTcaseStates(db, rows) {
    if (rows.length === 1) {
        const r = rows[0];
        await updateOneState.execute(db, r.status ?? 'open', r.is_automated ?? 0, r.version ?? null, r.latest_result_id ?? null, r.updated_at, r.tenant_id, r.run_id, r.tcase_id);
        return;
    }
    for (const part of chunks(rows, 9)) {
        await db
            .insertInto('run_tcases')
            .values(part)
            .onConflict((oc) => oc.columns(['run_id', 'tcase_id']).doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            is_automated: eb.ref('excluded.is_automated'),
            version: eb.ref('excluded.version'),
            latest_result_id: eb.ref('excluded.latest_result_id'),
            updated_at: eb.ref('excluded.updated_at'),
        })))
            .execute();
    }
}
/** One row that exists (the caller resolved it under the run lock): a plain update by the key. */
const updateOneState = prepareQuery((db, status, isAutomated, version, latestResultId, updatedAt, tenantId, runId, tcaseId) => db
    .updateTable('run_tcases')
    .set({
    status,
    is_automated: isAutomated,
    version,
    latest_result_id: latestResultId,
    updated_at: updatedAt,
})
    .where('tenant_id', '=', tenantId)
    .where('run_id', '=', runId)
    .where('tcase_id', '=', tcaseId));
export const COUNTER_COLUMNS = {
    open: 'cnt_open',
    passed: 'cnt_passed',
    failed: 'cnt_failed',
    blocked: 'cnt_blocked',
    skipped: 'cnt_skipped',
    custom1: 'cnt_custom1',
    custom2: 'cnt_custom2',
    custom3: 'cnt_custom3',
    custom4: 'cnt_custom4',
};
/**
 * The run's one write of a results transaction (its lock is held): updated_at, the status deltas added to its
 * counters and the results' time added to timeSpent (increments, so they compose with other writers).
 */
export async function finishRunWrite(db, tenantId, runId, now, deltas, 
/** The written results' timeTaken added up (ms); null when none of them had one. */
timeSpent) {
    const d = (col) => deltas[col] ?? 0;
    await finishRun.execute(db, now, timeSpent === null ? 0 : 1, timeSpent ?? 0, d('cnt_open'), d('cnt_passed'), d('cnt_failed'), d('cnt_blocked'), d('cnt_skipped'), d('cnt_custom1'), d('cnt_custom2'), d('cnt_custom3'), d('cnt_custom4'), tenantId, runId);
}
const finishRun = prepareQuery((db, now, hasTime, timeSpent, open, passed, failed, blocked, skipped, custom1, custom2, custom3, custom4, tenantId, runId) => db
    .updateTable('runs')
    .set({
    updated_at: now,
    // Stays null until a result says how long it took.
    time_spent: sql `case when ${hasTime} = 1 then coalesce(time_spent, 0) + ${timeSpent} else time_spent end`,
    cnt_open: sql `cnt_open + ${open}`,
    cnt_passed: sql `cnt_passed + ${passed}`,
    cnt_failed: sql `cnt_failed + ${failed}`,
    cnt_blocked: sql `cnt_blocked + ${blocked}`,
    cnt_skipped: sql `cnt_skipped + ${skipped}`,
    cnt_custom1: sql `cnt_custom1 + ${custom1}`,
    cnt_custom2: sql `cnt_custom2 + ${custom2}`,
    cnt_custom3: sql `cnt_custom3 + ${custom3}`,
    cnt_custom4: sql `cnt_custom4 + ${custom4}`,
})
    .where('tenant_id', '=', tenantId)
    .where('id', '=', runId));
//# sourceMappingURL=results.repository.js.map