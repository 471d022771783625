import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { RunLogsTable } from '../../db/tables/execution.js';

export const insertRunLog = (db: Db, row: Insertable<RunLogsTable>) =>
  db.insertInto('run_logs').values(row).execute();

/** Oldest first; entries of the same millisecond by id (ids are random, so that order is arbitrary but stable). */
export const listRunLogs = (db: Db, tenantId: string, runId: number) =>
  db
    .selectFrom('run_logs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('run_id', '=', runId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
