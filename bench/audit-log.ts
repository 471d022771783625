/**
 * The audit log's figure (issue 27): a filtered page of 100 out of 1,000,000 events, on SQLite and PostgreSQL.
 * Bulk-inserts the events straight into a fresh database (spread over the current month, 8 people, 20 actions of
 * very different frequencies), then times GET /audit-logs in process (app.inject: the server's whole work, no
 * socket) for each kind of filter a person picks on the page, and prints the medians. A benchmark, not a test.
 *
 *   npx tsx bench/audit-log.ts                       SQLite, and PostgreSQL when CASEBOOK_BENCH_POSTGRES_URL is set
 *   npx tsx bench/audit-log.ts --events 100000       a smaller log
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CompiledQuery } from 'kysely';
import { buildApp } from '../src/app.js';
import { createDb, type Db } from '../src/db/create-db.js';
import { DEFAULT_TENANT_ID } from '../src/modules/tenants/tenants.service.js';
import { createUser } from '../src/modules/users/users.service.js';
import { benchConfig, firstStartOf } from './lib/in-process.js';
import { analyzePostgres, freshPgDatabase } from './lib/postgres.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '1000000' } } });
const EVENTS = Number(values.events);
const REPEAT = 31;
const ACTIONS = Array.from({ length: 20 }, (_, i) => `bench.action_${i}`);

/**
 * Fills the log in one statement on the database's side (a generated series): event i (1-based) has action k when
 * i is a multiple of 2^k but not of 2^(k+1), so action 0 is every other event and action 16 about 1 in 131,000;
 * people take turns; the times rise evenly from the month's start to now, as ids do.
 */
async function fill(db: Db, postgres: boolean, firstUser: number) {
  const monthStart = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1) / 1000;
  const step = (Date.now() / 1000 - monthStart) / EVENTS;
  const action = `'bench.action_' || (CASE ${ACTIONS.map((_, k) => ACTIONS.length - 1 - k)
    .map((k) => `WHEN i % ${2 ** k} = 0 THEN ${k}`)
    .join(' ')} END)`;
  const at = postgres
    ? `to_char(to_timestamp(${monthStart} + i * ${step}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', ${monthStart} + i * ${step}, 'unixepoch')`;
  const series = postgres
    ? `generate_series(1, ${EVENTS}) as s(i)`
    : `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${EVENTS}) SELECT i FROM s)`;
  await db.executeQuery(
    CompiledQuery.raw(
      `INSERT INTO audit_events (tenant_id, user_id, action, ip, user_agent, meta, created_at)
       SELECT '${DEFAULT_TENANT_ID}', ${firstUser} + ((i / 7) % 8), ${action}, '10.0.0.1', 'bench', NULL, ${at}
       FROM ${series}`,
    ),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(name: string, url: string, prepare: (db: Db) => Promise<void>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-audit-'));
  const config = benchConfig(dataDir, { CASEBOOK_DATABASE_URL: url });
  const db = createDb(url);
  const { apiKey } = await firstStartOf(db, config);
  const users: number[] = [];
  for (let i = 0; i < 8; i++)
    users.push(
      (
        await createUser(db, DEFAULT_TENANT_ID, {
          email: `p${i}@example.com`,
          name: `Person ${i}`,
          role: 'user',
        })
      ).id,
    );
  // The fill gives each event one of 8 consecutive user ids.
  if (users.at(-1)! - users[0]! !== 7) throw new Error('expected 8 consecutive user ids');
  const t0 = performance.now();
  await fill(db, name === 'postgres', users[0]!);
  await prepare(db);
  console.log(
    `[${name}] ${EVENTS.toLocaleString('en')} events inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const app = await buildApp({ config, db, webRoot: null });
  // Startup (every route's schemas compiled) is not the log's time: done before the first timed request.
  await app.ready();
  const day = (d: number) =>
    new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), d)).toISOString();
  const filters: [string, string][] = [
    ['no filter (month start)', ''],
    ['common action', `action=${ACTIONS[0]}`],
    ['rare action (1 in 131,072)', `action=${ACTIONS[16]}`],
    ['two actions', `action=${ACTIONS[3]},${ACTIONS[9]}`],
    ['one person', `userId=${users[3]}`],
    ['person + rare action', `userId=${users[3]}&action=${ACTIONS[12]}`],
    ['time span (2nd-3rd day)', `from=${day(2)}&to=${day(3)}`],
    ['span + action', `from=${day(2)}&to=${day(20)}&action=${ACTIONS[5]}`],
  ];
  for (const [label, query] of filters) {
    const times: number[] = [];
    let count = 0;
    for (let i = 0; i < REPEAT; i++) {
      const start = performance.now();
      const res = await app.inject({
        method: 'GET',
        url: `/api/public/v0/audit-logs?count=100${query ? `&${query}` : ''}`,
        headers: { authorization: `ApiKey ${apiKey}` },
      });
      times.push(performance.now() - start);
      if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode} ${res.body}`);
      count = res.json().count;
    }
    console.log(
      `[${name}] ${label.padEnd(28)} ${String(count).padStart(3)} events  median ${median(times).toFixed(1)} ms  max ${Math.max(...times).toFixed(1)} ms`,
    );
  }
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-bench-audit-db-'));
await measure('sqlite', `sqlite:${path.join(sqliteDir, 'bench.db')}`, async (db) => {
  await db.executeQuery(CompiledQuery.raw('analyze'));
});
fs.rmSync(sqliteDir, { recursive: true, force: true });
const pgUrl = process.env.CASEBOOK_BENCH_POSTGRES_URL;
if (pgUrl) {
  const fresh = await freshPgDatabase(pgUrl);
  try {
    await measure('postgres', fresh.url, () => analyzePostgres(fresh.url));
  } finally {
    await fresh.drop();
  }
}
