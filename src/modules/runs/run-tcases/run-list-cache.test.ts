import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, ownerActor, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { addResult, bodyText, createRun, updateTcase } from '../../../../test/helpers/run-factories.js';
import type { Actor } from '../../../auth/actor.js';
import { loadConfig } from '../../../config.js';
import { createDb, type Db } from '../../../db/create-db.js';
import type { JsonBody } from '../../../db/dialect.js';
import type { ListRunTcasesQuery } from '../runs.schemas.js';
import { RunListCache, runListCacheFor } from './run-list-cache.js';
import * as service from './run-tcases.service.js';

// The cache serves PostgreSQL only; on SQLite the app's is off (the last test).
describeEachDb(
  'run list cache',
  (t) => {
    let P: { id: string; code: string; title: string };
    let folder: number;
    let other: number;
    let runId: number;
    const cases: { id: string; seq: number }[] = [];
    let actor: Actor;
    /** Another process on the same database: its writes reach this one only through the database. */
    let elsewhere: Db | undefined;
    const off = new RunListCache({ maxBytes: 0, minBytes: 0 });

    beforeAll(async () => {
      actor = ownerActor(t);
      P = await createProject(t);
      folder = await createFolder(t, P, ['Checkout']);
      other = await createFolder(t, P, ['Elsewhere']);
      for (const title of ['Pay by card', 'Pay by voucher', 'Refund', 'Cancel order'])
        cases.push(await createTcase(t, P, { folderId: folder, title }));
      runId = (await createRun(t, P, { tcaseIds: cases.slice(0, 3).map((c) => c.id) })).id;
      if (t.dbName === 'postgres') elsewhere = createDb(t.config.databaseUrl, { poolSize: 1 });
    });
    afterAll(async () => {
      await elsewhere?.destroy();
    });

    /** The list as the route answers it through `cache`, and as made with no cache at all. */
    const list = async (cache: RunListCache, query: ListRunTcasesQuery = {}, as = actor) => {
      const through = await service.listRunTcasesResponse(t.db, cache, as, P.code, runId, query);
      const made = await service.listRunTcasesResponse(t.db, off, as, P.code, runId, query);
      const text = await bodyText((through as { json: JsonBody }).json);
      expect(text).toBe(await bodyText((made as { json: JsonBody }).json));
      return JSON.parse(text).tcases as {
        id: string;
        legacyId: string;
        title: string;
        status: string;
        folderId: number;
      }[];
    };

    it('serves an unchanged list from the cache after one check, and makes it again after any change', async (ctx) => {
      if (t.dbName !== 'postgres') ctx.skip();
      const cache = new RunListCache({ maxBytes: 1 << 24, minBytes: 0 });
      await list(cache);
      await list(cache);
      expect(cache.stats).toEqual({ hits: 1, stale: 0, misses: 1 });

      // Each change below must show at once; after each, one request finds it and the next is served again.
      const changes: [string, () => Promise<void>, (items: Awaited<ReturnType<typeof list>>) => void][] = [
        [
          'a result',
          async () => {
            await addResult(t, P, runId, cases[0].id, 'failed');
          },
          (items) => expect(items[0].status).toBe('failed'),
        ],
        [
          'a case edited',
          () => updateTcase(t, P, cases[1].id, { title: 'Pay by gift card' }),
          (items) => expect(items.map((i) => i.title)).toContain('Pay by gift card'),
        ],
        [
          'a case moved',
          () => updateTcase(t, P, cases[2].id, { folderId: other }),
          (items) => expect(items.find((i) => i.id === cases[2].id)?.folderId).toBe(other),
        ],
        [
          'a case added to the run',
          async () => {
            const res = await t.post(`/project/${P.code}/run/${runId}/tcase/add`, {
              tcaseIds: [cases[3].id],
            });
            expect(res.status, JSON.stringify(res.body)).toBe(200);
          },
          (items) => expect(items.map((i) => i.id)).toContain(cases[3].id),
        ],
        [
          'a case taken from the run',
          async () => {
            const res = await t.post(`/project/${P.code}/run/${runId}/tcase/remove`, {
              tcaseIds: [cases[0].id],
            });
            expect(res.status, JSON.stringify(res.body)).toBe(200);
          },
          (items) => expect(items.map((i) => i.id)).not.toContain(cases[0].id),
        ],
        [
          'a case assigned',
          async () => {
            const res = await t.post(`/project/${P.code}/run/${runId}/tcase/assign`, {
              tcaseIds: [cases[1].id],
              assigneeId: t.ownerId,
            });
            expect(res.status, JSON.stringify(res.body)).toBe(200);
          },
          () => {},
        ],
        [
          'the assignee renamed by another process',
          async () => {
            await elsewhere!
              .updateTable('users')
              .set({ name: 'Renamed Owner' })
              .where('id', '=', t.ownerId)
              .execute();
          },
          (items) =>
            expect(items.find((i) => i.id === cases[1].id)).toMatchObject({
              assignee: { id: t.ownerId, name: 'Renamed Owner' },
            }),
        ],
        [
          'a title written straight into the database by another process',
          async () => {
            await elsewhere!
              .updateTable('tcase_versions')
              .set({ title: 'Refund in full' })
              .where('tcase_id', '=', cases[2].id)
              .execute();
          },
          (items) => expect(items.map((i) => i.title)).toContain('Refund in full'),
        ],
        [
          'a legacy id written straight into the test case by another process',
          async () => {
            await elsewhere!
              .updateTable('tcases')
              .set({ legacy_id: 'JIRA-7' })
              .where('id', '=', cases[3].id)
              .execute();
          },
          (items) => expect(items.find((i) => i.id === cases[3].id)?.legacyId).toBe('JIRA-7'),
        ],
      ];
      for (const [what, change, shows] of changes) {
        const before = { ...cache.stats };
        await change();
        shows(await list(cache));
        expect(cache.stats, what).toEqual({ ...before, stale: before.stale + 1 });
        // The run changed since the last request: the next is made without a check, and finds nothing new.
        await list(cache);
        expect(cache.stats, what).toEqual({ ...before, stale: before.stale + 1, misses: before.misses + 1 });
        await list(cache);
        expect(cache.stats, what).toEqual({
          hits: before.hits + 1,
          stale: before.stale + 1,
          misses: before.misses + 1,
        });
      }
    });

    it('adds up the fingerprint of a long list across the rows of 1,000 PostgreSQL sends it in', async (ctx) => {
      if (t.dbName !== 'postgres') ctx.skip();
      const L = await createProject(t);
      const created = (
        await t.post(`/project/${L.code}/tcase/bulk`, {
          folderPath: ['long'],
          tcases: Array.from({ length: 2_345 }, (_, i) => ({ title: `Long ${i}` })),
        })
      ).body.tcases as { id: string }[];
      const run = (await createRun(t, L, { tcaseIds: created.map((c) => c.id) })).id;
      const cache = new RunListCache({ maxBytes: 1 << 24, minBytes: 0 });
      const read = async () =>
        JSON.parse(
          await bodyText(
            ((await service.listRunTcasesResponse(t.db, cache, actor, L.code, run, {})) as { json: JsonBody })
              .json,
          ),
        ).tcases as { id: string; status: string }[];
      expect(await read()).toHaveLength(2_345);
      expect(await read()).toHaveLength(2_345);
      expect(cache.stats).toEqual({ hits: 1, stale: 0, misses: 1 });
      // A change to the list's last item, in the last row PostgreSQL sends, shows too.
      await addResult(t, L, run, created[2_344].id, 'passed');
      expect((await read())[2_344].status).toBe('passed');
      expect(cache.stats).toEqual({ hits: 1, stale: 1, misses: 1 });
    });

    it('keeps each filter apart, and first pages and short lists not at all', async (ctx) => {
      if (t.dbName !== 'postgres') ctx.skip();
      const cache = new RunListCache({ maxBytes: 1 << 24, minBytes: 0 });
      const queries: ListRunTcasesQuery[] = [
        {},
        { search: 'pay' },
        { sortField: 'title', sortOrder: 'desc' },
      ];
      for (const query of queries) await list(cache, query);
      for (const query of queries) await list(cache, query);
      expect(cache.stats).toEqual({ hits: 3, stale: 0, misses: 3 });
      await list(cache, { limit: 1 });
      await list(cache, { limit: 1 });
      expect(cache.stats).toEqual({ hits: 3, stale: 0, misses: 3 });
      // assignee=me is each person's own list.
      const admin = await userWithKey(t, 'admin');
      const someoneElse: Actor = { ...actor, userId: admin.user.id, role: 'admin' };
      for (const as of [actor, someoneElse, actor, someoneElse]) await list(cache, { assignee: 'me' }, as);
      expect(cache.stats).toEqual({ hits: 5, stale: 0, misses: 5 });

      const picky = new RunListCache({ maxBytes: 1 << 24, minBytes: 1 << 20 });
      await list(picky);
      await list(picky);
      expect(picky.stats).toEqual({ hits: 0, stale: 0, misses: 2 });
      expect(picky.size).toBe(0);
    });

    it('drops the least recently used bodies to stay within its room', async (ctx) => {
      if (t.dbName !== 'postgres') ctx.skip();
      const one = Buffer.byteLength(
        await bodyText(
          ((await service.listRunTcasesResponse(t.db, off, actor, P.code, runId, {})) as { json: JsonBody })
            .json,
        ),
      );
      // Room for four bodies of this size with their keys (a body may take a quarter of the room at most).
      const cache = new RunListCache({ maxBytes: (one + 200) * 4, minBytes: 0 });
      const a: ListRunTcasesQuery = {};
      const b: ListRunTcasesQuery = { sortField: 'title' };
      const c: ListRunTcasesQuery = { sortField: 'title', sortOrder: 'desc' };
      const d: ListRunTcasesQuery = { sortField: 'created_at' };
      const e: ListRunTcasesQuery = { sortField: 'created_at', sortOrder: 'desc' };
      for (const q of [a, b, c, d]) await list(cache, q);
      await list(cache, a);
      expect(cache.stats).toEqual({ hits: 1, stale: 0, misses: 4 });
      // a was used last: the fifth body pushes out b, the least recently used.
      await list(cache, e);
      expect(cache.size).toBeLessThanOrEqual((one + 200) * 4);
      for (const q of [a, c, d, e]) await list(cache, q);
      expect(cache.stats).toEqual({ hits: 5, stale: 0, misses: 5 });
      await list(cache, b);
      expect(cache.stats).toEqual({ hits: 5, stale: 0, misses: 6 });
    });

    it('is on for PostgreSQL only, 32 MiB by default, and CASEBOOK_RUN_LIST_CACHE_MB=0 turns it off', () => {
      expect(t.config.runListCacheBytes).toBe(32 * 1024 * 1024);
      const options = { maxBytes: t.config.runListCacheBytes, minBytes: t.config.runListCacheMinBytes };
      expect(runListCacheFor(t.db, options).enabled).toBe(t.dbName === 'postgres');
      expect(runListCacheFor(t.db, { ...options, maxBytes: 0 }).enabled).toBe(false);
      expect(loadConfig({ CASEBOOK_RUN_LIST_CACHE_MB: '0' }).runListCacheBytes).toBe(0);
      expect(() => loadConfig({ CASEBOOK_RUN_LIST_CACHE_MB: 'lots' })).toThrow(/CASEBOOK_RUN_LIST_CACHE_MB/);
    });
  },
  { databaseUrlInConfig: true },
);

// The cache's own bookkeeping, with stand-ins for the database's two queries.
describe('run list cache, its room', () => {
  /** A `make` that answers `body` and reports it complete with `fingerprint`, as listRunTcasesJson does. */
  const makes =
    (fingerprint: string, body: string, complete = true) =>
    async (keep: { maxBytes: number; done: (fingerprint: string, pieces?: string[]) => void }) => {
      if (complete) keep.done(fingerprint, body.length <= keep.maxBytes ? [body] : undefined);
      return Buffer.from(body);
    };
  const now = (fingerprint: string) => async () => fingerprint;
  const text = async (body: JsonBody) => bodyText(body);

  it('counts its room right when a newer entry takes the place of one a request is checking', async () => {
    const cache = new RunListCache({ maxBytes: 4000, minBytes: 0 });
    await cache.serve('k', now('A'), makes('A', 'a'.repeat(500)));
    let answer!: (fingerprint: string) => void;
    const checking = cache.serve(
      'k',
      () => new Promise<string>((resolve) => (answer = resolve)),
      makes('A', ''),
    );
    // Meanwhile another request finds the rows changed and makes the list again: the run is hot, no body kept.
    expect(await text(await cache.serve('k', now('B'), makes('B', 'b'.repeat(500))))).toBe('b'.repeat(500));
    expect(cache.size).toBe('k'.length + 'B'.length);
    answer('A');
    expect(await text(await checking)).toBe('a'.repeat(500));
    expect(cache.stats).toEqual({ hits: 1, stale: 1, misses: 1 });
    // The newer entry stayed (and with it the count of bytes): the run is still hot, the next list is made.
    expect(cache.size).toBe('k'.length + 'B'.length);
    expect(await text(await cache.serve('k', now('A'), makes('B', 'b'.repeat(500))))).toBe('b'.repeat(500));
    expect(cache.stats).toEqual({ hits: 1, stale: 1, misses: 2 });
  });

  it('lets an old body go as soon as it is found out of date, even when the new one is never finished', async () => {
    const cache = new RunListCache({ maxBytes: 4000, minBytes: 0 });
    await cache.serve('k', now('A'), makes('A', 'a'.repeat(500)));
    expect(cache.size).toBe(500 + 'k'.length + 'A'.length);
    // The client leaves before the last piece: listRunTcasesJson never reports the body complete.
    await cache.serve('k', now('B'), makes('B', 'b'.repeat(500), false));
    expect(cache.size).toBe('k'.length + 'A'.length);
    // The next request makes the list without a check (the rows changed), and the one after keeps it.
    await cache.serve('k', now('B'), makes('B', 'b'.repeat(500)));
    await cache.serve('k', now('B'), makes('B', 'b'.repeat(500)));
    expect(cache.stats).toEqual({ hits: 0, stale: 1, misses: 3 });
    expect(await text(await cache.serve('k', now('B'), makes('X', 'wrong')))).toBe('b'.repeat(500));
    expect(cache.stats.hits).toBe(1);
  });

  it('keeps no body longer than a quarter of its room', async () => {
    const cache = new RunListCache({ maxBytes: 4000, minBytes: 0 });
    await cache.serve('k', now('A'), makes('A', 'a'.repeat(1001)));
    expect(cache.size).toBe(0);
    await cache.serve('k', now('A'), makes('A', 'a'.repeat(1000)));
    expect(cache.size).toBe(1000 + 'k'.length + 'A'.length);
  });
});
