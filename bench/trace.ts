/**
 * `npx tsx bench/trace.ts [--db URL] [--cases N] [--runs N]`: which SQL statements each bench request runs, and
 * how long each takes. Builds the app in process on a fresh database (SQLite file by default, or a PostgreSQL
 * URL whose database is created and dropped), generates a small data set through the API, then prints, for one
 * request of each hot scenario, every statement with its time — the first thing to look at when a route is
 * slow (N+1 queries, a missing index). A measurement tool, not a test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { createDb } from '../src/db/create-db.js';
import { Client } from './lib/client.js';
import { generateDataset } from './lib/generate.js';
import { insertAuditEvents } from './lib/audit-fill.js';
import { benchConfig, firstStartOf } from './lib/in-process.js';
import pg from 'pg';
import { CompiledQuery } from 'kysely';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    cases: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '50' },
    repeat: { type: 'string', default: '20' },
    only: { type: 'string' },
    /** Keep the SQLite file (its path is printed) for EXPLAIN experiments. */
    keep: { type: 'boolean', default: false },
    /** Statements slower than this many ms get their plan printed (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE). */
    explain: { type: 'string', default: '1' },
    /** Open live runs (over the first top folder, as bench/run.ts makes them) before the scenarios run. */
    live: { type: 'string', default: '0' },
    /** Audit events written straight into the database before the scenarios (the audit page reads the middle). */
    audit: { type: 'string', default: '0' },
    /** Also list a run of only the first N cases (the growth check's small run). */
    'small-run': { type: 'string' },
  },
});

interface Entry {
  sql: string;
  parameters: readonly unknown[];
  ms: number;
}
let current: Entry[] | undefined;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-trace-'));
  let url = `sqlite:${path.join(dir, 'trace.db')}`;
  let dropPg: ((keep: boolean) => Promise<void>) | undefined;
  if (values.db?.startsWith('postgres')) {
    const name = `casebook_trace_${Date.now()}`;
    const admin = new pg.Client({ connectionString: values.db });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const u = new URL(values.db);
    u.pathname = `/${name}`;
    url = u.toString();
    dropPg = async (keep: boolean) => {
      if (keep) console.log(`\nkept ${url}`);
      else await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    };
  }
  const db = createDb(url, {
    log: (event) => {
      current?.push({
        sql: event.query.sql,
        parameters: event.query.parameters,
        ms: event.queryDurationMillis,
      });
    },
  });
  const raw = db;
  const config = benchConfig(dir, { CASEBOOK_DATABASE_URL: url });
  const first = await firstStartOf(raw, config);
  const app = await buildApp({ config, db });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  const client = new Client(`http://127.0.0.1:${address.port}`, first.apiKey);
  try {
    const data = await generateDataset(client, {
      code: 'TRC',
      tcaseCount: Number(values.cases),
      runCount: Number(values.runs),
      log: () => {},
    });
    const seqs = (
      await client.get<{ tcases: { seq: number; id: string }[] }>(`/project/TRC/run/${data.bigRunId}/tcase`)
    ).tcases;
    for (let i = 0; i < Number(values.live); i++) {
      await client.post('/project/TRC/run', {
        title: `Live ${i}`,
        type: 'live',
        queryPlans: [
          { folderIds: [data.topFolderIds[0]], ...(i % 2 ? { priorities: ['high', 'medium'] } : {}) },
        ],
      });
    }
    let auditAfter = 0;
    if (Number(values.audit) > 0)
      auditAfter =
        (await insertAuditEvents(url, Number(values.audit))) + Math.floor(Number(values.audit) / 2);
    let smallRunId = 0;
    if (values['small-run']) {
      smallRunId = (
        await client.post<{ id: number }>('/project/TRC/run', {
          title: 'Small',
          type: 'static_struct',
          queryPlans: [{ tcaseIds: seqs.slice(0, Number(values['small-run'])).map((t) => t.id) }],
        })
      ).id;
    }
    let n = 0;
    const scenarios: [string, () => Promise<unknown>][] = [
      ['get one project', () => client.get('/project/TRC')],
      [
        'record one result',
        () =>
          client.post(`/project/TRC/run/${data.bigRunId}/tcase/${seqs[n++ % seqs.length].seq}/result`, {
            status: n % 2 ? 'passed' : 'failed',
            comment: '',
            timeTaken: 12,
          }),
      ],
      [
        'record a batch of 500',
        () =>
          client.post(`/project/TRC/run/${data.bigRunId}/result/batch`, {
            items: Array.from({ length: 500 }, () => ({
              tcaseId: seqs[n++ % seqs.length].id,
              status: n % 5 ? 'passed' : 'failed',
              comment: 'ok',
            })),
          }),
      ],
      ['list the big run', () => client.get(`/project/TRC/run/${data.bigRunId}/tcase`)],
      ['list the small run', () => client.get(`/project/TRC/run/${smallRunId}/tcase`)],
      ['list runs', () => client.get('/project/TRC/run')],
      [
        'create a test case',
        () =>
          client.post('/project/TRC/tcase', {
            title: `New ${n++}`,
            type: 'standalone',
            folderId: data.leafFolderIds[0],
            priority: 'high',
          }),
      ],
      ['audit page', () => client.get(`/audit-logs?count=1000&after=${auditAfter}`)],
    ];
    for (const [name, call] of scenarios) {
      if (values.only && !name.includes(values.only)) continue;
      const repeat = Number(values.repeat);
      const wall: number[] = [];
      let last: Entry[] = [];
      for (let i = 0; i < repeat; i++) {
        current = [];
        const t0 = performance.now();
        await call();
        wall.push(performance.now() - t0);
        last = current;
        current = undefined;
      }
      wall.sort((a, b) => a - b);
      const dbMs = last.reduce((s, e) => s + e.ms, 0);
      console.log(
        `\n## ${name}: median ${wall[wall.length >> 1].toFixed(2)} ms over ${repeat}; last: ${last.length} statements, ${dbMs.toFixed(2)} ms in them`,
      );
      for (const e of last)
        console.log(`  ${e.ms.toFixed(3).padStart(8)} ms  ${e.sql.replace(/\s+/g, ' ').slice(0, 220)}`);
      for (const e of last.filter((x) => x.ms >= Number(values.explain) && /^\s*select/i.test(x.sql))) {
        const prefix = url.startsWith('sqlite:') ? 'explain query plan ' : 'explain (analyze, buffers) ';
        const plan = await db.executeQuery(CompiledQuery.raw(prefix + e.sql, [...e.parameters]));
        console.log(`  plan of the ${e.ms.toFixed(1)} ms statement:\n    ${e.sql}`);
        for (const row of plan.rows as Record<string, unknown>[])
          console.log(`    ${String(row.detail ?? row['QUERY PLAN'])}`);
      }
    }
  } finally {
    await app.close();
    await raw.destroy();
    await dropPg?.(Boolean(values.keep));
    if (values.keep) console.log(`\nkept ${url}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
