import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../app.js';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { addResult, closeRun, createRun } from '../../../../test/helpers/run-factories.js';

describeEachDb('run changes since a cursor (live run page)', (t) => {
  let P: { id: string; code: string; title: string };
  let tcases: { id: string; seq: number }[];
  /** Another app instance on the same database: a second server process as far as the database can tell. */
  let other: FastifyInstance;

  const changesUrl = (runId: number) => `/project/${P.code}/run/${runId}/changes`;
  const changes = async (runId: number, since?: number) => {
    const res = await t.get(changesUrl(runId), { query: since === undefined ? {} : { since } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const postViaOther = async (url: string, body: unknown) => {
    const res = await other.inject({
      method: 'POST',
      url: `/api/public/v0${url}`,
      headers: { authorization: `ApiKey ${t.ownerKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(res.statusCode, res.body).toBe(201);
    return JSON.parse(res.body);
  };

  beforeAll(async () => {
    P = await createProject(t);
    const folder = await createFolder(t, P, ['F']);
    tcases = [];
    for (let i = 0; i < 4; i++) tcases.push(await createTcase(t, P, { folderId: folder }));
    other = await buildApp({ config: t.config, db: t.db });
  });
  afterAll(async () => {
    await other?.close();
  });

  describe('GET /project/:p/run/:r/changes', () => {
    it('answers the cursor and counts without `since`, and nothing changed for the current cursor', async () => {
      const { id } = await createRun(t, P, { tcaseIds: tcases.map((c) => c.id) });
      const first = await changes(id);
      expect(first).toEqual({
        cursor: 0,
        closed: false,
        membershipVersion: 0,
        truncated: false,
        statusCounts: expect.objectContaining({ all: 4, open: 4, passed: 0 }),
        tcases: [],
      });
      await addResult(t, P, id, tcases[0].id, 'passed');
      const now = await changes(id);
      expect(now.cursor).toBeGreaterThan(0);
      expect((await changes(id, now.cursor)).tcases).toEqual([]);
    });

    it('shows results another app instance recorded (single and batch), with counts and a new cursor', async () => {
      const { id } = await createRun(t, P, { tcaseIds: tcases.map((c) => c.id) });
      const page = await changes(id);
      const single = await postViaOther(`/project/${P.code}/run/${id}/tcase/${tcases[1].seq}/result`, {
        status: 'failed',
        timeTaken: 250,
      });
      const batch = await postViaOther(`/project/${P.code}/run/${id}/result/batch`, {
        items: [
          { tcaseId: tcases[2].id, status: 'passed' },
          { tcaseId: tcases[3].id, status: 'blocked' },
        ],
      });
      // The page's next poll (through the first instance) sees all of it.
      const next = await changes(id, page.cursor);
      expect(next.statusCounts).toMatchObject({ all: 4, open: 1, failed: 1, passed: 1, blocked: 1 });
      expect(next.cursor).toBe(batch.ids[1]);
      expect(next.tcases).toEqual([
        {
          id: tcases[1].id,
          seq: tcases[1].seq,
          status: 'failed',
          isAutomated: true,
          inRun: true,
          latestResult: {
            id: single.id,
            status: 'failed',
            authorId: t.ownerId,
            timeTaken: 250,
            createdAt: expect.any(String),
          },
        },
        expect.objectContaining({
          id: tcases[2].id,
          status: 'passed',
          latestResult: expect.objectContaining({ id: batch.ids[0] }),
        }),
        expect.objectContaining({ id: tcases[3].id, status: 'blocked' }),
      ]);
      // A case changed again appears once, with its latest result; unchanged ones do not come back.
      const again = await postViaOther(`/project/${P.code}/run/${id}/tcase/${tcases[1].id}/result`, {
        status: 'passed',
      });
      const after = await changes(id, next.cursor);
      expect(after.tcases.map((c: { id: string }) => c.id)).toEqual([tcases[1].id]);
      expect(after.tcases[0].latestResult.id).toBe(again.id);
      expect(after.statusCounts).toMatchObject({ failed: 0, passed: 2 });
    });

    it('misses no result written concurrently by two instances while the page polls', async () => {
      const { id } = await createRun(t, P, { tcaseIds: tcases.map((c) => c.id) });
      let cursor = (await changes(id)).cursor;
      const seen = new Map<string, number>();
      const statuses = ['passed', 'failed', 'blocked', 'skipped'];
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 12; i++) {
        const tc = tcases[i % 4];
        const body = { status: statuses[(i + 1) % 4] };
        const url = `/project/${P.code}/run/${id}/tcase/${tc.id}/result`;
        writes.push(i % 2 ? postViaOther(url, body) : t.post(url, body));
        if (i % 3 === 0) {
          const poll = await changes(id, cursor);
          for (const c of poll.tcases) seen.set(c.id, c.latestResult.id);
          cursor = poll.cursor;
        }
      }
      await Promise.all(writes);
      const last = await changes(id, cursor);
      for (const c of last.tcases) seen.set(c.id, c.latestResult.id);
      // What the page assembled equals the run as it is.
      const list = (await t.get(`/project/${P.code}/run/${id}/tcase`)).body.tcases as {
        id: string;
        status: string;
      }[];
      for (const tc of tcases) {
        const detail = (await t.get(`/project/${P.code}/run/${id}/tcase/${tc.id}`)).body;
        expect(seen.get(tc.id)).toBe(detail.results.at(-1).id);
      }
      expect(list.every((x) => x.status !== 'open')).toBe(true);
    });

    it('moves membershipVersion when cases join or leave (add/remove, live propagation), not on results', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [tcases[0].id] });
      const v0 = (await changes(id)).membershipVersion;
      await addResult(t, P, id, tcases[0].id, 'passed');
      expect((await changes(id)).membershipVersion).toBe(v0);
      const add = await t.post(`/project/${P.code}/run/${id}/tcase/add`, { tcaseIds: [tcases[1].id] });
      expect(add.status).toBe(200);
      const v1 = (await changes(id)).membershipVersion;
      expect(v1).toBeGreaterThan(v0);
      // A swap keeps statusCounts.all; the version still moves.
      await t.post(`/project/${P.code}/run/${id}/tcase/remove`, { tcaseIds: [tcases[1].id] });
      expect((await changes(id)).membershipVersion).toBeGreaterThan(v1);

      const liveFolder = await createFolder(t, P, ['Live']);
      const live = await createRun(t, P, { type: 'live', queryPlans: [{ folderIds: [liveFolder] }] });
      const lv0 = (await changes(live.id)).membershipVersion;
      await createTcase(t, P, { folderId: liveFolder });
      const after = await changes(live.id);
      expect(after.membershipVersion).toBeGreaterThan(lv0);
      expect(after.statusCounts.all).toBe(1);
    });

    it('says closed after the run is closed, truncated for a cursor from the future', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [tcases[0].id] });
      await addResult(t, P, id, tcases[0].id, 'passed');
      const before = await changes(id);
      expect((await changes(id, before.cursor + 1000)).truncated).toBe(true);
      await closeRun(t, P, id);
      expect((await changes(id, before.cursor)).closed).toBe(true);
    });

    it('answers 404 for an unknown run, 403 for a non-member, 200 for a viewer member', async () => {
      const { id } = await createRun(t, P);
      expect((await t.get(changesUrl(999999))).status).toBe(404);
      const viewer = await userWithKey(t, 'viewer');
      expect((await t.get(changesUrl(id), { key: viewer.key })).status).toBe(403);
      await t.post(`/project/${P.code}/member`, { userId: viewer.user.id });
      expect((await t.get(changesUrl(id), { key: viewer.key })).status).toBe(200);
      expect((await t.get(changesUrl(id), { query: { since: -1 } })).status).toBe(400);
    });
  });
});
