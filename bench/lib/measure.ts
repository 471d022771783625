import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { DURATION, WARMUP_SECONDS } from './options.js';
import { log, perRequestText } from './report.js';

/* How a scenario is driven and measured: a load (autocannon) or sequential requests, and the CPU per request. */

/** What every scenario reports, whichever way it was driven. */
export interface Measured {
  /** Requests per second over the measured period. */
  rps: number;
  p50: number;
  p99: number;
  total: number;
}

export type LoadOptions = Parameters<typeof autocannon>[0];

/** N connections for DURATION seconds, after a warm-up of the same load (JIT, caches) that is not counted. */
export async function loadRun(opts: LoadOptions, warmup = true, onMeasure?: () => void): Promise<Measured> {
  if (warmup) await autocannon({ timeout: 30, ...opts, duration: WARMUP_SECONDS });
  onMeasure?.();
  const result = await autocannon({ timeout: 30, ...opts, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0)
    log(`  ! ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  // requests.average is the mean of per-second buckets; total over the run's duration is the throughput.
  return {
    rps: result.requests.total / Math.max(result.duration, 1e-9),
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

export interface SequentialRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: () => string;
  /** Runs before each request, outside its time (e.g. records a result, so the list after it is a fresh one). */
  before?: () => Promise<void>;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/** One request at a time (the latency a single client sees), each timed to the microsecond. */
export async function sequentialRun(
  req: SequentialRequest,
  count: number,
  warmup = 3,
  onMeasure?: () => void,
): Promise<Measured> {
  const times: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  let measuredFrom = t0;
  for (let i = 0; i < warmup + count; i++) {
    if (i === warmup) {
      onMeasure?.();
      measuredFrom = performance.now();
    }
    await req.before?.();
    const start = performance.now();
    const res = await fetch(req.url, {
      method: req.method ?? 'GET',
      headers: req.headers,
      body: req.body?.(),
    });
    await res.arrayBuffer();
    if (!res.ok) failed++;
    if (i >= warmup) times.push(performance.now() - start);
  }
  const elapsed = (performance.now() - measuredFrom) / 1000;
  if (failed > 0) log(`  ! ${failed} non-2xx answers`);
  times.sort((a, b) => a - b);
  return { rps: count / elapsed, p50: percentile(times, 50), p99: percentile(times, 99), total: count };
}

/**
 * Runs a scenario and notes, per request, the CPU time each counter (ms) rose by during its measured part (after
 * the warm-up, which `run` marks by calling onMeasure): the server's, and PostgreSQL's backends'.
 */
export async function withCpu(
  counters: (() => number | undefined)[],
  run: (onMeasure: () => void) => Promise<Measured>,
): Promise<{ m: Measured; cpu: string[] }> {
  let start = counters.map((c) => c());
  const m = await run(() => (start = counters.map((c) => c())));
  const cpu = counters.map((c, i) => {
    const end = c();
    const from = start[i];
    if (end === undefined || from === undefined) return '';
    return perRequestText(((end - from) * 1000) / Math.max(1, m.total));
  });
  return { m, cpu };
}
