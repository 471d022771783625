import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  POSTGRES_SKIP_NOTE,
  client,
  countsFromResults,
  countsFromRunTcases,
  createScaleDatabase,
  getRun,
  killLeftovers,
  ok,
  resultBatch,
  spawnServer,
  startServer,
  type Client,
  type ScaleDatabase,
  type ServerProcess,
} from './servers.js';
import { POSTGRES_URL } from '../helpers/databases.js';

/**
 * Several server processes on one database stay correct. Two independent `casebook serve`
 * processes, one of them with `--workers 2` (node:cluster), so three processes write to one database, hammered
 * concurrently over HTTP. Sizes are small enough for CI's two cores, large enough that requests overlap.
 */

const CASES = 40;

for (const target of ['sqlite', 'postgres'] as const) {
  const title = `several server processes on one ${target === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'}`;
  const suite = target === 'postgres' && !POSTGRES_URL ? describe.skip : describe;

  suite(target === 'postgres' && !POSTGRES_URL ? `${title} (${POSTGRES_SKIP_NOTE})` : title, () => {
    let database: ScaleDatabase;
    let servers: ServerProcess[] = [];
    let apis: Client[] = [];
    const code = 'MPX';
    let tcaseIds: string[] = [];

    beforeAll(async () => {
      database = await createScaleDatabase(target);
      // Both start at once on the empty database: migrations and the first start must each happen exactly once.
      servers = await Promise.all([
        startServer({ databaseUrl: database.url, dataDir: database.dataDir, workers: 2 }),
        startServer({ databaseUrl: database.url, dataDir: database.dataDir }),
      ]);
      const key = servers.map((s) => s.bannerKey()).find(Boolean);
      if (!key) throw new Error(`no first-start banner:\n${servers.map((s) => s.output()).join('\n')}`);
      apis = servers.map((s) => client(s.url, key));
      ok(await apis[0].post('/project', { code, title: 'Multi-process' }), 'create project');
    }, 180_000);

    afterAll(async () => {
      try {
        // Every process, the cluster's primary included, stops cleanly on SIGTERM.
        const codes = await Promise.all(servers.map((s) => s.stop()));
        expect(codes, servers.map((s) => s.output()).join('\n')).toEqual(servers.map(() => 0));
      } finally {
        killLeftovers();
        await database?.drop();
      }
    }, 60_000);

    it('starts every process on an empty database at once and prints the first-start banner exactly once', () => {
      const banners = servers.map((s) => s.output().split('Casebook is ready').length - 1);
      expect(
        banners.reduce((a, b) => a + b, 0),
        servers.map((s) => s.output()).join('\n'),
      ).toBe(1);
    });

    it('gives test cases created concurrently through every process unique, gap-free seqs 1..N', async () => {
      const folder = ok(
        await apis[0].post(`/project/${code}/tcase/folder/bulk`, { folders: [{ path: ['concurrent'] }] }),
        'create folder',
      );
      const folderId = folder.ids[0][0];
      const replies = await Promise.all(
        Array.from({ length: CASES }, (_, i) =>
          apis[i % apis.length].post(`/project/${code}/tcase`, {
            title: `concurrent case ${i}`,
            type: 'standalone',
            folderId,
            priority: 'medium',
          }),
        ),
      );
      expect(
        replies.filter((r) => r.status !== 201),
        'every creation succeeds',
      ).toEqual([]);
      const seqs = replies.map((r) => r.body.seq as number).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: CASES }, (_, i) => i + 1));
      tcaseIds = replies.map((r) => r.body.id as string);

      // What was stored says the same, read through the other process.
      const list = ok(
        await apis[1].get(`/project/${code}/tcase?limit=1000&sortField=seq`),
        'list test cases',
      );
      expect(list.total).toBe(CASES);
      expect(list.data.map((t: { seq: number }) => t.seq)).toEqual(seqs);
      expect(new Set(list.data.map((t: { id: string }) => t.id))).toEqual(new Set(tcaseIds));
    });

    it('answers the same run title created concurrently through every process with exactly one 201 and 409s naming it', async () => {
      expect(tcaseIds).toHaveLength(CASES);
      for (const round of [1, 2, 3]) {
        const runTitle = `Nightly ${round}`;
        const replies = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            apis[i % apis.length].post(`/project/${code}/run`, {
              title: runTitle,
              type: 'static_struct',
              queryPlans: [{ tcaseIds }],
            }),
          ),
        );
        const winners = replies.filter((r) => r.status === 201);
        expect(winners, JSON.stringify(replies)).toHaveLength(1);
        const winnerId = winners[0].body.id as number;
        for (const loser of replies.filter((r) => r.status !== 201)) {
          expect(loser.status, JSON.stringify(loser.body)).toBe(409);
          expect(loser.body.code).toBe('CONFLICT');
          expect(loser.body.message).toMatch(new RegExp(`conflicting run id: ${winnerId}$`));
        }
        const runs = ok(await apis[1].get(`/project/${code}/run`), 'list runs').runs;
        expect(
          runs.filter((r: { title: string }) => r.title === runTitle).map((r: { id: number }) => r.id),
        ).toEqual([winnerId]);
      }
    });

    it('keeps status counts equal to the results when batches arrive concurrently through every process, losing and duplicating nothing', async () => {
      expect(tcaseIds).toHaveLength(CASES);
      const run = ok(
        await apis[0].post(`/project/${code}/run`, {
          title: 'Concurrent results',
          type: 'static_struct',
          queryPlans: [{ tcaseIds }],
        }),
        'create run',
      );
      const BATCH = 100;
      const LOOPS_PER_PROCESS = 6;
      const BATCHES_PER_LOOP = 3;
      const acknowledged = new Map<string, number[]>();
      const failures: string[] = [];
      await Promise.all(
        apis.flatMap((api, p) =>
          Array.from({ length: LOOPS_PER_PROCESS }, async (_, loop) => {
            for (let k = 0; k < BATCHES_PER_LOOP; k++) {
              const comment = `batch ${p}-${loop}-${k}`;
              const reply = await api.post(
                `/project/${code}/run/${run.id}/result/batch`,
                resultBatch(tcaseIds, BATCH, comment, p * 31 + loop * 7 + k),
              );
              if (reply.status === 201) acknowledged.set(comment, reply.body.ids);
              else failures.push(`${comment}: ${reply.status} ${JSON.stringify(reply.body)}`);
            }
          }),
        ),
      );
      expect(failures).toEqual([]);
      const total = apis.length * LOOPS_PER_PROCESS * BATCHES_PER_LOOP * BATCH;
      const ackedIds = [...acknowledged.values()].flat();
      expect(ackedIds).toHaveLength(total);
      expect(new Set(ackedIds).size, 'no id acknowledged twice').toBe(total);

      // Every acknowledged result is stored exactly once, under its batch, and nothing else is.
      const stored = await database.db
        .selectFrom('results')
        .select(['id', 'comment'])
        .where('run_id', '=', run.id)
        .execute();
      expect(stored).toHaveLength(total);
      const commentOf = new Map(stored.map((r) => [r.id, r.comment]));
      for (const [comment, ids] of acknowledged) {
        expect(ids).toHaveLength(BATCH);
        expect(
          ids.every((id) => commentOf.get(id) === comment),
          comment,
        ).toBe(true);
      }

      // The counters agree with the results, with the run's case list, and through every process.
      const expected = await countsFromResults(database.db, run.id);
      expect(expected.all).toBe(CASES);
      const listed = ok(
        await apis[1].get(`/project/${code}/run/${run.id}/tcase`),
        'list run test cases',
      ).tcases;
      expect(countsFromRunTcases(listed)).toEqual(expected);
      for (const api of apis) expect((await getRun(api, code, run.id)).statusCounts).toEqual(expected);
    });
  });
}

describe('casebook serve --workers (node:cluster)', () => {
  let database: ScaleDatabase;

  beforeAll(async () => {
    database = await createScaleDatabase('sqlite');
  });
  afterAll(async () => {
    killLeftovers();
    await database?.drop();
  }, 60_000);

  it('replaces a worker that dies and keeps serving', async () => {
    const server = await startServer({
      databaseUrl: database.url,
      dataDir: database.dataDir,
      workers: 2,
      logLevel: 'info',
    });
    try {
      /** Pids of the workers that logged "casebook listening". */
      const listening = () =>
        server
          .output()
          .split('\n')
          .filter((l) => l.includes('"msg":"casebook listening"'))
          .map((l) => JSON.parse(l).pid as number);
      const waitFor = async (ready: () => boolean) => {
        for (let i = 0; i < 600 && !ready(); i++) await new Promise((r) => setTimeout(r, 100));
      };
      await waitFor(() => listening().length === 2);
      const workers = listening();
      expect(server.childPids().sort()).toEqual([...workers].sort());

      process.kill(workers[0], 'SIGKILL');
      const died = `worker ${workers[0]} exited (SIGKILL); starting another`;
      await waitFor(() => server.output().includes(died));
      expect(server.output()).toContain(died);
      // A kept-alive connection to the dead worker is gone with it; give the client a moment to notice.
      await new Promise((r) => setTimeout(r, 200));
      const api = client(server.url, server.bannerKey()!);
      // The other worker answers meanwhile.
      for (let i = 0; i < 4; i++) expect((await api.get('/project')).status).toBe(200);
      await waitFor(() => listening().length === 3);
      const replacement = listening()[2];
      expect(workers).not.toContain(replacement);
      expect(server.childPids().sort()).toEqual([workers[1], replacement].sort());
      for (let i = 0; i < 4; i++) expect((await api.get('/project')).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 120_000);

  it('stops with exit code 1, naming the cause, when its workers cannot listen', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as net.AddressInfo;
      const server = await spawnServer({
        databaseUrl: database.url,
        dataDir: database.dataDir,
        workers: 2,
        port,
      });
      expect(await server.exited, server.output()).toBe(1);
      expect(server.output()).toContain('EADDRINUSE');
      expect(server.output()).toMatch(/exited \(1\) before it listened; stopping/);
    } finally {
      taken.close();
    }
  }, 120_000);
});
