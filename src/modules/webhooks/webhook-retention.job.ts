import type { Db } from '../../db/create-db.js';
import type { PeriodicJob } from '../../outbox/handler.js';
import * as repo from './webhooks.repository.js';

/**
 * Delivery records finished (or created, for a failed one) more than `days` ago, removed `batchSize` rows per
 * statement; pending ones stay. The same retention as finished jobs (CASEBOOK_JOB_RETENTION_DAYS).
 */
export async function purgeDeliveryHistory(
  db: Db,
  days: number,
  options: { batchSize?: number; nowMs?: number } = {},
): Promise<number> {
  if (days <= 0) return 0;
  const cutoff = new Date((options.nowMs ?? Date.now()) - days * 86_400_000).toISOString();
  return repo.purgeDeliveriesBefore(db, cutoff, options.batchSize ?? 5000);
}

/** Hourly in every server process, beside the runner's own retention of finished jobs. */
export const deliveryRetentionJob: PeriodicJob = {
  type: 'periodic',
  name: 'delivery retention',
  intervalMs: 3_600_000,
  async run(db, { config, log }) {
    const deliveries = await purgeDeliveryHistory(db, config.jobRetentionDays);
    if (deliveries > 0) log?.info({ deliveries }, 'delivery records removed');
  },
};
