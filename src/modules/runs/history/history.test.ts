import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { addResult, closeRun, createRun } from '../../../../test/helpers/run-factories.js';

describeEachDb('a test case result history across runs', (t) => {
  let P: { id: string; code: string; title: string };
  let tc: { id: string; seq: number };
  let other: { id: string; seq: number };
  const runs: { id: number; title: string }[] = [];
  const latest: number[] = [];

  const url = (ref: string | number = tc.id) => `/project/${P.code}/tcase/${ref}/results`;

  beforeAll(async () => {
    P = await createProject(t);
    const folder = await createFolder(t, P, ['F']);
    tc = await createTcase(t, P, { folderId: folder });
    other = await createTcase(t, P, { folderId: folder });
    for (let i = 0; i < 3; i++) {
      const title = `History run ${i}`;
      const { id } = await createRun(t, P, { title, tcaseIds: [tc.id, other.id] });
      runs.push({ id, title });
    }
    // run 0: failed then passed (only the latest counts); run 1: blocked, then closed; run 2: nothing for tc.
    await addResult(t, P, runs[0].id, tc.id, 'failed', { comment: 'first' });
    latest[0] = await addResult(t, P, runs[0].id, tc.id, 'passed', { comment: 'fixed', timeTaken: 1500 });
    latest[1] = await addResult(t, P, runs[1].id, tc.seq, 'blocked', { comment: '<b>env</b>' });
    await closeRun(t, P, runs[1].id);
    await addResult(t, P, runs[2].id, other.id, 'passed');
  });

  describe('GET /project/:p/tcase/:id/results', () => {
    it("answers the case's latest result in each run that has one, newest first, with its run", async () => {
      const res = await t.get(url());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        total: 2,
        offset: 0,
        limit: 20,
        results: [
          {
            id: latest[1],
            run: { id: runs[1].id, title: runs[1].title, type: 'static_struct', closed: true },
            inRun: true,
            status: 'blocked',
            comment: '<b>env</b>',
            authorId: t.ownerId,
            author: { id: t.ownerId, name: expect.any(String), email: 'owner@example.com' },
            tcaseVersion: 1,
            timeTaken: null,
            createdAt: expect.any(String),
          },
          expect.objectContaining({
            id: latest[0],
            run: { id: runs[0].id, title: runs[0].title, type: 'static_struct', closed: false },
            status: 'passed',
            comment: 'fixed',
            timeTaken: 1500,
          }),
        ],
      });
    });

    it('pages with offset and limit, the total unchanged, and finds the case by seq', async () => {
      const page = await t.get(url(tc.seq), { query: { offset: 1, limit: 1 } });
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(2);
      expect(page.body.results.map((r: { id: number }) => r.id)).toEqual([latest[0]]);
      const none = await t.get(url(), { query: { limit: 0 } });
      expect(none.body).toEqual({ total: 2, offset: 0, limit: 0, results: [] });
    });

    it('keeps the result of a run the case has left, marked inRun false', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [tc.id] });
      const resultId = await addResult(t, P, id, tc.id, 'skipped');
      const removed = await t.post(`/project/${P.code}/run/${id}/tcase/remove`, { tcaseIds: [tc.id] });
      expect(removed.status).toBe(200);
      const res = await t.get(url());
      expect(res.body.results[0]).toMatchObject({ id: resultId, inRun: false, status: 'skipped' });
    });

    it('answers an empty list for a case without results, 404 for an unknown case, 400 for a bad limit', async () => {
      const fresh = await createTcase(t, P, { folderId: await createFolder(t, P, ['G']) });
      expect((await t.get(url(fresh.id))).body).toEqual({ total: 0, offset: 0, limit: 20, results: [] });
      const missing = await t.get(url('NOPE-1'));
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      expect((await t.get(url(), { query: { limit: 501 } })).status).toBe(400);
    });

    it('is a read: a viewer member may call it, a non-member gets 403', async () => {
      const viewer = await userWithKey(t, 'viewer');
      expect((await t.get(url(), { key: viewer.key })).status).toBe(403);
      await t.post(`/project/${P.code}/member`, { userId: viewer.user.id });
      expect((await t.get(url(), { key: viewer.key })).status).toBe(200);
    });
  });
});
