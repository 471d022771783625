import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  POSTGRES_SKIP_NOTE,
  createScaleDatabase,
  killLeftovers,
  startServer,
  type ScaleDatabase,
  type ServerProcess,
} from './servers.js';
import { POSTGRES_URL } from '../helpers/databases.js';

/**
 * The run pages (docs/api-decisions.md#run-pages) across real server processes on one database: a run page polling one process sees results recorded
 * through another within one poll (≤ 5 s), and concurrent requests with one Idempotency-Key sent to both
 * processes store one result.
 */
for (const target of ['sqlite', 'postgres'] as const) {
  const title = `run pages across two server processes on one ${target === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'}`;
  const suite = target === 'postgres' && !POSTGRES_URL ? describe.skip : describe;

  suite(target === 'postgres' && !POSTGRES_URL ? `${title} (${POSTGRES_SKIP_NOTE})` : title, () => {
    let database: ScaleDatabase;
    let servers: ServerProcess[] = [];
    let key = '';
    const code = 'RPX';
    let tcaseIds: string[] = [];
    let runId = 0;

    const call = async (
      server: number,
      method: string,
      p: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${servers[server].url}${API}${p}`, {
        method,
        headers: {
          authorization: `ApiKey ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };

    beforeAll(async () => {
      database = await createScaleDatabase(target);
      servers = [await startServer({ databaseUrl: database.url, dataDir: database.dataDir })];
      servers.push(await startServer({ databaseUrl: database.url, dataDir: database.dataDir }));
      key = servers.map((s) => s.bannerKey()).find(Boolean) ?? '';
      expect(key, servers.map((s) => s.output()).join('\n')).not.toBe('');
      expect((await call(0, 'POST', '/project', { code, title: 'Run pages' })).status).toBe(201);
      const bulk = await call(0, 'POST', `/project/${code}/tcase/bulk`, {
        folderPath: ['pages'],
        tcases: Array.from({ length: 5 }, (_, i) => ({ title: `case ${i}`, tags: [] })),
      });
      tcaseIds = bulk.body.tcases.map((t: { id: string }) => t.id);
      const run = await call(0, 'POST', `/project/${code}/run`, {
        title: 'Live page',
        type: 'static_struct',
        queryPlans: [{ tcaseIds }],
      });
      runId = run.body.id;
    }, 180_000);

    afterAll(async () => {
      try {
        await Promise.all(servers.map((s) => s.stop()));
      } finally {
        killLeftovers();
        await database?.drop();
      }
    }, 60_000);

    it('shows on a page polling process A, within one poll, the results recorded through process B', async () => {
      const changes = (since?: number) =>
        call(
          0,
          'GET',
          `/project/${code}/run/${runId}/changes${since === undefined ? '' : `?since=${since}`}`,
        );
      let cursor = (await changes()).body.cursor as number;
      for (const [i, status] of (['passed', 'failed', 'blocked'] as const).entries()) {
        const started = Date.now();
        const recorded = await call(1, 'POST', `/project/${code}/run/${runId}/tcase/${tcaseIds[i]}/result`, {
          status,
        });
        expect(recorded.status).toBe(201);
        const poll = await changes(cursor);
        expect(poll.status).toBe(200);
        expect(poll.body.tcases).toEqual([
          expect.objectContaining({
            id: tcaseIds[i],
            status,
            latestResult: expect.objectContaining({ id: recorded.body.id }),
          }),
        ]);
        expect(poll.body.statusCounts[status]).toBe(1);
        expect(Date.now() - started).toBeLessThan(5000);
        cursor = poll.body.cursor;
      }
    });

    it('stores one result for one Idempotency-Key sent concurrently to both processes', async () => {
      const url = `/project/${code}/run/${runId}/tcase/${tcaseIds[4]}/result`;
      const body = { status: 'skipped', comment: 'retried by CI' };
      const headers = { 'idempotency-key': `ci-job-42-${target}` };
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call(i % 2, 'POST', url, body, headers)),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(201));
      expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
      const stored = await database.db
        .selectFrom('results')
        .select('id')
        .where('run_id', '=', runId)
        .where('tcase_id', '=', tcaseIds[4])
        .execute();
      expect(stored).toHaveLength(1);
    });
  });
}
