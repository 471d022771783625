import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { Db } from '../db/create-db.js';
import { jobNotificationsUrl } from '../db/dialect.js';
import { moduleJobs } from '../modules/index.js';
import type { JobEnv, JobHandler, JobLog, PeriodicJob } from '../outbox/handler.js';
import { purgeFinishedJobs } from '../outbox/outbox.js';
import { purgeExpiredRateLimits } from '../db/rate-limit-counters.js';
import { startPeriodic } from './periodic.js';
import { JobRunner, type JobRunnerOptions } from './runner.js';

/*
 * The registry: the job kinds and periodic passes the modules declare (modules/index.ts moduleJobs), run by one
 * runner and one timer each per server process. Nothing here knows what a job does.
 */

const queued = moduleJobs.filter((j) => j.type === 'queued');
const periodic = moduleJobs.filter((j) => j.type === 'periodic');

/** Every queued job kind: the metrics measure their queues. */
export const queuedJobKinds = queued.map((j) => j.kind);

/** What handlers and passes are handed: the app's own parts, as routes get them (AppContext). */
export const jobEnv = (
  config: Config,
  ctx: Pick<AppContext, 'outboundGuard' | 'parsers' | 'files' | 'tcasesChanged'>,
  log?: JobLog,
): JobEnv => ({
  config,
  guard: ctx.outboundGuard,
  parsers: ctx.parsers,
  files: ctx.files,
  tcasesChanged: ctx.tcasesChanged,
  log,
});

/** A runner with every job kind's handler; `ctx` is the app's (its outbound guard, its wakers). */
export function createJobRunner(
  db: Db,
  config: Config,
  ctx: Pick<AppContext, 'outboundGuard' | 'jobWakers' | 'parsers' | 'files' | 'tcasesChanged'> &
    Partial<Pick<AppContext, 'metrics'>>,
  options: Partial<JobRunnerOptions> = {},
): JobRunner {
  const env = jobEnv(config, ctx, options.log);
  const handlers: Record<string, JobHandler> = {};
  for (const job of queued) handlers[job.kind] = job.handler(env);
  const listenUrl = jobNotificationsUrl(config.databaseUrl);
  return new JobRunner(db, {
    handlers,
    wakers: ctx.jobWakers,
    // NOTIFY wakes the runner where the database sends it (PostgreSQL); the poll is a fallback. SQLite has no
    // NOTIFY: runners of other processes (serve --workers N) find new jobs by polling, cheaply (one index probe).
    listenUrl,
    pollMs: listenUrl ? 30_000 : 1_000,
    leaseMs: config.jobLeaseSeconds * 1000,
    onFailure:
      config.metricsToken !== undefined && ctx.metrics
        ? (kind, outcome) => ctx.metrics!.jobFailures.inc({ kind, outcome })
        : undefined,
    ...options,
  });
}

/** Retention of finished jobs: older than `days`, removed `batchSize` rows per statement; answers how many. */
export async function purgeJobHistory(
  db: Db,
  days: number,
  options: { batchSize?: number; nowMs?: number } = {},
): Promise<number> {
  if (days <= 0) return 0;
  const cutoff = new Date((options.nowMs ?? Date.now()) - days * 86_400_000).toISOString();
  return purgeFinishedJobs(db, cutoff, options.batchSize ?? 5000);
}

const jobRetention: PeriodicJob = {
  type: 'periodic',
  name: 'job retention',
  intervalMs: 3_600_000,
  async run(db, { config, log }) {
    const jobs = await purgeJobHistory(db, config.jobRetentionDays);
    if (jobs > 0) log?.info({ jobs }, 'finished jobs removed');
    // Ended rate-limit windows (PostgreSQL keeps the counters: http/rate-limit.ts); a counter a key still uses
    // is reset by its next request anyway, so this only keeps the table from growing.
    await purgeExpiredRateLimits(db, Date.now());
  },
};

/**
 * Starts the job runner and the periodic passes (retention) of every server process (main.ts); the function it
 * answers stops them all and waits for jobs and passes in flight (SIGTERM). A job cut short by SIGKILL is taken
 * again by any process once its lease expires.
 */
export function startJobs(db: Db, config: Config, ctx: AppContext, log?: JobLog): () => Promise<void> {
  const runner = createJobRunner(db, config, ctx, { log });
  runner.start();
  const env = jobEnv(config, ctx, log);
  const stops = [jobRetention, ...periodic].map((job) =>
    startPeriodic(() => job.run(db, env), {
      intervalMs: job.intervalMs,
      onError: (err) => log?.error({ err }, `${job.name} pass failed`),
    }),
  );
  return async () => {
    await runner.stop();
    for (const stop of stops) await stop();
  };
}
