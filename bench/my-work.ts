/**
 * Measures "My work" (`GET /users/me/work`, docs/api-decisions.md#my-work) on SQLite, in process, at the bench
 * project's size: 2,837 cases, 62 runs of 400 cases, the owner assigned half of each run (12,400 cases, half of them
 * done, due dates spread over the runs). A measurement, not a test: nothing fails.
 *
 *   npx tsx bench/my-work.ts          30 timed pages of 100, first page and a page deep in the list
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { createDb } from '../src/db/create-db.js';
import { apiCaller, benchConfig, firstStartOf } from './lib/in-process.js';

const CASES = 2837;
const RUNS = 62;
const PER_RUN = 400;
const ROUNDS = 30;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-'));
const db = createDb(`sqlite:${path.join(dir, 'bench.db')}`);
const config = benchConfig(dir);

async function main() {
  const { apiKey, actor } = await firstStartOf(db, config);
  const app = await buildApp({ config, db });
  const inject = apiCaller(app, apiKey);
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown) =>
    JSON.parse((await inject(method, url, body)).body);
  await call('POST', '/project', { code: 'BEN', title: 'Bench' });
  const ids: string[] = [];
  for (let i = 0; i < CASES; i += 1000) {
    const tcases = Array.from({ length: Math.min(1000, CASES - i) }, (_, k) => ({ title: `Case ${i + k}` }));
    const json = await call('POST', '/project/BEN/tcase/bulk', { folderPath: ['Bench'], tcases });
    ids.push(...json.tcases.map((c: { id: string }) => c.id));
  }
  for (let r = 0; r < RUNS; r++) {
    const picked = Array.from({ length: PER_RUN }, (_, k) => ids[(r * 37 + k) % ids.length]!);
    const day = String(1 + (r % 28)).padStart(2, '0');
    const { id } = await call('POST', '/project/BEN/run', {
      title: `Run ${r}`,
      type: 'static_struct',
      queryPlans: [{ tcaseIds: picked }],
      ...(r % 3 === 0 ? {} : { dueAt: `2030-0${1 + (r % 9)}-${day}` }),
    });
    const mine = picked.slice(0, PER_RUN / 2);
    await call('POST', `/project/BEN/run/${id}/tcase/assign`, {
      tcaseIds: mine,
      assigneeId: actor.userId,
      ...(r % 2 === 0 ? { dueAt: `2030-02-${day}` } : {}),
    });
    // Half of them done: the status is what the list reads (results themselves are not read).
    await db
      .updateTable('run_tcases')
      .set({ status: 'passed' })
      .where('run_id', '=', id)
      .where('tcase_id', 'in', mine.slice(0, PER_RUN / 4))
      .execute();
  }
  const time = async (query: string) => {
    const ms: number[] = [];
    let last: { total: number; data: unknown[] } | undefined;
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      last = await call('GET', `/users/me/work?${query}`);
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    const p = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
    console.log(
      `${query}: total ${last!.total}, page ${last!.data.length}; p50 ${p(0.5)} ms, p95 ${p(0.95)} ms`,
    );
  };
  await time('limit=100&today=2030-03-01');
  await time('limit=100&offset=6000&today=2030-03-01');
  await time('limit=500&today=2030-03-01');
  await app.close();
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
