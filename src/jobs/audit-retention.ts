import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/create-db.js';
import { purgeExpiredAuditEvents } from '../modules/audit/audit.service.js';
import { startPeriodic } from './periodic.js';

export interface AuditRetentionOptions {
  retentionDays: number;
  /** How often to look for expired events; hourly by default. */
  intervalMs?: number;
  /** Events deleted per statement, so a large backlog never holds a long lock. */
  batchSize?: number;
  log?: Pick<FastifyBaseLogger, 'info' | 'error'>;
}

/** One pass of the D25 retention: deletes events older than the retention in bounded batches. */
export async function runAuditRetention(db: Db, options: AuditRetentionOptions): Promise<number> {
  const deleted = await purgeExpiredAuditEvents(db, options.retentionDays, { batchSize: options.batchSize });
  if (deleted > 0)
    options.log?.info({ deleted, retentionDays: options.retentionDays }, 'expired audit events removed');
  return deleted;
}

/**
 * Starts the retention job on an interval (first pass right away); returns a function that stops it and
 * waits for a pass in progress. Does nothing when retention is 0 (keep for ever). Several processes may
 * run it side by side: deleting expired rows twice is harmless.
 */
export function startAuditRetention(db: Db, options: AuditRetentionOptions): () => Promise<void> {
  if (options.retentionDays <= 0) return async () => {};
  return startPeriodic(() => runAuditRetention(db, options), {
    intervalMs: options.intervalMs ?? 3_600_000,
    onError: (err) => options.log?.error({ err }, 'audit retention pass failed'),
  });
}
