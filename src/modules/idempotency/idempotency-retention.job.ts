import type { PeriodicJob } from '../../outbox/handler.js';
import { purgeExpiredIdempotencyKeys } from './idempotency.service.js';

/**
 * Removes expired Idempotency-Key records hourly (first pass at start), in bounded batches, like the audit
 * retention. Expired records are already ignored on lookup: this only keeps the table small.
 */
export const idempotencyRetentionJob: PeriodicJob = {
  type: 'periodic',
  name: 'idempotency retention',
  intervalMs: 3_600_000,
  async run(db, { log }) {
    const deleted = await purgeExpiredIdempotencyKeys(db);
    if (deleted > 0) log?.info({ deleted }, 'expired idempotency keys removed');
  },
};
