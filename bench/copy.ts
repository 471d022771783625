/**
 * `casebook copy` SQLite → PostgreSQL of a generated data set (issue 30): builds the data set through the API of an
 * in-process server on a fresh SQLite file (bench/lib/generate.ts), adds audit events, then times the copy.
 *
 *   npx tsx bench/copy.ts [--cases 10000] [--runs 1000] [--audit 100000]
 * Needs CASEBOOK_BENCH_POSTGRES_URL (or CASEBOOK_TEST_POSTGRES_URL): an admin URL to create the target database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { copyDatabase } from '../src/db/copy/copy.js';
import { createDb } from '../src/db/create-db.js';
import { insertAuditEvents } from './lib/audit-fill.js';
import { Client } from './lib/client.js';
import { generateDataset } from './lib/generate.js';
import { benchConfig, firstStartOf } from './lib/in-process.js';
import { freshPgDatabase } from './lib/postgres.js';

const { values } = parseArgs({
  options: { cases: { type: 'string' }, runs: { type: 'string' }, audit: { type: 'string' } },
});
const adminUrl = process.env.CASEBOOK_BENCH_POSTGRES_URL ?? process.env.CASEBOOK_TEST_POSTGRES_URL;
if (!adminUrl) throw new Error('set CASEBOOK_BENCH_POSTGRES_URL to a PostgreSQL admin URL');
const log = (s: string) => process.stderr.write(`${s}\n`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-copy-bench-'));
const sourceUrl = `sqlite:${path.join(dir, 'casebook.db')}`;
const target = await freshPgDatabase(adminUrl);
try {
  const config = benchConfig(dir, { CASEBOOK_DATABASE_URL: sourceUrl });
  const db = createDb(sourceUrl);
  const first = await firstStartOf(db, config);
  const app = await buildApp({ config, db, webRoot: null });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  log('generating the data set');
  await generateDataset(new Client(address, first.apiKey), {
    code: 'BENCH',
    tcaseCount: Number(values.cases ?? 10_000),
    runCount: Number(values.runs ?? 1000),
    log,
  });
  await app.close();
  await db.destroy();
  await insertAuditEvents(sourceUrl, Number(values.audit ?? 100_000));
  log('copying');
  const started = performance.now();
  const report = await copyDatabase({ from: sourceUrl, to: target.url, progress: () => {} });
  const seconds = (performance.now() - started) / 1000;
  const rows = report.tables.reduce((n, t) => n + t.targetRows, 0);
  process.stdout.write(
    `${JSON.stringify({ ok: report.ok, tables: report.tables.length, rows, seconds: Number(seconds.toFixed(1)) })}\n`,
  );
} finally {
  await target.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}
