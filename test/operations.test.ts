import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ADDITIVE_SUFFIX, LATEST_MIGRATION } from '../src/db/migrator.js';
import { describeEachDb } from './helpers/test-app.js';

const TOKEN = 'metrics-token-0123456789';

describeEachDb('readiness', (t) => {
  it('answers 200 ready when the database has every migration of this version', async () => {
    const res = await t.get('/readyz', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('answers 503 naming the database as behind while a migration is pending, and ready again once applied', async () => {
    const removed = await t.db
      .selectFrom('kysely_migration' as never)
      .selectAll()
      .where('name' as never, '=', LATEST_MIGRATION as never)
      .executeTakeFirstOrThrow();
    await sql`delete from kysely_migration where name = ${LATEST_MIGRATION}`.execute(t.db);
    try {
      const res = await t.get('/readyz', { key: null });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        code: 'NOT_READY',
        behind: 'database',
        codeMigration: LATEST_MIGRATION,
        message: expect.stringContaining('casebook migrate'),
      });
      expect(res.body.databaseMigration < LATEST_MIGRATION).toBe(true);
      // Other requests are still served: readiness is for the balancer.
      expect((await t.get('/project')).status).toBe(200);
    } finally {
      await t.db
        .insertInto('kysely_migration' as never)
        .values(removed as never)
        .execute();
    }
    expect((await t.get('/readyz', { key: null })).status).toBe(200);
  });

  /** A newer version's migration in the database, named breaking or additive as that version would name it. */
  async function withNewerMigration(additive: boolean, check: (newer: string) => Promise<void>) {
    const newer = `9999_from_a_newer_version${additive ? ADDITIVE_SUFFIX : ''}`;
    const now = new Date().toISOString();
    await sql`insert into kysely_migration (name, timestamp) values (${newer}, ${now})`.execute(t.db);
    try {
      await check(newer);
    } finally {
      await sql`delete from kysely_migration where name = ${newer}`.execute(t.db);
    }
  }

  it('answers 503 naming this version as behind when the database has a newer breaking migration', async () => {
    await withNewerMigration(false, async (newer) => {
      const res = await t.get('/readyz', { key: null });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        code: 'NOT_READY',
        behind: 'code',
        databaseMigration: newer,
        codeMigration: LATEST_MIGRATION,
      });
    });
  });

  it('stays ready on a database ahead of this version by additive migrations only', async () => {
    await withNewerMigration(true, async () => {
      const res = await t.get('/readyz', { key: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready' });
    });
  });

  it('answers 503 while the process drains, and still serves other requests', async () => {
    t.app.drain.draining = true;
    try {
      const res = await t.get('/readyz', { key: null });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 'NOT_READY', message: expect.stringMatching(/shutting down/) });
      expect((await t.get('/project')).status).toBe(200);
      expect((await t.get('/healthz', { key: null })).status).toBe(200);
    } finally {
      t.app.drain.draining = false;
    }
  });
});

describeEachDb('metrics when off (the default)', (t) => {
  it('answers 404 with the D7 body, even with a token', async () => {
    expect(t.config.metricsToken).toBeUndefined();
    const res = await t.get('/metrics', { key: null, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: 'NOT_FOUND',
      message: expect.stringContaining('CASEBOOK_METRICS_TOKEN'),
    });
  });
});

describeEachDb(
  'metrics when on',
  (t) => {
    const scrape = (authorization?: string) =>
      t.get('/metrics', { key: null, headers: authorization ? { authorization } : {} });

    it('refuses a missing or wrong token with 401 and shows nothing', async () => {
      for (const auth of [
        undefined,
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(1)}`,
        `ApiKey ${t.ownerKey}`,
      ]) {
        const res = await scrape(auth);
        expect(res.status, String(auth)).toBe(401);
        expect(res.body.code).toBe('UNAUTHORIZED');
        expect(res.text).not.toContain('casebook_');
      }
    });

    it("counts requests per route pattern, not per URL, with each route's latency histogram", async () => {
      const project = await t.post('/project', { code: 'MET', title: 'Metrics' });
      expect(project.status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await t.get('/project/MET')).status).toBe(200);
      expect((await t.get('/project/NOPE')).status).toBe(404);
      const res = await scrape(`Bearer ${TOKEN}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      const route = 'route="/api/public/v0/project/:project"';
      expect(res.text).toMatch(
        new RegExp(`casebook_http_requests_total\\{method="GET",${route},status="200"\\} 3\\n`),
      );
      expect(res.text).toMatch(
        new RegExp(`casebook_http_requests_total\\{method="GET",${route},status="404"\\} 1\\n`),
      );
      expect(res.text).toMatch(
        new RegExp(`casebook_http_request_duration_seconds_count\\{method="GET",${route}\\} 4\\n`),
      );
      expect(res.text).toMatch(
        new RegExp(
          `casebook_http_request_duration_seconds_bucket\\{le="\\+Inf",method="GET",${route}\\} 4\\n`,
        ),
      );
      expect(res.text).not.toContain('/project/MET');
      // The job queues, read at scrape time, per kind.
      expect(res.text).toMatch(/casebook_job_queue_depth\{kind="webhook\.deliver"\} \d+\n/);
      expect(res.text).toMatch(/casebook_job_queue_oldest_age_seconds\{kind="webhook\.event"\} [\d.]+\n/);
      // The pool's use is PostgreSQL's alone.
      expect(res.text.includes('casebook_db_pool_connections')).toBe(t.dbName === 'postgres');
    });

    it('shows no query waiting on an idle pool, the version, the drain, runtime metrics and errors per code', async () => {
      expect((await t.get('/project/NOSUCH')).status).toBe(404);
      t.app.drain.draining = true;
      let text: string;
      try {
        text = (await scrape(`Bearer ${TOKEN}`)).text;
      } finally {
        t.app.drain.draining = false;
      }
      // The scrape's own queries (the job queues) are not counted as waiting for a connection.
      if (t.dbName === 'postgres') expect(text).toMatch(/^casebook_db_pool_waiting 0$/m);
      expect(text).toMatch(/^casebook_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m);
      expect(text).toMatch(/^casebook_draining 1$/m);
      expect(text).toMatch(/^casebook_errors_total\{code="NOT_FOUND"\} [1-9]\d*$/m);
      for (const name of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_gc_duration_seconds',
      ]) {
        expect(text).toContain(`# TYPE ${name} `);
      }
      expect((await scrape(`Bearer ${TOKEN}`)).text).toMatch(/^casebook_draining 0$/m);
    });

    it('measures the size of group commits of single results', async () => {
      expect((await t.post('/project', { code: 'GRP', title: 'Groups' })).status).toBe(201);
      const bulk = await t.post('/project/GRP/tcase/bulk', { folderPath: ['f'], tcases: [{ title: 'one' }] });
      expect(bulk.status).toBe(201);
      const tcaseId = bulk.body.tcases[0].id;
      const run = await t.post('/project/GRP/run', {
        title: 'r',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [tcaseId] }],
      });
      expect(run.status).toBe(201);
      const posted = await Promise.all(
        Array.from({ length: 4 }, () =>
          t.post(`/project/GRP/run/${run.body.id}/tcase/${tcaseId}/result`, { status: 'passed' }),
        ),
      );
      expect(posted.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      // A batch of two, sent twice with one Idempotency-Key: the replay records nothing, so counts nothing.
      for (let i = 0; i < 2; i++) {
        const batch = await t.post(
          `/project/GRP/run/${run.body.id}/result/batch`,
          {
            items: [
              { tcaseId, status: 'failed' },
              { tcaseId, status: 'passed' },
            ],
          },
          { headers: { 'idempotency-key': 'metrics-batch' } },
        );
        expect(batch.status).toBe(201);
      }
      const text = (await scrape(`Bearer ${TOKEN}`)).text;
      // Every result acknowledged, counted once: four single ones and a batch of two.
      expect(text).toMatch(/^casebook_results_recorded_total 6$/m);
      const sum = Number(/casebook_result_group_commit_size_sum (\d+)/.exec(text)?.[1]);
      expect(sum).toBe(4);
    });
  },
  { env: { CASEBOOK_METRICS_TOKEN: TOKEN } },
);

describe('operations settings', () => {
  it('drains 5 s by default, takes a whole number of seconds, and refuses anything else at start', async () => {
    const { loadConfig } = await import('../src/config.js');
    expect(loadConfig({}).drainSeconds).toBe(5);
    expect(loadConfig({ CASEBOOK_DRAIN_SECONDS: '0' }).drainSeconds).toBe(0);
    expect(() => loadConfig({ CASEBOOK_DRAIN_SECONDS: '2.5' })).toThrow(
      /CASEBOOK_DRAIN_SECONDS must be a whole number/,
    );
  });

  it('refuses a short metrics token and a Redis address that is not redis:// at start', async () => {
    const { loadConfig } = await import('../src/config.js');
    expect(() => loadConfig({ CASEBOOK_METRICS_TOKEN: 'short' })).toThrow(/at least 16 characters/);
    expect(() => loadConfig({ CASEBOOK_REDIS_URL: 'http://user:secret@cache:6379' })).toThrow(
      /CASEBOOK_REDIS_URL must be redis:\/\/.*got "http:\/\/\*\*\*\*@cache:6379"/,
    );
    const config = loadConfig({ CASEBOOK_REDIS_URL: 'redis://cache:6379/2' });
    expect([config.redisUrl, config.redisPrefix]).toEqual(['redis://cache:6379/2', 'casebook:']);
  });
});
