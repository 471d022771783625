import type { Config } from '../config.js';
import type { Db } from '../db/create-db.js';
import { outboundGuard, type OutboundGuard } from '../lib/ssrf.js';
import { purgeDeliveriesBefore } from '../modules/webhooks/webhooks.repository.js';
import { EVENT_JOB } from '../modules/webhooks/webhook-events.service.js';
import { purgeFinishedJobs } from './outbox.js';
import { JobRunner, type JobRunnerOptions } from './runner.js';
import { DELIVERY_JOB, webhookDelivery } from './webhook-delivery.js';
import { webhookFanout } from './webhook-fanout.js';
import { TRACKER_COMMENT_JOB, trackerComment } from './tracker-comment.js';
import { startPeriodic } from './periodic.js';

type Log = NonNullable<JobRunnerOptions['log']>;

/** The outbound guard of a configuration (src/lib/ssrf.ts). */
export const guardOf = (config: Config): OutboundGuard =>
  outboundGuard({ allowPrivate: config.webhookAllowPrivate, allow: config.outboundAllow });

/** A runner with every job kind's handler. */
export function createJobRunner(
  db: Db,
  config: Config,
  options: Partial<JobRunnerOptions> & { guard?: OutboundGuard } = {},
): JobRunner {
  const { guard, ...rest } = options;
  return new JobRunner(db, {
    handlers: {
      [EVENT_JOB]: webhookFanout,
      [DELIVERY_JOB]: webhookDelivery({ guard: guard ?? guardOf(config), secretKey: config.secretKey }),
      [TRACKER_COMMENT_JOB]: trackerComment({
        guard: guard ?? guardOf(config),
        secretKey: config.secretKey,
        publicUrl: config.publicUrl,
      }),
    },
    // On PostgreSQL NOTIFY wakes the runner; the poll is a fallback. SQLite has no NOTIFY: runners of other
    // processes (serve --workers N) find new jobs by polling, cheaply (one index probe).
    listenUrl: config.databaseUrl.startsWith('postgres') ? config.databaseUrl : undefined,
    pollMs: config.databaseUrl.startsWith('postgres') ? 30_000 : 1_000,
    leaseMs: config.jobLeaseSeconds * 1000,
    ...rest,
  });
}

/** Retention of finished jobs and delivery records: older than `days`, removed `batchSize` rows per statement. */
export async function purgeJobHistory(
  db: Db,
  days: number,
  options: { batchSize?: number; nowMs?: number } = {},
): Promise<{ jobs: number; deliveries: number }> {
  if (days <= 0) return { jobs: 0, deliveries: 0 };
  const cutoff = new Date((options.nowMs ?? Date.now()) - days * 86_400_000).toISOString();
  const batchSize = options.batchSize ?? 5000;
  return {
    jobs: await purgeFinishedJobs(db, cutoff, batchSize),
    deliveries: await purgeDeliveriesBefore(db, cutoff, batchSize),
  };
}

/**
 * Starts the job runner and the hourly retention pass of every server process (main.ts); the function it
 * answers stops both and waits for jobs in flight (SIGTERM). A job cut short by SIGKILL is taken again by any
 * process once its lease expires.
 */
export function startJobs(db: Db, config: Config, log?: Log): () => Promise<void> {
  const runner = createJobRunner(db, config, { log });
  runner.start();
  const stopRetention = startPeriodic(
    async () => {
      const n = await purgeJobHistory(db, config.jobRetentionDays);
      if (n.jobs + n.deliveries > 0) log?.info(n, 'finished jobs and delivery records removed');
    },
    { intervalMs: 3_600_000, onError: (err) => log?.error({ err }, 'job retention pass failed') },
  );
  return async () => {
    await runner.stop();
    await stopRetention();
  };
}
