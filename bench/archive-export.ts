/*
 * One measurement (issue 29's note, not a test, kept out of CI): the memory of a project archive's export.
 * Fills a project of N cases (5 steps, 3 tags, a requirement and a custom value each, two versions) through the
 * QA Sphere CSV import, then exports it as a Casebook archive in a child process of its own (so the fill's memory
 * is not counted), gzipped to nowhere, and prints the child's peak RSS and its peak heap. Usage:
 *   npx tsx bench/archive-export.ts [sqlite|postgres] [cases]
 * PostgreSQL uses CASEBOOK_TEST_POSTGRES_URL (a database is created and dropped). With BENCH_KEEP=<folder>
 * (SQLite), the filled database is kept there and used again by the next run, so two versions of the export can
 * be measured on the same data. Live heap: heapUsed right after a forced collection, every 10,000 records.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { buildApp } from '../src/app.js';
import { firstStart } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { archiveLines, projectIdByCode } from '../src/db/archive/export.js';
import { createDb, type Db } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createJobRunner } from '../src/jobs/index.js';
import { openFileStorages } from '../src/modules/files/files.storages.js';
import { createPostgresDatabase } from '../test/helpers/databases.js';

const settings = (dir: string) =>
  loadConfig({
    CASEBOOK_LOG_LEVEL: 'silent',
    CASEBOOK_DATA_DIR: dir,
    CASEBOOK_OWNER_EMAIL: 'owner@example.com',
    CASEBOOK_OWNER_PASSWORD: 'owner-password',
    CASEBOOK_PUBLIC_URL: 'http://casebook.test',
    CASEBOOK_SECRET_KEY: 'bench-secret-key-0123456789',
  });

const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

function csv(n: number): Buffer {
  const header = ['Folder', 'Type', 'Name', 'Legacy ID', 'Draft', 'Priority', 'Tags', 'Requirements'];
  header.push('Preconditions', 'custom_field_text_env');
  for (let s = 1; s <= 5; s++) header.push(`Step ${s}`, `Expected ${s}`);
  const lines = [header.join(',')];
  for (let i = 0; i < n; i++) {
    const row = [`Suite ${i % 10}/Area ${i % 7}`, 'standalone', `Case ${i}`, `B-${i}`, 'false', 'medium'];
    row.push(
      `t${i % 20},u${i % 7},v${i % 3}`,
      `[REQ-${i % 500}](https://tracker.example.com/REQ-${i % 500})`,
    );
    row.push(`A user with **role ${i % 5}**`, JSON.stringify({ value: `env ${i % 4}` }));
    for (let s = 1; s <= 5; s++) row.push(`Do step ${s} of case ${i}`, `Step ${s} _works_`);
    lines.push(row.map(cell).join(','));
  }
  return Buffer.from(lines.join('\r\n') + '\r\n');
}

async function fill(db: Db, dir: string, n: number): Promise<void> {
  const config = settings(dir);
  await migrateToLatest(db);
  const first = (await firstStart(db, config))!;
  const app = await buildApp({ config, db, webRoot: null });
  const headers = { authorization: `ApiKey ${first.apiKey}` };
  const call = (method: 'POST', url: string, payload: object) =>
    app.inject({ method, url: `/api/public/v0${url}`, headers, payload });
  await call('POST', '/project', { code: 'BEN', title: 'Bench' });
  await call('POST', '/custom-field', { type: 'text', systemName: 'env', name: 'Environment' });
  const boundary = 'bench-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\nqasphere-csv\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.csv"\r\n\r\n`),
    csv(n),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  // Imported twice: the second import updates every case (by legacy id), so each has two versions.
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/public/v0/project/BEN/import',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    if (res.statusCode !== 202) throw new Error(res.body);
    await createJobRunner(db, config, app.ctx, { concurrency: 1 }).drain();
  }
  await app.close();
}

/** The child: exports project BEN, answers its figures as one JSON line. */
async function exportOnce(db: Db, dir: string): Promise<void> {
  const config = settings(dir);
  const storages = openFileStorages(config, db);
  const tenant = await db.selectFrom('tenants').select('id').executeTakeFirstOrThrow();
  const projectId = (await projectIdByCode(db, tenant.id, 'BEN'))!;
  globalThis.gc?.();
  const base = process.memoryUsage();
  let heapPeak = base.heapUsed;
  let livePeak = base.heapUsed;
  let lines = 0;
  let bytes = 0;
  const t0 = performance.now();
  async function* counted() {
    for await (const line of archiveLines({
      db,
      tenantId: tenant.id,
      projectId,
      readFile: (s, key) => storages.of(s).get(key),
    })) {
      if (++lines % 2000 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      if (lines % 10000 === 0) {
        globalThis.gc?.();
        livePeak = Math.max(livePeak, process.memoryUsage().heapUsed);
      }
      yield line;
    }
  }
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done();
    },
  });
  await pipeline(Readable.from(counted()), createGzip(), sink);
  const seconds = (performance.now() - t0) / 1000;
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  console.log(
    JSON.stringify({
      lines,
      gzipBytes: bytes,
      seconds,
      baseHeapMB: base.heapUsed / 2 ** 20,
      baseRssMB: base.rss / 2 ** 20,
      peakLiveHeapMB: livePeak / 2 ** 20,
      peakHeapMB: heapPeak / 2 ** 20,
      peakRssMB: process.resourceUsage().maxRSS / 1024,
    }),
  );
  storages.close();
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'export-child') {
  const [url, dir] = rest;
  const db = createDb(url);
  await exportOnce(db, dir);
  await db.destroy();
} else {
  const target = mode ?? 'sqlite';
  const n = Number(rest[0] ?? 20000);
  const keep = target === 'sqlite' ? process.env.BENCH_KEEP : undefined;
  const reuse = keep !== undefined && fs.existsSync(path.join(keep, 'bench.db'));
  if (keep) fs.mkdirSync(keep, { recursive: true });
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-archive-'));
  const pgUrl = process.env.CASEBOOK_TEST_POSTGRES_URL;
  const created =
    target === 'postgres'
      ? await createPostgresDatabase(pgUrl!)
      : { db: createDb(`sqlite:${dir}/bench.db`), drop: async () => {}, url: `sqlite:${dir}/bench.db` };
  try {
    const f0 = performance.now();
    if (!reuse) {
      await fill(created.db, dir, n);
      console.error(`filled ${n} cases in ${((performance.now() - f0) / 1000).toFixed(0)} s`);
    }
    const url = 'url' in created && created.url ? created.url : `sqlite:${dir}/bench.db`;
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), 'export-child', String(url), dir],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const figures = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    console.log(
      `${target}: export of ${n} cases: ${figures.lines} records, ${(figures.gzipBytes / 1e6).toFixed(1)} MB gzip, ` +
        `${figures.seconds.toFixed(1)} s; peak RSS ${figures.peakRssMB.toFixed(0)} MB (${figures.baseRssMB.toFixed(0)} MB ` +
        `before the export), peak heap ${figures.peakHeapMB.toFixed(0)} MB, peak live heap ` +
        `${figures.peakLiveHeapMB.toFixed(0)} MB (${figures.baseHeapMB.toFixed(0)} MB before the export)`,
    );
  } finally {
    // drop() lets go of the pool itself (PostgreSQL); SQLite's file goes with the folder.
    if (target === 'postgres') await created.drop();
    else await created.db.destroy();
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}
