/**
 * `npx tsx bench/junit-upload.ts [--db sqlite|postgres] [--results N]`: the time to record a JUnit XML report of
 * N results (default 10,000; issue 29's target: ≤ 5 s) through `POST /project/{p}/run/{id}/junit` (`app.inject`),
 * into a static_struct run of N cases; PostgreSQL from CASEBOOK_TEST_POSTGRES_URL (a fresh database). Not a test.
 * A tenth of the tests fail with a stack trace and output; every test carries its marker (`JUB-00042: …`).
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
import { freshPgDatabase } from './lib/postgres.js';

const { values } = parseArgs({
  options: { db: { type: 'string', default: 'sqlite' }, results: { type: 'string', default: '10000' } },
});
const N = Number(values.results);

function report(code: string, seqs: number[]): string {
  const cases = seqs.map((seq, i) => {
    const name = `${code}-${String(seq).padStart(5, '0')}: checkout scenario ${i}`;
    const time = (0.05 + (i % 97) / 100).toFixed(3);
    if (i % 10 !== 0) return `<testcase classname="shop.Checkout" name="${name}" time="${time}"/>`;
    return (
      `<testcase classname="shop.Checkout" name="${name}" time="${time}"><failure message="expected 200 but was 500">` +
      `AssertionError: expected 200 but was 500\n  at Checkout.pay (checkout.ts:${i}:7)\n  at run (runner.ts:12:3)` +
      `</failure><system-out>POST /pay -&gt; 500 &lt;html&gt;</system-out></testcase>`
    );
  });
  return `<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="bench" tests="${N}">${cases.join('\n')}</testsuite></testsuites>`;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-junit-bench-'));
  const pgUrl = process.env.CASEBOOK_TEST_POSTGRES_URL;
  if (values.db === 'postgres' && !pgUrl) throw new Error('set CASEBOOK_TEST_POSTGRES_URL for --db postgres');
  const pgDb = values.db === 'postgres' ? await freshPgDatabase(pgUrl!) : undefined;
  const db = createDb(pgDb ? pgDb.url : `sqlite:${path.join(dir, 'bench.db')}`);
  try {
    const config = benchConfig(dir);
    const { apiKey, actor } = await firstStartOf(db, config);
    const app = await buildApp({ config, db });
    const auth = { authorization: `ApiKey ${apiKey}` };
    const created = await app.inject({
      method: 'POST',
      url: '/api/public/v0/project',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ code: 'JUB', title: 'JUnit bench' }),
    });
    if (created.statusCode !== 201) throw new Error(created.body);
    const tcases: { id: string; seq: number }[] = [];
    for (let f = 0; tcases.length < N; f++) {
      const n = Math.min(1000, N - tcases.length);
      const res = await bulkCreateTestCases(
        db,
        actor,
        'JUB',
        {
          folderPath: ['Bench', `Folder ${f}`],
          tcases: Array.from({ length: n }, (_, i) => ({ title: `Case ${f}-${i}` })),
        },
        app.ctx.tcasesChanged,
      );
      tcases.push(...res.tcases);
    }
    const { id: runId } = await createRun(db, actor, 'JUB', {
      title: 'JUnit bench',
      type: 'static_struct',
      queryPlans: [{ tcaseIds: tcases.map((c) => c.id) }],
    });
    const xml = report(
      'JUB',
      tcases.map((c) => c.seq),
    );
    const t0 = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: `/api/public/v0/project/JUB/run/${runId}/junit`,
      headers: { ...auth, 'content-type': 'application/xml' },
      payload: xml,
    });
    const took = performance.now() - t0;
    if (res.statusCode !== 201) throw new Error(res.body.slice(0, 500));
    const body = JSON.parse(res.body) as { results: number; unmatched: string[] };
    console.log(
      `${values.db}: ${body.results} results (${body.unmatched.length} unmatched) from a ${(xml.length / 1024 / 1024).toFixed(1)} MiB JUnit file in ${(took / 1000).toFixed(2)} s`,
    );
    await app.close();
  } finally {
    await db.destroy();
    await pgDb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
