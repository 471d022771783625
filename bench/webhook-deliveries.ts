import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { createDb, type Db } from '../src/db/create-db.js';
import { createPostgresDatabase } from '../test/helpers/databases.js';
import { benchConfig, firstStartOf } from './lib/in-process.js';

/*
 * Issue 27's figure: a webhook's deliveries list with 100,000 deliveries, its first page and a deep one (by cursor,
 * and by offset for comparison), median of 9 requests through the app (no network). SQLite always; PostgreSQL when
 * CASEBOOK_TEST_POSTGRES_URL is set. Run: npx tsx bench/webhook-deliveries.ts
 */
const N = 100_000;
const RUNS = 9;

async function fill(db: Db, tenantId: string, webhookId: string, n: number, prefix: string) {
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < n; i += 1000) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const at = new Date(start + j * 1000).toISOString();
      rows.push({
        id: `${prefix}${String(j).padStart(7, '0')}`,
        tenant_id: tenantId,
        webhook_id: webhookId,
        event_id: `e${prefix}${j}`,
        event_type: 'result_created',
        body: '{"event":"result_created","object":{"runId":1,"id":1,"status":"failed"}}',
        status: j % 10 === 0 ? ('failed' as const) : ('succeeded' as const),
        attempts: 1,
        response_code: j % 10 === 0 ? 500 : 200,
        response_body: 'ok',
        error: null,
        duration_ms: 40,
        created_at: at,
        last_attempt_at: at,
        next_attempt_at: null,
        finished_at: at,
      });
    }
    await db.insertInto('webhook_deliveries').values(rows).execute();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(name: string, db: Db, dataDir: string) {
  const config = benchConfig(dataDir);
  const { apiKey } = await firstStartOf(db, config);
  const app = await buildApp({ config, db, webRoot: null });
  const headers = { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' };
  const make = async (hookName: string) =>
    JSON.parse(
      (
        await app.inject({
          method: 'POST',
          url: '/api/public/v0/webhook',
          headers,
          payload: JSON.stringify({
            name: hookName,
            endpoint: 'https://hooks.example.com/x',
            eventTypes: ['result_created'],
          }),
        })
      ).body,
    ).id as string;
  const hook = await make('bench');
  const other = await make('other');
  const t0 = performance.now();
  await fill(db, 'default', hook, N, 'a');
  await fill(db, 'default', other, N / 5, 'b');
  console.log(`${name}: ${N + N / 5} deliveries written in ${Math.round(performance.now() - t0)} ms`);
  // What autovacuum does after such a bulk write on PostgreSQL, done now so the planner knows the table's size.
  if (name === 'postgres') await sql`analyze webhook_deliveries`.execute(db);
  const explain = sql.raw(name === 'postgres' ? 'explain' : 'explain query plan');
  const plan = await sql<Record<string, string>>`${explain} select * from webhook_deliveries
    where tenant_id = 'default' and webhook_id = ${hook} order by created_at desc, id desc limit 51`.execute(
    db,
  );
  console.log(plan.rows.map((r) => Object.values(r).join(' ')).join('\n'));
  // A cursor 80,000 deliveries deep: the page an admin reaches after 1,600 pages of 50.
  const deep = await db
    .selectFrom('webhook_deliveries')
    .select(['created_at', 'id'])
    .where('webhook_id', '=', hook)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(80_000 - 1)
    .limit(1)
    .executeTakeFirstOrThrow();
  const cursor = Buffer.from(JSON.stringify([deep.created_at, deep.id])).toString('base64url');
  const time = async (label: string, query: string) => {
    const xs: number[] = [];
    let count = 0;
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      const res = await app.inject({
        method: 'GET',
        url: `/api/public/v0/webhook/${hook}/delivery?${query}`,
        headers,
      });
      xs.push(performance.now() - s);
      if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode} ${res.body}`);
      count = JSON.parse(res.body).deliveries.length;
    }
    console.log(`${name}: ${label.padEnd(34)} median ${median(xs).toFixed(1)} ms (${count} rows)`);
  };
  await time('first page (limit 50)', 'limit=50');
  await time('page 1,601 by cursor (limit 50)', `limit=50&cursor=${cursor}`);
  await time('page 1,601 by offset (limit 50)', 'limit=50&offset=80000');
  await app.close();
}

const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-deliveries-'));
const sqlite = createDb(`sqlite:${path.join(sqliteDir, 'casebook.db')}`);
await measure('sqlite', sqlite, sqliteDir);
await sqlite.destroy();
fs.rmSync(sqliteDir, { recursive: true, force: true });
const pgUrl = process.env.CASEBOOK_TEST_POSTGRES_URL;
if (pgUrl) {
  const created = await createPostgresDatabase(pgUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-deliveries-'));
  try {
    await measure('postgres', created.db, dir);
  } finally {
    await created.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
