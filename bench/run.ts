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
 *   npm run bench -- --only list-run-written   the big run listed after each of a stream of results (its body changes every time)
 *   npm run bench -- --only reports         every report endpoint on the reports data set (bench/reports.ts);
 *                                           reports-run, reports-flaky, ... one of them
 *   npm run bench -- --only search          full-text search (q) of a 50,000-case project (bench/search.ts), alone:
 *                                           without the standard data set
 *   npm run bench -- --only webhook-batch   result batches with one webhook subscribed, and 10,000 events delivered
 *   npm run bench -- --only triage          failure triage (bench/triage.ts), alone and in process: signing 100,000
 *                                           failures, grouping a 10,000-case run (medians)
 *   npm run bench -- --workers 2     serve with two processes (casebook serve --workers 2)
 *   npm run bench -- --keep-db       leaves the PostgreSQL database in place for psql (its URL is printed)
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
import os from 'node:os';
import path from 'node:path';
import { loadRun, sequentialRun, withCpu } from './lib/measure.js';
import { DURATION, QUICK, values, WARMUP_SECONDS } from './lib/options.js';
import { freshPgDatabase, pgAvailable } from './lib/postgres.js';
import { fmt, log, ms, printTable, type Row } from './lib/report.js';
import { freePort, startBaselineServer } from './lib/server.js';
import { runOn, type Baseline } from './scenarios.js';
import { runTriageBench } from './triage.js';

async function main() {
  if (values.only === 'triage') return runTriageBench();
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
  const rows: Row[] = [];
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
    if (name === 'sqlite') rows.push(...(await runOn('sqlite', '', baseline)));
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
        rows.push(...(await runOn('postgres', database.url, baseline)));
      } finally {
        if (values['keep-db']) log(`== postgres: kept ${database.url} (--keep-db)`);
        else await database.drop();
      }
    }
  }

  printTable(
    `\nCasebook benchmark — ${os.cpus().length} cores, node ${process.version}, ${QUICK ? 'QUICK data set' : 'full data set'}, ` +
      `${DURATION} s per load scenario (after ${WARMUP_SECONDS} s of warm-up), load average ${os.loadavg()[0].toFixed(1)}\n`,
    rows,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
