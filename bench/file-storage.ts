/**
 * Upload and download throughput of a 10 MB file through the API, local disk against PostgreSQL storage, on one
 * PostgreSQL database (issue 30's figure: PostgreSQL ≥ 50 % of local disk). A quick measurement, not a test:
 *   CASEBOOK_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/file-storage.ts [runs]
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import type { FileStorageName } from '../src/config.js';
import { createPostgresDatabase } from '../test/helpers/databases.js';
import { benchConfig, firstStartOf } from './lib/in-process.js';

const adminUrl = process.env.CASEBOOK_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const runs = Number(process.argv[2] ?? 5);
const SIZE = 10 * 1024 * 1024;
const body = randomBytes(SIZE);
const hash = createHash('sha256').update(body).digest('hex');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (ms: number) => SIZE / 1024 / 1024 / (ms / 1000);

async function measure(storage: FileStorageName) {
  const database = await createPostgresDatabase(adminUrl, { poolSize: 10 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-files-'));
  const config = benchConfig(dataDir, {
    CASEBOOK_DATABASE_URL: database.url,
    CASEBOOK_FILE_STORAGE: storage,
  });
  const first = await firstStartOf(database.db, config);
  const app = await buildApp({ config, db: database.db, webRoot: null });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers = { authorization: `ApiKey ${first.apiKey}` };
  const up: number[] = [];
  const down: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const form = new FormData();
      form.append('file', new Blob([body]), 'big.bin');
      let t0 = performance.now();
      const res = await fetch(`${base}/api/public/v0/file`, { method: 'POST', headers, body: form });
      const { id } = (await res.json()) as { id: string };
      up.push(performance.now() - t0);
      t0 = performance.now();
      const got = Buffer.from(
        await (await fetch(`${base}/api/public/v0/file/${id}`, { headers })).arrayBuffer(),
      );
      down.push(performance.now() - t0);
      if (createHash('sha256').update(got).digest('hex') !== hash) throw new Error('download differs');
    }
  } finally {
    await app.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { storage, uploadMBps: mbps(median(up)), downloadMBps: mbps(median(down)) };
}

const local = await measure('local');
const postgres = await measure('postgres');
for (const r of [local, postgres]) {
  console.log(
    `${r.storage.padEnd(8)} upload ${r.uploadMBps.toFixed(1)} MB/s  download ${r.downloadMBps.toFixed(1)} MB/s (median of ${runs})`,
  );
}
console.log(
  `postgres / local: upload ${((100 * postgres.uploadMBps) / local.uploadMBps).toFixed(0)} %, download ${((100 * postgres.downloadMBps) / local.downloadMBps).toFixed(0)} %`,
);
