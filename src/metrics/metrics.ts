import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/create-db.js';
import { pgPoolOf } from '../db/connection.js';
import { queueStats, type QueueStat } from '../outbox/outbox.js';

/*
 * The Prometheus metrics of one app (docs/operations.md, "Metrics"). A registry per app, not prom-client's global
 * one: tests build many apps in one process. With `serve --workers N` each worker's registry is summed by the
 * primary (metrics/cluster.ts). Counted only while `/metrics` is on (http/metrics.ts installs the hooks); what is
 * read at scrape time (queue depth, pool use) costs nothing between scrapes.
 */

export interface Metrics {
  registry: Registry;
  /** Requests answered, per method, route pattern (never the raw URL: bounded labels) and status. */
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  /** Single results written per group commit (runs/results/results.group-commit.ts). */
  groupCommitSize: Histogram;
  /** Failed job attempts per kind: `retry` (tried again later) or `failed` (given up). */
  jobFailures: Counter<'kind' | 'outcome'>;
  /** Error answers per D7 code (DATABASE_UNAVAILABLE, STORAGE_UNAVAILABLE, STORAGE_FULL, INTERNAL, …). */
  errors: Counter<'code'>;
  /** Failed attempts to reach the rate limits' Redis (requests are then served uncounted). */
  redisErrors: Counter;
  /** Results acknowledged to a client: single, batch and JUnit uploads (replays of a stored answer not again). */
  resultsRecorded: Counter;
}

/**
 * What only a running server has: prom-client's process and runtime metrics (CPU, memory, event-loop lag, GC),
 * the version, and whether the process drains. Added when `/metrics` is on (app.ts), once per app.
 */
export function addServerMetrics(
  metrics: Metrics,
  state: { version: string; draining: () => boolean },
): void {
  const registers = [metrics.registry];
  collectDefaultMetrics({ register: metrics.registry });
  new Gauge({
    name: 'casebook_build_info',
    help: 'Always 1; the version of the running code as a label.',
    labelNames: ['version'],
    registers,
    aggregator: 'max',
  }).set({ version: state.version }, 1);
  new Gauge({
    name: 'casebook_draining',
    help: '1 while the process drains after SIGTERM (GET /readyz answers 503), else 0.',
    registers,
    collect() {
      this.set(state.draining() ? 1 : 0);
    },
  });
}

/** `jobKinds`: the queued job kinds whose queue is measured (modules/index.ts lists them). */
export function createMetrics(db: Db, jobKinds: readonly string[]): Metrics {
  const registry = new Registry();
  const registers = [registry];

  // Read first: a scrape collects in registration order, and the queue gauges' own queries below would
  // otherwise be counted as waiting for a connection.
  const pool = pgPoolOf(db);
  if (pool) {
    // Each process has its own pool: summed across workers.
    const poolGauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    poolGauge(
      'casebook_db_pool_connections',
      'PostgreSQL connections open in the pool.',
      () => pool.totalCount,
    );
    poolGauge('casebook_db_pool_idle', 'PostgreSQL connections open and idle.', () => pool.idleCount);
    poolGauge(
      'casebook_db_pool_waiting',
      'Queries waiting for a free PostgreSQL connection.',
      () => pool.waitingCount,
    );
  }

  // One read for both queue gauges: a scrape collects every metric at once, so both share the read under way.
  let reading: Promise<QueueStat[]> | undefined;
  const readQueues = () =>
    (reading ??= queueStats(db, jobKinds).finally(() => {
      reading = undefined;
    }));
  // Every process reads the same queue from the database: across workers the largest value, not the sum.
  new Gauge({
    name: 'casebook_job_queue_depth',
    help: 'Jobs waiting to run (due or waiting for a retry), per kind.',
    labelNames: ['kind'],
    registers,
    aggregator: 'max',
    async collect() {
      for (const s of await readQueues()) this.set({ kind: s.kind }, s.depth);
    },
  });
  new Gauge({
    name: 'casebook_job_queue_oldest_age_seconds',
    help: 'Seconds since the oldest waiting job of a kind was due (0 when none waits).',
    labelNames: ['kind'],
    registers,
    aggregator: 'max',
    async collect() {
      const now = Date.now();
      for (const s of await readQueues()) {
        const age = s.oldestDueMs === undefined ? 0 : Math.max(0, now - s.oldestDueMs) / 1000;
        this.set({ kind: s.kind }, age);
      }
    },
  });

  return {
    registry,
    httpRequests: new Counter({
      name: 'casebook_http_requests_total',
      help: 'HTTP requests answered, per method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'casebook_http_request_duration_seconds',
      help: 'Time from the request to the end of the answer, per method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    groupCommitSize: new Histogram({
      name: 'casebook_result_group_commit_size',
      help: 'Single results written together in one group commit.',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      registers,
    }),
    jobFailures: new Counter({
      name: 'casebook_job_failures_total',
      help: 'Failed job attempts per kind (webhook_delivery: webhook deliveries): retry or failed (given up).',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    errors: new Counter({
      name: 'casebook_errors_total',
      help: 'Error answers per D7 code (DATABASE_UNAVAILABLE, STORAGE_UNAVAILABLE, STORAGE_FULL, INTERNAL, ...).',
      labelNames: ['code'],
      registers,
    }),
    resultsRecorded: new Counter({
      name: 'casebook_results_recorded_total',
      help: 'Results recorded: single, batch and JUnit uploads, counted once each.',
      registers,
    }),
    redisErrors: new Counter({
      name: 'casebook_redis_errors_total',
      help: "Failed attempts to reach the rate limits' Redis (requests are served uncounted meanwhile).",
      registers,
    }),
  };
}
