/**
 * Measures the hot path of the runs module on SQLite, in process (no network): listing a run of 10,000
 * test cases (`GET /project/:p/run/:id/tcase`, one SQL query + serialisation), and creating that run.
 * A measurement, not a test: nothing fails.
 *
 *   npx tsx bench/run-tcases-list.ts            10,000 cases, 30 timed listings
 *   npx tsx bench/run-tcases-list.ts 2000 10    smaller
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { firstStart } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { sql } from 'kysely';

const CASES = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 30);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-'));
const db = createDb(`sqlite:${path.join(dir, 'bench.db')}`);
const config = loadConfig({
  CASEBOOK_LOG_LEVEL: 'silent',
  CASEBOOK_DATA_DIR: dir,
  CASEBOOK_OWNER_EMAIL: 'owner@example.com',
  CASEBOOK_OWNER_PASSWORD: 'owner-password',
  CASEBOOK_PUBLIC_URL: 'http://casebook.test',
  CASEBOOK_SECRET_KEY: 'bench-secret-key-0123456789',
});

async function main() {
  await migrateToLatest(db);
  if (process.env.CACHE_MB)
    await sql.raw(`pragma cache_size = -${Number(process.env.CACHE_MB) * 1024}`).execute(db);
  const first = await firstStart(db, config);
  if (!first) throw new Error('expected an empty database');
  const app = await buildApp({ config, db });
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url: `/api/public/v0${url}`,
      headers: { authorization: `ApiKey ${first.apiKey}`, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    // Parsed lazily: the client's JSON.parse of 2 MB is not the server's time.
    return {
      get json() {
        return JSON.parse(res.body);
      },
      bytes: res.body.length,
    };
  };

  await call('POST', '/project', { code: 'BEN', title: 'Bench' });
  const ids: string[] = [];
  for (let i = 0; i < CASES; i += 1000) {
    const n = Math.min(1000, CASES - i);
    const tcases = Array.from({ length: n }, (_, k) => ({
      title: `Case ${i + k}`,
      tags: [`t${(i + k) % 7}`],
    }));
    const folderPath = ['Bench', `Part ${Math.floor(i / 1000)}`];
    const { json } = await call('POST', '/project/BEN/tcase/bulk', { folderPath, tcases });
    ids.push(...json.tcases.map((c: { id: string }) => c.id));
  }

  let t0 = performance.now();
  const { json: run } = await call('POST', '/project/BEN/run', {
    title: 'Big run',
    type: 'static_struct',
    queryPlans: [{ tcaseIds: ids }],
  });
  const createMs = performance.now() - t0;

  const times: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  let count = 0;
  for (let r = 0; r < ROUNDS + 3; r++) {
    const c0 = process.cpuUsage();
    t0 = performance.now();
    const res = await call('GET', `/project/BEN/run/${run.id}/tcase`);
    const ms = performance.now() - t0;
    const used = process.cpuUsage(c0);
    // The first rounds warm up the JIT and the page cache.
    if (r >= 3) {
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
    }
    bytes = res.bytes;
    if (r === 0) count = res.json.tcases.length;
  }
  const withFolder: number[] = [];
  const withFolderCpu: number[] = [];
  for (let r = 0; r < 10; r++) {
    const c0 = process.cpuUsage();
    t0 = performance.now();
    await call('GET', `/project/BEN/run/${run.id}/tcase?include=folder`);
    withFolder.push(performance.now() - t0);
    const used = process.cpuUsage(c0);
    withFolderCpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  withFolder.sort((a, b) => a - b);
  withFolderCpu.sort((a, b) => a - b);
  const pct = (xs: number[], p: number) =>
    xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))].toFixed(1);
  console.log(`run of ${count} test cases, ${(bytes / 1024).toFixed(0)} KiB of JSON`);
  console.log(`  create run (POST /run with ${ids.length} tcaseIds): ${createMs.toFixed(0)} ms`);
  console.log(
    `  list (GET /run/:id/tcase): median ${pct(times, 50)} ms, p90 ${pct(times, 90)} ms over ${times.length} rounds`,
  );
  // On a shared machine wall time includes waiting for a core; CPU time shows the work itself.
  console.log(
    `  list CPU time: median ${pct(cpu, 50)} ms (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`,
  );
  console.log(
    `  list with include=folder: median ${pct(withFolder, 50)} ms, CPU ${pct(withFolderCpu, 50)} ms`,
  );
  await app.close();
  await db.destroy();
  if (process.env.KEEP) console.log(dir);
  else fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
