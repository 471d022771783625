/**
 * `npm run bench -- --only triage` (issue 45): the time to sign 100,000 generated failures (src/lib/failure-signature.ts,
 * in memory, each comment distinct) and to group a 10,000-case run (`GET /project/:p/run/:r/failure-group`, in
 * process through inject: the query, the grouping and the answer's serialisation), medians, on SQLite and on
 * PostgreSQL when reachable; and how well signatures group the labelled corpus of real CI failures
 * (bench/triage-corpus/, bench/lib/triage-corpus.ts): B-cubed and pairwise precision and recall. A measurement, not a
 * test: nothing fails here (test/triage-corpus.test.ts fails under the bars).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { createDb, type Db } from '../src/db/create-db.js';
import { failureSignature } from '../src/lib/failure-signature.js';
import { labelledComments, scoreGrouping } from './lib/triage-corpus.js';
import { apiCaller, benchConfig, firstStartOf } from './lib/in-process.js';
import { QUICK } from './lib/options.js';
import { analyzePostgres, freshPgDatabase, pgAvailable } from './lib/postgres.js';
import { fmt, log, ms } from './lib/report.js';

const SIGNED = QUICK ? 10_000 : 100_000;
const RUN_CASES = QUICK ? 1_000 : 10_000;
const SIGN_ROUNDS = 5;
const GROUP_ROUNDS = QUICK ? 5 : 20;
/** Runs of the same cases before the big one (the flaky score's window). */
const EARLIER_RUNS = QUICK ? 2 : 4;
/** Failures of the big run: every third case, in this many distinct problems. */
const PROBLEMS = 40;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

let seed = 45;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[rnd(16)]).join('');
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A failure's comment HTML as the uploader and the JUnit endpoint write it, in one of four frameworks' words. */
function generatedFailure(problem: number): string {
  const line = 10 + rnd(400);
  const root = ['/home/runner/work/shop/shop', `/builds/ci-${rnd(9999)}/shop`, `/tmp/ws-${hex(8)}`][rnd(3)];
  switch (problem % 4) {
    case 0:
      return (
        `<p>Error: locator.click: Timeout ${1000 * (1 + rnd(60))}ms exceeded.</p><pre><code>Call log:\n` +
        `  - waiting for locator('#step-${problem}')\n\n    at ${root}/tests/flow${problem}.spec.ts:${line}:${rnd(80)}</code></pre>`
      );
    case 1:
      return (
        `<pre><code>${esc(`Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: ${rnd(1000)}\nReceived: ${rnd(1000)}`)}\n` +
        `    at Object.&lt;anonymous&gt; (${root}/src/module${problem}.test.js:${line}:17)\n` +
        `    at Promise.then.completed (${root}/node_modules/jest-circus/build/utils.js:298:28)</code></pre>`
      );
    case 2:
      return (
        `<pre><code>${esc(`org.opentest4j.AssertionFailedError: expected: <${rnd(600)}> but was: <${rnd(600)}>`)}\n` +
        `\tat org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:166)\n` +
        `\tat com.shop.Problem${problem}Test.order${hex(4)}(Problem${problem}Test.java:${line})</code></pre>`
      );
    default:
      return (
        `<pre><code>def test_total():\n&gt;       assert total(cart_${hex(6)}) == ${rnd(100)}\n` +
        `E       assert ${rnd(100)} == ${rnd(100)}\n\n${root}/tests/test_problem${problem}.py:${line}: AssertionError</code></pre>`
      );
  }
}

function signMany(): number {
  const comments = Array.from({ length: SIGNED }, (_, i) => generatedFailure(i % PROBLEMS));
  const times: number[] = [];
  for (let round = 0; round < SIGN_ROUNDS; round++) {
    const t0 = performance.now();
    for (const c of comments) failureSignature(c);
    times.push(performance.now() - t0);
  }
  const distinct = new Set(comments.slice(0, 4000).map((c) => failureSignature(c).signature)).size;
  log(`   ${fmt(SIGNED)} failures from ${PROBLEMS} problems: ${distinct} signatures among the first 4,000`);
  return median(times);
}

async function groupBigRun(
  db: Db,
  dir: string,
  /** PostgreSQL's URL: its statistics are refreshed after the load, as autovacuum would (bench/lib/postgres.ts). */
  pgUrl?: string,
): Promise<{ median: number; groups: number; bytes: number; flakyMedian: number; flaky: number }> {
  const config = benchConfig(dir);
  const { apiKey } = await firstStartOf(db, config);
  const app = await buildApp({ config, db, webRoot: null });
  const call = apiCaller(app, apiKey);
  try {
    await call('POST', '/project', { code: 'TRI', title: 'Triage bench' });
    const ids: string[] = [];
    for (let i = 0; i < RUN_CASES; i += 1000) {
      const tcases = Array.from({ length: Math.min(1000, RUN_CASES - i) }, (_, k) => ({
        title: `Case ${i + k}`,
      }));
      const res = await call('POST', '/project/TRI/tcase/bulk', { folderPath: ['Bench'], tcases });
      ids.push(...JSON.parse(res.body).tcases.map((c: { id: string }) => c.id));
    }
    // Earlier runs of the same cases, so the run's flaky scores read a window of runs: every seventh case fails
    // in one of them and passes in the next.
    for (let r = 0; r < EARLIER_RUNS; r++) {
      const earlier = JSON.parse(
        (
          await call('POST', '/project/TRI/run', {
            title: `Earlier ${r + 1}`,
            type: 'static_struct',
            queryPlans: [{ tcaseIds: ids }],
          })
        ).body,
      );
      for (let i = 0; i < ids.length; i += 5000) {
        const items = ids
          .slice(i, i + 5000)
          .map((tcaseId, k) => ({ tcaseId, status: (i + k + r) % 7 === 0 ? 'failed' : 'passed' }));
        await call('POST', `/project/TRI/run/${earlier.id}/result/batch`, { items });
      }
    }
    const run = JSON.parse(
      (
        await call('POST', '/project/TRI/run', {
          title: 'Big',
          type: 'static_struct',
          queryPlans: [{ tcaseIds: ids }],
        })
      ).body,
    );
    for (let i = 0; i < ids.length; i += 5000) {
      const items = ids.slice(i, i + 5000).map((tcaseId, k) => {
        const n = i + k;
        return n % 3 === 0
          ? { tcaseId, status: 'failed', comment: generatedFailure(n % PROBLEMS) }
          : { tcaseId, status: 'passed' };
      });
      await call('POST', `/project/TRI/run/${run.id}/result/batch`, { items });
    }
    if (pgUrl) await analyzePostgres(pgUrl);
    const url = `/project/TRI/run/${run.id}/failure-group`;
    for (let i = 0; i < 3; i++) await call('GET', url);
    const times: number[] = [];
    let body = '';
    for (let i = 0; i < GROUP_ROUNDS; i++) {
      const t0 = performance.now();
      body = (await call('GET', url)).body;
      times.push(performance.now() - t0);
    }
    // The run page's flaky column: the scores of the run's cases over its configuration's last 20 runs.
    const flakyUrl = `/project/TRI/run/${run.id}/flaky-score`;
    for (let i = 0; i < 3; i++) await call('GET', flakyUrl);
    const flakyTimes: number[] = [];
    let flakyBody = '';
    for (let i = 0; i < GROUP_ROUNDS; i++) {
      const t0 = performance.now();
      flakyBody = (await call('GET', flakyUrl)).body;
      flakyTimes.push(performance.now() - t0);
    }
    return {
      median: median(times),
      groups: JSON.parse(body).groups.length,
      bytes: body.length,
      flakyMedian: median(flakyTimes),
      flaky: JSON.parse(flakyBody).tcases.length,
    };
  } finally {
    await app.close();
  }
}

/** The corpus's grouping figures, as lines of the report. */
function corpusFigures(): string[] {
  const items = labelledComments();
  const signed = items.map((i) => failureSignature(i.html));
  const s = scoreGrouping(
    items,
    signed.map((x) => x.signature),
    signed.map((x) => x.label),
  );
  const f = (x: number) => x.toFixed(3);
  return [
    `corpus: ${fmt(s.failures)} failures (${s.realFailures} real, the rest generated re-runs) in ${s.trueGroups} true groups → ${s.signatures} signatures`,
    `corpus grouping, B-cubed: precision ${f(s.bcubed.precision)} (target ≥ 0.95), recall ${f(s.bcubed.recall)} (target ≥ 0.90)`,
    `corpus grouping, pairwise: precision ${f(s.pairwise.precision)}, recall ${f(s.pairwise.recall)}`,
    ...s.split.map((g) => `  split: ${g.group} over ${g.signatures} signatures`),
    ...s.merged.map((m) => `  merged: ${m.groups.join(' + ')} as "${m.label}"`),
  ];
}

/** Prints the figures; `--only triage` runs this alone (no build, no server process). */
export async function runTriageBench(): Promise<void> {
  log(`== triage: signing ${fmt(SIGNED)} generated failures (${SIGN_ROUNDS} rounds)`);
  const signMs = median([signMany()]);
  const lines = [
    ...corpusFigures(),
    `sign ${fmt(SIGNED)} failures: median ${ms(signMs)} (target ≤ 10 s for 100,000)`,
  ];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-triage-'));
  try {
    log(`== triage: a run of ${fmt(RUN_CASES)} cases on SQLite`);
    const sqlite = createDb(`sqlite:${path.join(dir, 'triage.db')}`);
    try {
      const g = await groupBigRun(sqlite, dir);
      lines.push(
        `group a ${fmt(RUN_CASES)}-case run [sqlite]: median ${ms(g.median)} (${g.groups} groups, ${fmt(g.bytes)} bytes; target ≤ 200 ms)`,
        `flaky scores of a ${fmt(RUN_CASES)}-case run over ${EARLIER_RUNS + 1} runs [sqlite]: median ${ms(g.flakyMedian)} (${fmt(g.flaky)} cases flip)`,
      );
    } finally {
      await sqlite.destroy();
    }
    const admin =
      process.env.CASEBOOK_BENCH_POSTGRES_URL ??
      process.env.CASEBOOK_TEST_POSTGRES_URL ??
      'postgres://postgres@127.0.0.1:5432/postgres';
    if (await pgAvailable(admin)) {
      log(`== triage: a run of ${fmt(RUN_CASES)} cases on PostgreSQL`);
      const database = await freshPgDatabase(admin);
      const pg = createDb(database.url);
      try {
        const g = await groupBigRun(pg, dir, database.url);
        lines.push(
          `group a ${fmt(RUN_CASES)}-case run [postgres]: median ${ms(g.median)} (${g.groups} groups; target ≤ 200 ms)`,
          `flaky scores of a ${fmt(RUN_CASES)}-case run over ${EARLIER_RUNS + 1} runs [postgres]: median ${ms(g.flakyMedian)} (${fmt(g.flaky)} cases flip)`,
        );
      } finally {
        await pg.destroy();
        await database.drop();
      }
    } else lines.push('group [postgres]: not reachable, skipped');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nCasebook triage benchmark — ${os.cpus().length} cores, node ${process.version}\n`);
  for (const line of lines) console.log(`  ${line}`);
}
