import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { firstStart } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { uniqueProjectCode } from './helpers/codes.js';
import { createPostgresDatabase, POSTGRES_URL } from './helpers/databases.js';
import { seedRun } from './helpers/seed-run.js';

if (!POSTGRES_URL)
  console.log('[casebook] database-outage test SKIPPED: it needs CASEBOOK_TEST_POSTGRES_URL');

/**
 * The server's connections to PostgreSQL are cut (pg_terminate_backend, what a restart or failover does to them)
 * while results are being posted: the requests that meet it answer 503 DATABASE_UNAVAILABLE with Retry-After, so
 * clients send them again; nothing acknowledged is lost, and the next write succeeds.
 */
describe.skipIf(!POSTGRES_URL)(
  'PostgreSQL connections lost in the middle of result uploads [postgres]',
  () => {
    let app: FastifyInstance;
    let db: Db;
    let drop: () => Promise<void>;
    let dbName: string;
    let key: string;
    let code: string;
    let runId: number;
    let tcaseIds: string[];

    const api = async (method: string, url: string, body?: unknown) => {
      const res = await app.inject({
        method: method as 'POST',
        url: `/api/public/v0${url}`,
        headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, headers: res.headers, body: res.json() };
    };

    /** Ends every other connection to the test database, as a server restart does. */
    async function terminateBackends(): Promise<number> {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        const res = await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [dbName],
        );
        return res.rowCount ?? 0;
      } finally {
        await admin.end();
      }
    }

    beforeAll(async () => {
      const created = await createPostgresDatabase(POSTGRES_URL!);
      db = created.db;
      drop = created.drop;
      dbName = new URL(created.url).pathname.slice(1);
      const config = loadConfig({
        CASEBOOK_LOG_LEVEL: 'silent',
        CASEBOOK_DATA_DIR: `/tmp/casebook-test-${process.pid}`,
        CASEBOOK_SECRET_KEY: 'test-secret-key-0123456789',
        CASEBOOK_PUBLIC_URL: 'http://casebook.test',
      });
      await migrateToLatest(db);
      key = (await firstStart(db, config))!.apiKey;
      app = await buildApp({ config, db, webRoot: null });
      code = uniqueProjectCode('O');
      ({ tcaseIds, runId } = await seedRun(api, code, 'Outage', 10));
    });

    afterAll(async () => {
      await app?.close();
      await drop?.();
    });

    it('answers 503 DATABASE_UNAVAILABLE with Retry-After to the requests that meet it, loses nothing acknowledged, and writes again at once', async () => {
      const acknowledged: number[] = [];
      const unavailable: { status: number; headers: Record<string, unknown>; body: unknown }[] = [];
      const others: unknown[] = [];
      let stop = false;
      // Posting: single results (group-committed) and batches, many at once, until enough of them met a cut.
      const poster = async (n: number) => {
        for (let i = 0; !stop; i++) {
          const tcaseId = tcaseIds[(n + i) % tcaseIds.length];
          const res =
            i % 3 === 0
              ? await api('POST', `/project/${code}/run/${runId}/result/batch`, {
                  items: tcaseIds.slice(0, 3).map((id) => ({ tcaseId: id, status: 'passed' })),
                })
              : await api('POST', `/project/${code}/run/${runId}/tcase/${tcaseId}/result`, {
                  status: 'failed',
                });
          if (res.status === 201) acknowledged.push(...(res.body.ids ?? [res.body.id]));
          else if (res.status === 503) unavailable.push(res);
          else others.push({ status: res.status, body: res.body });
        }
      };
      const posters = Array.from({ length: 8 }, (_, n) => poster(n));
      const started = Date.now();
      let cuts = 0;
      while (unavailable.length < 3 && Date.now() - started < 30_000) {
        await new Promise((r) => setTimeout(r, 60));
        cuts += await terminateBackends();
      }
      stop = true;
      await Promise.all(posters);

      expect(cuts).toBeGreaterThan(0);
      expect(unavailable.length).toBeGreaterThan(0);
      for (const res of unavailable) {
        expect(res.headers['retry-after']).toBe('2');
        expect(res.body).toEqual({ code: 'DATABASE_UNAVAILABLE', message: expect.stringMatching(/retry/i) });
      }
      // A connection cut while COMMIT was on its way may have committed: that one is a 500 saying so, never a 503.
      for (const res of others) {
        expect(res).toMatchObject({
          status: 500,
          body: { message: expect.stringMatching(/may or may not/) },
        });
      }

      // Every acknowledged result is stored.
      const stored = new Set(
        (await db.selectFrom('results').select('id').execute()).map((r) => Number(r.id)),
      );
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

      // The next write succeeds right away.
      const next = await api('POST', `/project/${code}/run/${runId}/tcase/${tcaseIds[0]}/result`, {
        status: 'passed',
      });
      expect(next.status).toBe(201);
    });
  },
);
