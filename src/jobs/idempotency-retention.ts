import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/create-db.js';
import { purgeExpiredIdempotencyKeys } from '../modules/idempotency/idempotency.service.js';
import { startPeriodic } from './periodic.js';

export interface IdempotencyRetentionOptions {
  /** How often to remove expired Idempotency-Key records; hourly by default. */
  intervalMs?: number;
  /** Records deleted per statement, so a large backlog never holds a long lock. */
  batchSize?: number;
  log?: Pick<FastifyBaseLogger, 'info' | 'error'>;
}

/**
 * Removes expired Idempotency-Key records on an interval (first pass right away), in bounded batches, like the
 * audit retention (audit-retention.ts); returns a function that stops it and waits for a pass in progress.
 * Expired records are already ignored on lookup: this only keeps the table small. Several processes may run
 * it side by side.
 */
export function startIdempotencyRetention(
  db: Db,
  options: IdempotencyRetentionOptions = {},
): () => Promise<void> {
  return startPeriodic(
    async () => {
      const deleted = await purgeExpiredIdempotencyKeys(db, { batchSize: options.batchSize });
      if (deleted > 0) options.log?.info({ deleted }, 'expired idempotency keys removed');
    },
    {
      intervalMs: options.intervalMs ?? 3_600_000,
      onError: (err) => options.log?.error({ err }, 'idempotency retention pass failed'),
    },
  );
}
