/**
 * `npm run bench`: builds the server, starts it as a real process on SQLite and on PostgreSQL, generates the
 * data set through the API, drives load scenarios with autocannon and prints one table with the figures, the
 * targets, and the ratio to a trivial Fastify route measured in the same run (so figures compare across noisy
 * machines). It is a benchmark, not a test: nothing here fails CI.
 *
 *   npm run bench                    both databases (PostgreSQL when reachable)
 *   npm run bench -- --db sqlite     one database
 *   npm run bench -- --quick         a small data set, short runs (a smoke run of the harness)
 *   npm run bench -- --only list-run,record-batch
 *   npm run bench -- --only webhook-batch   result batches with one webhook subscribed, and 10,000 events delivered
 *   npm run bench -- --workers 2     serve with two processes (casebook serve --workers 2)
 *   npm run bench -- --cpu-prof DIR  writes a CPU profile of each server process into DIR (node --cpu-prof),
 *                                    covering the scenarios only (the server restarts after the data set is made)
 *
 * Two kinds of scenario: loads (autocannon, N connections for a few seconds after a one-second warm-up; the
 * figure is requests per second) and sequential requests (one client, one request at a time, each timed with
 * a sub-millisecond clock after a few warm-up requests; the figure is the latency). The "server CPU" column is
 * the server process's CPU time per request during the scenario: on a busy machine the wall-clock figures move,
 * the CPU cost much less. "db CPU" is PostgreSQL's (its processes on this machine) per request: SQLite's work is
 * part of the server's. Both count the measured part of a scenario only, not its warm-up.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { Client, mapLimit } from './lib/client.js';
import { generateDataset, type Dataset } from './lib/generate.js';
import { insertAuditEvents } from './lib/audit-fill.js';
import { freePort, startBaselineServer, startBenchServer, type BenchServer } from './lib/server.js';
import { startWebhookReceiver } from './lib/webhook-receiver.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    duration: { type: 'string' },
    /** Server processes (casebook serve --workers); 1 by default, so figures compare per process. */
    workers: { type: 'string', default: '1' },
    'skip-build': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});

const QUICK = values.quick!;
const DURATION = Number(values.duration ?? (QUICK ? 2 : 8));
const WARMUP_SECONDS = 1;
const SIZES = QUICK
  ? { tcases: 1_000, runs: 50, live: 10, audit: 20_000, growth: [100, 1_000, 2_000], sequential: 15 }
  : {
      tcases: 10_000,
      runs: 1_000,
      live: 50,
      audit: 1_000_000,
      growth: [1_000, 10_000, 50_000],
      sequential: 40,
    };
const only = values.only ? new Set(values.only.split(',')) : undefined;
const want = (name: string) => !only || only.has(name);
// webhook-batch delivers to a receiver on 127.0.0.1, which the SSRF guard refuses unless told otherwise.
// It signs with a secret, which needs an encryption key.
if (want('webhook-batch')) {
  process.env.CASEBOOK_WEBHOOK_ALLOW_PRIVATE = 'true';
  process.env.CASEBOOK_SECRET_KEY ??= 'bench-secret-key-0123456789';
}
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Row {
  scenario: string;
  db: string;
  throughput: string;
  p50: string;
  p99: string;
  target: string;
  ratio: string;
  /** Server CPU time (user + system) per request during the scenario: comparable even on a busy machine. */
  cpu: string;
  /** PostgreSQL's CPU time per request (its processes on this machine); SQLite's is part of the server's. */
  dbCpu: string;
  met: string;
}
const rows: Row[] = [];

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 1)} ms`;

/** What every scenario reports, whichever way it was driven. */
interface Measured {
  /** Requests per second over the measured period. */
  rps: number;
  p50: number;
  p99: number;
  total: number;
}

type LoadOptions = Parameters<typeof autocannon>[0];

/** N connections for DURATION seconds, after a warm-up of the same load (JIT, caches) that is not counted. */
async function loadRun(opts: LoadOptions, warmup = true, onMeasure?: () => void): Promise<Measured> {
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

interface SequentialRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: () => string;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/** One request at a time (the latency a single client sees), each timed to the microsecond. */
async function sequentialRun(
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

const perRequestText = (us: number) => (us >= 10_000 ? `${fmt(us / 1000, 1)} ms/req` : `${fmt(us)} µs/req`);

/**
 * Runs a scenario and notes, per request, the CPU time each counter (ms) rose by during its measured part (after
 * the warm-up, which `run` marks by calling onMeasure): the server's, and PostgreSQL's backends'.
 */
async function withCpu(
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

/** PostgreSQL processes seen at the last reading, with their CPU time then (ns), and the CPU time counted so far. */
const pgSeen = new Map<string, number>();
let pgCountedNs = 0;

/**
 * CPU time of the PostgreSQL server's processes on this machine (ms), counted from the first reading: with the
 * server process's own CPU it shows what a request costs in all. Undefined when there are none (a server
 * elsewhere). Backends are one thread each, so /proc/<pid>/schedstat (ns) counts them whole. A process that
 * started since the last reading counts whole (it is new); one that ended takes its last stretch with it, so
 * the figure may be a little low, never negative.
 */
function postgresCpuMs(): number | undefined {
  const first = pgSeen.size === 0;
  const now = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) continue;
      now.set(pid, Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the process ended meanwhile
    }
  }
  if (now.size === 0) return undefined;
  if (!first) for (const [pid, ns] of now) pgCountedNs += Math.max(0, ns - (pgSeen.get(pid) ?? 0));
  pgSeen.clear();
  for (const [pid, ns] of now) pgSeen.set(pid, ns);
  return pgCountedNs / 1e6;
}

/**
 * PostgreSQL: refreshes the planner's statistics after a bulk load. A deployment accrues its data over months
 * while autovacuum keeps them current; a benchmark that queries seconds after loading 10,000 cases would
 * otherwise measure plans made for empty tables (autovacuum analyzes within a minute or so).
 */
async function analyzePostgres(databaseUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query('analyze');
  } finally {
    await c.end();
  }
}

async function pgAvailable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

async function freshPgDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `casebook_bench_${Date.now()}`;
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

interface Baseline {
  rps: number;
  p50: number;
}

async function runOn(dbName: 'sqlite' | 'postgres', databaseUrl: string, baseline: Baseline) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `casebook-bench-${dbName}-`));
  if (dbName === 'sqlite') databaseUrl = `sqlite:${path.join(dataDir, 'casebook.db')}`;
  log(`\n== ${dbName}: starting the server`);
  const workers = Number(values.workers);
  let server: BenchServer = await startBenchServer({ databaseUrl, dataDir, port: await freePort(), workers });
  let peakBeforeRestart = 0;
  const client = new Client(server.url, server.apiKey);
  const auth = { authorization: `ApiKey ${server.apiKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const api = `${server.url}/api/public/v0`;
  // Each scenario notes the server's and the database's CPU per request for the row added after it.
  let lastCpu: string[] = ['', ''];
  const counters = [() => server.cpuMs(), dbName === 'postgres' ? postgresCpuMs : () => undefined];
  const load = async (opts: LoadOptions) => {
    const { m, cpu } = await withCpu(counters, (onMeasure) => loadRun(opts, true, onMeasure));
    lastCpu = cpu;
    return m;
  };
  const sequential = async (req: SequentialRequest, count = SIZES.sequential) => {
    const { m, cpu } = await withCpu(counters, (onMeasure) => sequentialRun(req, count, 3, onMeasure));
    lastCpu = cpu;
    return m;
  };
  const add = (scenario: string, r: Omit<Partial<Row>, 'met' | 'cpu'> & { met: boolean | undefined }) => {
    log(
      `  ${scenario}: ${r.throughput ?? ''}, p50 ${r.p50 ?? '-'} (server peak RSS so far ${server.peakRssMb()} MB)`,
    );
    rows.push({
      scenario,
      db: dbName,
      throughput: r.throughput ?? '',
      p50: r.p50 ?? '',
      p99: r.p99 ?? '',
      target: r.target ?? '',
      ratio: r.ratio ?? '',
      cpu: r.throughput?.startsWith('peak RSS') ? '' : lastCpu[0],
      dbCpu: r.throughput?.startsWith('peak RSS') ? '' : lastCpu[1],
      met: r.met === undefined ? '' : r.met ? 'yes' : 'NO',
    });
  };
  const latencyRow = (scenario: string, m: Measured, targetMs: number) =>
    add(scenario, {
      throughput: `${fmt(m.rps, 1)} req/s`,
      p50: ms(m.p50),
      p99: ms(m.p99),
      target: `p50 ≤ ${targetMs} ms`,
      ratio: `${fmt(m.p50 / baseline.p50, 1)}× baseline p50`,
      met: m.p50 <= targetMs,
    });

  try {
    log(`== ${dbName}: generating ${fmt(SIZES.tcases)} test cases, ${fmt(SIZES.runs)} runs`);
    const t0 = Date.now();
    const data: Dataset = await generateDataset(client, {
      code: 'BEN',
      tcaseCount: SIZES.tcases,
      runCount: SIZES.runs,
      log,
    });
    log(
      `  generated in ${((Date.now() - t0) / 1000).toFixed(1)} s (server peak RSS so far ${server.peakRssMb()} MB)`,
    );
    const runTcases = (
      await client.get<{ tcases: { id: string; seq: number }[] }>(`/project/BEN/run/${data.bigRunId}/tcase`)
    ).tcases;
    if (dbName === 'postgres') await analyzePostgres(databaseUrl);
    const seqs = runTcases.map((t) => t.seq);
    const ids = runTcases.map((t) => t.id);
    const cpuProf = values['cpu-prof'];
    if (cpuProf) {
      // The profile covers the scenarios only: the server restarts, profiled, on the generated data.
      const { apiKey, url } = server;
      peakBeforeRestart = server.peakRssMb();
      await server.stop();
      server = await startBenchServer({
        databaseUrl,
        dataDir,
        port: Number(new URL(url).port),
        apiKey,
        workers,
        nodeArgs: [
          '--cpu-prof',
          `--cpu-prof-dir=${path.resolve(cpuProf)}`,
          `--cpu-prof-name=${dbName}-${Date.now()}.cpuprofile`,
        ],
      });
    }

    if (want('get-project')) {
      log(`== ${dbName}: get one project`);
      const m = await load({ url: `${api}/project/BEN`, headers: auth, connections: 32 });
      const ratio = m.rps / baseline.rps;
      add('get one project, 32 connections', {
        throughput: `${fmt(m.rps)} req/s`,
        p50: `${m.p50} ms`,
        p99: `${m.p99} ms`,
        target: '≥ 25 % of baseline req/s',
        ratio: `${fmt(ratio * 100)} % of baseline`,
        met: ratio >= 0.25,
      });
    }

    if (want('list-run')) {
      log(`== ${dbName}: list the big run`);
      const m = await sequential({ url: `${api}/project/BEN/run/${data.bigRunId}/tcase`, headers: auth });
      latencyRow(`list a ${fmt(ids.length)}-case run`, m, 40);
    }

    if (want('list-runs')) {
      log(`== ${dbName}: list runs`);
      const m = await sequential({ url: `${api}/project/BEN/run`, headers: auth });
      latencyRow(`list ${fmt(SIZES.runs + 1)} runs with status counts`, m, 50);
    }

    if (want('record-one')) {
      log(`== ${dbName}: record one result`);
      let i = 0;
      const m = await load({
        url: api,
        connections: 32,
        requests: [
          {
            method: 'POST',
            headers: json,
            setupRequest: (req) => {
              i++;
              return {
                ...req,
                path: `/api/public/v0/project/BEN/run/${data.bigRunId}/tcase/${seqs[i % seqs.length]}/result`,
                body: JSON.stringify({
                  status: i % 3 === 0 ? 'failed' : 'passed',
                  comment: '',
                  timeTaken: 12,
                }),
              };
            },
          },
        ],
      });
      const target = dbName === 'sqlite' ? 4000 : 2000;
      add('record one result, 32 connections', {
        throughput: `${fmt(m.rps)} req/s`,
        p50: `${m.p50} ms`,
        p99: `${m.p99} ms`,
        target: `≥ ${fmt(target)} req/s, p99 ≤ 30 ms`,
        ratio: `${fmt((m.rps / baseline.rps) * 100)} % of baseline`,
        met: m.rps >= target && m.p99 <= 30,
      });
    }

    if (want('record-batch')) {
      log(`== ${dbName}: record batches of 500`);
      let n = 0;
      const m = await load({
        url: api,
        connections: 4,
        requests: [
          {
            method: 'POST',
            path: `/api/public/v0/project/BEN/run/${data.bigRunId}/result/batch`,
            headers: json,
            setupRequest: (req) => {
              const items = Array.from({ length: 500 }, () => {
                n++;
                return {
                  tcaseId: ids[n % ids.length],
                  status: n % 5 === 0 ? 'failed' : 'passed',
                  comment: 'ok',
                  timeTaken: null,
                };
              });
              return { ...req, body: JSON.stringify({ items }) };
            },
          },
        ],
      });
      const perSec = m.rps * 500;
      const target = dbName === 'sqlite' ? 30_000 : 10_000;
      add('record results, batches of 500, 4 clients', {
        throughput: `${fmt(perSec)} results/s`,
        p50: `${m.p50} ms`,
        p99: `${m.p99} ms`,
        target: `≥ ${fmt(target)} results/s`,
        ratio: `${fmt((m.rps / baseline.rps) * 100, 2)} % of baseline req/s`,
        met: perSec >= target,
      });
    }

    if (want('webhook-batch')) {
      // Issue 15: result batches with one webhook subscribed to results_created, against the same load without
      // it (the events are written to the outbox either way; the difference is fanning out and sending).
      log(`== ${dbName}: record batches of 500 without and with one webhook`);
      const receiver = await startWebhookReceiver();
      const batchLoad = () => {
        let n = 0;
        return load({
          url: api,
          connections: 4,
          requests: [
            {
              method: 'POST',
              path: `/api/public/v0/project/BEN/run/${data.bigRunId}/result/batch`,
              headers: json,
              setupRequest: (req) => {
                const items = Array.from({ length: 500 }, () => {
                  n++;
                  return {
                    tcaseId: ids[n % ids.length],
                    status: n % 5 === 0 ? 'failed' : 'passed',
                    comment: 'ok',
                  };
                });
                return { ...req, body: JSON.stringify({ items }) };
              },
            },
          ],
        });
      };
      const without = await batchLoad();
      await client.post('/webhook', {
        name: 'bench',
        endpoint: `${receiver.url}/hook`,
        eventTypes: ['results_created'],
        secret: 'bench-webhook-secret',
      });
      const withHook = await batchLoad();
      const share = withHook.rps / without.rps;
      log(
        `  without: ${fmt(without.rps * 500)} results/s (p50 ${without.p50} ms); with: ${fmt(withHook.rps * 500)} results/s ` +
          `(p50 ${withHook.p50} ms): ${fmt(share * 100, 1)} %`,
      );
      add('record results, batches of 500, 4 clients, one webhook', {
        throughput: `${fmt(withHook.rps * 500)} results/s`,
        p50: `${withHook.p50} ms`,
        p99: `${withHook.p99} ms`,
        target: '≥ 80 % of without',
        ratio: `${fmt(share * 100, 1)} % of ${fmt(without.rps * 500)} results/s without`,
        met: share >= 0.8,
      });

      // 10,000 events, each from a result batch request, into a run of their own: all must reach the receiver.
      const EVENTS = QUICK ? 1_000 : 10_000;
      const run = await client.post<{ id: number }>('/project/BEN/run', {
        title: `Webhook events ${Date.now()}`,
        type: 'static_struct',
        queryPlans: [{ tcaseIds: ids.slice(0, 100) }],
      });
      const t0 = performance.now();
      await mapLimit(
        Array.from({ length: EVENTS }, (_, i) => i),
        8,
        (i) =>
          client.post(`/project/BEN/run/${run.id}/result/batch`, {
            items: [{ tcaseId: ids[i % 100], status: i % 3 === 0 ? 'failed' : 'passed' }],
          }),
      );
      const enqueued = performance.now();
      const deadline = Date.now() + 15 * 60_000;
      log(
        `  ${fmt(EVENTS)} batches posted in ${fmt((enqueued - t0) / 1000, 1)} s; waiting for their deliveries`,
      );
      let lastLog = Date.now();
      while ((await receiver.events(run.id)) < EVENTS && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        if (Date.now() - lastLog > 30_000) {
          lastLog = Date.now();
          log(
            `  ${fmt(await receiver.events(run.id))} delivered after ${fmt((performance.now() - t0) / 1000)} s`,
          );
        }
      }
      const delivered = await receiver.events(run.id);
      const secs = (performance.now() - t0) / 1000;
      log(
        `  ${fmt(EVENTS)} batches posted in ${fmt((enqueued - t0) / 1000, 1)} s; ${fmt(delivered)} events delivered ` +
          `${fmt(secs, 1)} s after the first (${fmt(await receiver.requests())} requests received in all)`,
      );
      add(`${fmt(EVENTS)} result-batch events delivered to one webhook`, {
        throughput: `${fmt(delivered / secs, 1)} events/s`,
        target: `all ${fmt(EVENTS)} delivered`,
        ratio: `${fmt(delivered)} delivered, last ${fmt(secs - (enqueued - t0) / 1000, 1)} s after the last batch`,
        met: delivered === EVENTS,
      });
      await receiver.close();
    }

    if (want('create-with-live-runs')) {
      log(`== ${dbName}: create test cases with ${SIZES.live} live runs open`);
      const top = data.topFolderIds[0];
      await mapLimit(
        Array.from({ length: SIZES.live }, (_, i) => i),
        4,
        (i) =>
          client.post(`/project/BEN/run`, {
            title: `Live ${i}`,
            type: 'live',
            queryPlans: [{ folderIds: [top], ...(i % 2 ? { priorities: ['high', 'medium'] } : {}) }],
          }),
      );
      const folderId = data.leafFolderIds[0];
      let i = 0;
      const m = await sequential(
        {
          url: `${api}/project/BEN/tcase`,
          method: 'POST',
          headers: json,
          body: () =>
            JSON.stringify({ title: `New case ${i++}`, type: 'standalone', folderId, priority: 'high' }),
        },
        QUICK ? 30 : 200,
      );
      latencyRow(`create a test case, ${SIZES.live} live runs open`, m, 15);
    }

    if (want('audit-page')) {
      log(`== ${dbName}: inserting ${fmt(SIZES.audit)} audit events`);
      const firstId = await insertAuditEvents(databaseUrl, SIZES.audit);
      const after = firstId + Math.floor(SIZES.audit / 2);
      const m = await sequential({ url: `${api}/audit-logs?count=1000&after=${after}`, headers: auth });
      latencyRow(`one audit page of 1,000 from ${fmt(SIZES.audit)} events`, m, 20);
    }

    if (want('growth')) {
      const biggest = SIZES.growth[SIZES.growth.length - 1];
      log(`== ${dbName}: growth check, a project of ${fmt(biggest)} cases`);
      await client.post('/project', { code: 'GRO', title: 'Growth' });
      const all: string[] = [];
      const chunks = Math.ceil(biggest / 500);
      const made = await mapLimit(
        Array.from({ length: chunks }, (_, i) => i),
        4,
        async (i) =>
          (
            await client.post<{ tcases: { id: string }[] }>('/project/GRO/tcase/bulk', {
              folderPath: ['Growth', `Part ${i % 50}`],
              tcases: Array.from({ length: Math.min(500, biggest - i * 500) }, (_, j) => ({
                title: `G ${i}-${j}`,
                tags: [],
              })),
            })
          ).tcases.map((t) => t.id),
      );
      for (const m of made) all.push(...m);
      log(`  created ${fmt(all.length)} cases (server peak RSS so far ${server.peakRssMb()} MB)`);
      if (dbName === 'postgres') await analyzePostgres(databaseUrl);
      const perCase: number[] = [];
      for (const size of SIZES.growth) {
        const { id } = await client.post<{ id: number }>('/project/GRO/run', {
          title: `Growth ${size}`,
          type: 'static_struct',
          queryPlans: [{ tcaseIds: all.slice(0, size) }],
        });
        log(`  created a ${fmt(size)}-case run (server peak RSS so far ${server.peakRssMb()} MB)`);
        const m = await sequential(
          { url: `${api}/project/GRO/run/${id}/tcase`, headers: auth },
          QUICK ? 5 : 15,
        );
        const us = (m.p50 * 1000) / size;
        perCase.push(us);
        add(`growth: list a ${fmt(size)}-case run`, {
          p50: ms(m.p50),
          p99: ms(m.p99),
          throughput: `${fmt(us, 2)} µs/case`,
          target: 'about the same µs/case',
          ratio: `${fmt(us / perCase[0], 2)}× the smallest`,
          met: undefined,
        });
      }
      const spread = Math.max(...perCase) / Math.min(...perCase);
      rows[rows.length - 1].met = spread <= 2 ? 'yes' : 'NO';
    }

    const rss = Math.max(peakBeforeRestart, server.peakRssMb());
    add('server memory during all of it', {
      throughput: `peak RSS ${rss} MB`,
      target: '≤ 300 MB',
      met: rss <= 300,
    });
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  if (!values['skip-build']) {
    log('== building (npm run build)');
    execSync('npm run build --silent', { stdio: 'inherit', cwd: path.resolve(import.meta.dirname, '..') });
  }
  log('== baseline: a trivial Fastify route in its own process, 32 connections');
  const server = await startBaselineServer(await freePort());
  const { m: b, cpu: baselineCpu } = await withCpu([server.cpuMs], (onMeasure) =>
    loadRun({ url: `${server.url}/baseline`, connections: 32 }, true, onMeasure),
  );
  const bs = await sequentialRun({ url: `${server.url}/baseline` }, 200, 20);
  await server.stop();
  rows.push({
    scenario: 'baseline: trivial Fastify route, 32 connections',
    db: '-',
    throughput: `${fmt(b.rps)} req/s`,
    p50: `${b.p50} ms (one client: ${ms(bs.p50)})`,
    p99: `${b.p99} ms`,
    target: '',
    ratio: '1.00',
    cpu: baselineCpu[0],
    dbCpu: '',
    met: '',
  });
  const baseline: Baseline = { rps: b.rps, p50: bs.p50 };

  const dbs = values.db === 'both' ? ['sqlite', 'postgres'] : [values.db!];
  for (const name of dbs) {
    if (name === 'sqlite') await runOn('sqlite', '', baseline);
    else if (name === 'postgres') {
      const admin =
        process.env.CASEBOOK_BENCH_POSTGRES_URL ??
        process.env.CASEBOOK_TEST_POSTGRES_URL ??
        'postgres://postgres@127.0.0.1:5432/postgres';
      if (!(await pgAvailable(admin))) {
        log(
          `== postgres: not reachable at ${admin.replace(/:[^:@/]*@/, ':****@')}; skipped (set CASEBOOK_BENCH_POSTGRES_URL)`,
        );
        continue;
      }
      const database = await freshPgDatabase(admin);
      try {
        await runOn('postgres', database.url, baseline);
      } finally {
        await database.drop();
      }
    }
  }

  const headers: Row = {
    scenario: 'scenario',
    db: 'db',
    throughput: 'throughput',
    p50: 'p50',
    p99: 'p99',
    target: 'target',
    ratio: 'vs baseline',
    cpu: 'server CPU',
    dbCpu: 'db CPU',
    met: 'met',
  };
  const cols = Object.keys(headers) as (keyof Row)[];
  const widths = cols.map((c) => Math.max(headers[c].length, ...rows.map((r) => r[c].length)));
  const line = (r: Row) => `| ${cols.map((c, i) => r[c].padEnd(widths[i])).join(' | ')} |`;
  console.log(
    `\nCasebook benchmark — ${os.cpus().length} cores, node ${process.version}, ${QUICK ? 'QUICK data set' : 'full data set'}, ` +
      `${DURATION} s per load scenario (after ${WARMUP_SECONDS} s of warm-up), load average ${os.loadavg()[0].toFixed(1)}\n`,
  );
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
