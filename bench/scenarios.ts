import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, mapLimit } from './lib/client.js';
import { generateDataset, type Dataset } from './lib/generate.js';
import { insertAuditEvents } from './lib/audit-fill.js';
import {
  loadRun,
  sequentialRun,
  withCpu,
  type LoadOptions,
  type Measured,
  type SequentialRequest,
} from './lib/measure.js';
import { QUICK, SIZES, values, want } from './lib/options.js';
import { analyzePostgres, postgresCpuMs } from './lib/postgres.js';
import { fmt, log, ms, type Row } from './lib/report.js';
import { freePort, startBenchServer, type BenchServer } from './lib/server.js';
import { startWebhookReceiver } from './lib/webhook-receiver.js';
import { runReportScenarios, wantReports } from './reports.js';
import { runSearchScenarios, wantSearch } from './search.js';

/* The scenarios of `npm run bench` (bench/run.ts), run against one database: its server, its data set, its rows. */

export interface Baseline {
  rps: number;
  p50: number;
}

/** Starts a server on the database, generates the data set, runs the chosen scenarios and answers their rows. */
export async function runOn(
  dbName: 'sqlite' | 'postgres',
  databaseUrl: string,
  baseline: Baseline,
): Promise<Row[]> {
  const rows: Row[] = [];
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

  const searchContext = {
    dbName,
    databaseUrl,
    client,
    api,
    auth,
    baselineP50: baseline.p50,
    sequential,
    add,
  };
  try {
    // `--only search` needs none of the standard data set: its own project is the 50,000 cases searched.
    if (values.only === 'search') {
      await runSearchScenarios(searchContext);
      return rows;
    }
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

    if (want('list-run-written')) {
      // A run being worked: a result lands before each list, so PostgreSQL's kept body is never the current one.
      log(`== ${dbName}: list the big run, a result recorded before each list`);
      let i = 0;
      const m = await sequential({
        url: `${api}/project/BEN/run/${data.bigRunId}/tcase`,
        headers: auth,
        before: async () => {
          i++;
          const res = await fetch(
            `${api}/project/BEN/run/${data.bigRunId}/tcase/${seqs[i % seqs.length]}/result`,
            {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ status: i % 2 === 0 ? 'failed' : 'passed', comment: '', timeTaken: 12 }),
            },
          );
          if (!res.ok) throw new Error(`recording a result answered ${res.status}`);
          await res.arrayBuffer();
        },
      });
      latencyRow(`list a ${fmt(ids.length)}-case run after each result`, m, 40);
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

    // After the memory row: the reports' data set is a second, larger project, and the 300 MB target is the
    // standard data set's.
    if (wantSearch()) await runSearchScenarios(searchContext);
    if (wantReports()) {
      await runReportScenarios({
        dbName,
        databaseUrl,
        client,
        api,
        auth,
        baselineP50: baseline.p50,
        sequential,
        add,
      });
    }
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
