/**
 * `npx tsx bench/quick-results.ts`: a quick measurement of the single-result hot path on SQLite (not a test).
 * Builds a file database with one static_struct run of 10,000 test cases (cases created through the
 * services, not HTTP, for speed), then prints the median time of
 *   - listing the run's cases: `GET /project/{p}/run/{id}/tcase` through `app.inject`, and
 *   - recording a 5,000-item batch: `POST /project/{p}/run/{id}/result/batch` through `app.inject`.
 * Options: `--cases N` (default 10000), `--batch N` (default 5000), `--rounds N` (default 9).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { createDb } from '../src/db/create-db.js';
import { createRun } from '../src/modules/runs/runs.service.js';
import { bulkCreateTestCases } from '../src/modules/test-cases/test-cases.service.js';
import { benchConfig, firstStartOf } from './lib/in-process.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '9' },
  },
});
const CASES = Number(values.cases);
const BATCH = Number(values.batch);
const ROUNDS = Number(values.rounds);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-quick-results-'));
  const db = createDb(`sqlite:${path.join(dir, 'bench.db')}`);
  try {
    const config = benchConfig(dir);
    const { apiKey, actor } = await firstStartOf(db, config);
    const app = await buildApp({ config, db });
    const headers = { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' };

    const created = await app.inject({
      method: 'POST',
      url: '/api/public/v0/project',
      headers,
      payload: JSON.stringify({ code: 'QRB', title: 'Quick results bench' }),
    });
    if (created.statusCode !== 201) throw new Error(created.body);

    let t0 = performance.now();
    const tcaseIds: string[] = [];
    // 20 folders of 500 cases each, created through the test-case service, wired as the server wires it.
    const { ctx } = app;
    for (let f = 0; tcaseIds.length < CASES; f++) {
      const n = Math.min(500, CASES - tcaseIds.length);
      const res = await bulkCreateTestCases(
        db,
        actor,
        'QRB',
        {
          folderPath: ['Bench', `Folder ${f}`],
          tcases: Array.from({ length: n }, (_, i) => ({ title: `Case ${f}-${i}: checkout scenario ${i}` })),
        },
        ctx.tcasesChanged,
      );
      tcaseIds.push(...res.tcases.map((c) => c.id));
    }
    const { id: runId } = await createRun(db, actor, 'QRB', {
      title: 'Ten thousand',
      type: 'static_struct',
      queryPlans: [{ tcaseIds }],
    });
    console.log(`setup: ${CASES} cases and the run in ${ms(performance.now() - t0)}`);

    const statuses = ['passed', 'failed', 'blocked', 'skipped', 'passed', 'passed'];
    const batchTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Each round writes to a different slice of the run, so statuses keep moving.
      const start = (round * BATCH) % CASES;
      const items = Array.from({ length: BATCH }, (_, i) => ({
        tcaseId: tcaseIds[(start + i) % CASES],
        status: statuses[(round + i) % statuses.length],
        comment: i % 10 === 0 ? `<p>failure ${i}: <code>expected 200, got 500</code></p>` : '',
        timeTaken: i % 7 === 0 ? null : 100 + i,
      }));
      const payload = JSON.stringify({ items });
      t0 = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: `/api/public/v0/project/QRB/run/${runId}/result/batch`,
        headers,
        payload,
      });
      const took = performance.now() - t0;
      if (res.statusCode !== 201) throw new Error(res.body.slice(0, 500));
      batchTimes.push(took);
    }

    const listTimes: number[] = [];
    let listed = 0;
    for (let round = 0; round < ROUNDS + 2; round++) {
      t0 = performance.now();
      const res = await app.inject({
        method: 'GET',
        url: `/api/public/v0/project/QRB/run/${runId}/tcase`,
        headers,
      });
      const took = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(res.body.slice(0, 500));
      listed = (JSON.parse(res.body) as { tcases: unknown[] }).tcases.length;
      if (round >= 2) listTimes.push(took); // the first two warm the caches
    }

    console.log(
      `list a ${listed}-case run (GET …/run/{id}/tcase): median ${ms(median(listTimes))} of ${listTimes.length}`,
    );
    console.log(
      `record a ${BATCH}-item batch (POST …/result/batch): median ${ms(median(batchTimes))} of ${batchTimes.length}` +
        ` (first ${ms(batchTimes[0])})`,
    );
    await app.close();
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
