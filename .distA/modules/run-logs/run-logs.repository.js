export const insertRunLog = (db, row) => db.insertInto('run_logs').values(row).execute();
/** Oldest first; entries of the same millisecond by id (ids are random, so that order is arbitrary but stable). */
export const listRunLogs = (db, tenantId, runId) => db
    .selectFrom('run_logs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('run_id', '=', runId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
//# sourceMappingURL=run-logs.repository.js.map