import type { Db } from '../../db/create-db.js';
import type { JobLog, PeriodicJob } from '../../outbox/handler.js';
import { purgeExpiredAuditEvents } from './audit.service.js';

export interface AuditRetentionOptions {
  retentionDays: number;
  /** Events deleted per statement, so a large backlog never holds a long lock. */
  batchSize?: number;
  log?: JobLog;
}

/** One pass of the D25 retention: deletes events older than the retention in bounded batches. */
export async function runAuditRetention(db: Db, options: AuditRetentionOptions): Promise<number> {
  const deleted = await purgeExpiredAuditEvents(db, options.retentionDays, { batchSize: options.batchSize });
  if (deleted > 0)
    options.log?.info({ deleted, retentionDays: options.retentionDays }, 'expired audit events removed');
  return deleted;
}

/** D25, hourly in every server process (first pass at start); nothing when the retention is 0 (keep for ever). */
export const auditRetentionJob: PeriodicJob = {
  type: 'periodic',
  name: 'audit retention',
  intervalMs: 3_600_000,
  async run(db, { config, log }) {
    if (config.auditRetentionDays > 0)
      await runAuditRetention(db, { retentionDays: config.auditRetentionDays, log });
  },
};
