import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { addResult, createRun } from '../../../test/helpers/run-factories.js';
import { cases, ownerName, runWith } from '../../../test/helpers/report-factories.js';
import { failureSignature } from '../../lib/failure-signature.js';
import { timeout } from '../../../test/helpers/triage-factories.js';

const CHECKOUT = failureSignature(timeout('#checkout')).signature;
const LOGIN = failureSignature(timeout('#login')).signature;

describeEachDb('failure triage: reads', (t) => {
  describe('GET /project/:p/run/:r/failure-group', () => {
    it("answers the run's current failures grouped by signature, largest first, new or not since the comparable run", async () => {
      const p = await createProject(t);
      const [c1, c2, c3, c4, c5] = await cases(t, p, 5);
      const before = await runWith(t, p, [
        [c1, 'failed', { comment: timeout('#login') }],
        [c2, 'passed'],
      ]);
      const runId = await runWith(t, p, [
        [c1, 'failed', { comment: timeout('#login', 5000) }],
        [c2, 'failed', { comment: timeout('#checkout', 30000) }],
        [c3, 'blocked', { comment: timeout('#checkout', 15000) }],
        [c4, 'failed', { comment: timeout('#checkout') }],
        [c5, 'passed'],
      ]);
      // A case that failed and then passed is not a failure of the run any more.
      await addResult(t, p, runId, c4.id, 'passed');
      const res = await t.get(`/project/${p.code}/run/${runId}/failure-group`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        runId,
        comparedWith: before,
        groups: [
          {
            signature: CHECKOUT,
            label: 'locator.click: Timeout <n>ms exceeded.',
            count: 2,
            cases: [
              {
                tcaseId: c2.id,
                seq: c2.seq,
                title: expect.any(String),
                status: 'failed',
                resultId: expect.any(Number),
              },
              {
                tcaseId: c3.id,
                seq: c3.seq,
                title: expect.any(String),
                status: 'blocked',
                resultId: expect.any(Number),
              },
            ],
            isNew: true,
            known: null,
          },
          {
            signature: LOGIN,
            label: 'locator.click: Timeout <n>ms exceeded.',
            count: 1,
            cases: [expect.objectContaining({ tcaseId: c1.id, status: 'failed' })],
            isNew: false,
            known: null,
          },
        ],
      });
    });

    it('answers no groups for a run without failures, and every group new when there is no run to compare with', async () => {
      const p = await createProject(t);
      const [c1, c2] = await cases(t, p, 2);
      const clean = await runWith(t, p, [[c1, 'passed']]);
      expect((await t.get(`/project/${p.code}/run/${clean}/failure-group`)).body).toEqual({
        runId: clean,
        comparedWith: null,
        groups: [],
      });
      const other = await createProject(t);
      const [d] = await cases(t, other, 1);
      const first = await runWith(t, other, [[d, 'failed', { comment: timeout('#x') }]]);
      const body = (await t.get(`/project/${other.code}/run/${first}/failure-group`)).body;
      expect(body.comparedWith).toBeNull();
      expect(body.groups.map((g: { isNew: boolean }) => g.isNew)).toEqual([true]);
      void c2;
    });

    it('answers 404 for an unknown run and 400 for a malformed run id, as JSON', async () => {
      const p = await createProject(t);
      const missing = await t.get(`/project/${p.code}/run/999999/failure-group`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(expect.objectContaining({ message: expect.stringContaining('999999') }));
      const bad = await t.get(`/project/${p.code}/run/abc/failure-group`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toEqual(expect.any(String));
    });

    it('answers 403 to a user who is not a member of the project', async () => {
      const p = await createProject(t);
      const [c] = await cases(t, p, 1);
      const runId = await runWith(t, p, [[c, 'failed', { comment: timeout('#a') }]]);
      const outsider = await userWithKey(t, 'user');
      const res = await t.get(`/project/${p.code}/run/${runId}/failure-group`, { key: outsider.key });
      expect(res.status).toBe(403);
      expect(res.body.message).toEqual(expect.any(String));
    });
  });

  describe('GET /project/:p/failure-group and /failure-group/:signature', () => {
    it('answers first and last seen, runs and cases affected, the most recently seen first, paged', async () => {
      const p = await createProject(t);
      const [c1, c2, c3] = await cases(t, p, 3);
      const r1 = await runWith(t, p, [
        [c1, 'failed', { comment: timeout('#checkout') }],
        [c2, 'failed', { comment: timeout('#login') }],
      ]);
      const r2 = await runWith(t, p, [
        [c1, 'failed', { comment: timeout('#checkout', 10) }],
        [c3, 'failed', { comment: timeout('#checkout', 20) }],
      ]);
      const all = await t.get(`/project/${p.code}/failure-group`);
      expect(all.status, JSON.stringify(all.body)).toBe(200);
      expect(all.body).toEqual({
        total: 2,
        offset: 0,
        limit: 50,
        data: [
          {
            signature: CHECKOUT,
            label: 'locator.click: Timeout <n>ms exceeded.',
            firstSeen: expect.any(String),
            lastSeen: expect.any(String),
            runs: 2,
            cases: 2,
            known: null,
          },
          expect.objectContaining({ signature: LOGIN, runs: 1, cases: 1 }),
        ],
      });
      expect(all.body.data[0].firstSeen < all.body.data[0].lastSeen).toBe(true);
      const page = await t.get(`/project/${p.code}/failure-group`, { query: { offset: 1, limit: 1 } });
      expect(page.body).toMatchObject({ total: 2, offset: 1, limit: 1, data: [{ signature: LOGIN }] });

      const one = await t.get(`/project/${p.code}/failure-group/${CHECKOUT}`);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ signature: CHECKOUT, runs: 2, cases: 2 });
      expect(one.body.runList.map((r: { id: number; cases: number }) => [r.id, r.cases])).toEqual([
        [r2, 2],
        [r1, 1],
      ]);
      expect(one.body.caseList.map((c: { seq: number; runs: number }) => [c.seq, c.runs]).sort()).toEqual(
        [
          [c1.seq, 2],
          [c3.seq, 1],
        ].sort(),
      );
    });

    it('answers 404 for a signature the project never saw and 400 for one that is not 32 hex characters', async () => {
      const p = await createProject(t);
      const missing = await t.get(`/project/${p.code}/failure-group/${'0'.repeat(32)}`);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toContain('not found');
      const bad = await t.get(`/project/${p.code}/failure-group/not-a-signature`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toEqual(expect.any(String));
      const badPage = await t.get(`/project/${p.code}/failure-group`, { query: { limit: 0 } });
      expect(badPage.status).toBe(400);
    });

    it("keeps projects apart: another project's groups are not seen", async () => {
      const p = await createProject(t);
      const [c] = await cases(t, p, 1);
      await runWith(t, p, [[c, 'failed', { comment: timeout('#only-here') }]]);
      const other = await createProject(t);
      const sig = failureSignature(timeout('#only-here')).signature;
      expect((await t.get(`/project/${other.code}/failure-group/${sig}`)).status).toBe(404);
      expect((await t.get(`/project/${other.code}/failure-group`)).body.total).toBe(0);
    });
  });

  describe('GET /project/:p/result/:id/suggestions', () => {
    it('suggests defects linked before to results with the same signature, with the runs and who linked them', async () => {
      const p = await createProject(t);
      const [c1, c2, c3] = await cases(t, p, 3);
      const bug = { url: 'https://bugs.example/SHOP-1', text: 'SHOP-1 checkout button' };
      const r1 = await runWith(t, p, [
        [c1, 'failed', { comment: timeout('#checkout', 100), links: [bug] }],
        [
          c2,
          'failed',
          { comment: timeout('#login'), links: [{ url: 'https://bugs.example/2', text: 'other' }] },
        ],
      ]);
      const { id: r2 } = await createRun(t, p, { tcaseIds: [c3.id] });
      const resultId = await addResult(t, p, r2, c3.id, 'failed', { comment: timeout('#checkout', 200) });
      const res = await t.get(`/project/${p.code}/result/${resultId}/suggestions`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        resultId,
        signature: CHECKOUT,
        label: 'locator.click: Timeout <n>ms exceeded.',
        suggestions: [
          {
            ...bug,
            runs: 1,
            evidence: [
              {
                runId: r1,
                runTitle: expect.any(String),
                resultId: expect.any(Number),
                tcaseId: c1.id,
                seq: c1.seq,
                linkedBy: { id: t.ownerId, name: await ownerName(t) },
                linkedAt: expect.any(String),
              },
            ],
          },
        ],
      });
      // Nothing was linked by asking.
      const links = await t.db
        .selectFrom('result_links')
        .selectAll()
        .where('result_id', '=', resultId)
        .execute();
      expect(links).toEqual([]);
    });

    it('answers no signature and no suggestions for a result that is not a failure; 404 for an unknown result', async () => {
      const p = await createProject(t);
      const [c] = await cases(t, p, 1);
      const { id: runId } = await createRun(t, p, { tcaseIds: [c.id] });
      const passed = await addResult(t, p, runId, c.id, 'passed');
      expect((await t.get(`/project/${p.code}/result/${passed}/suggestions`)).body).toEqual({
        resultId: passed,
        signature: null,
        label: null,
        suggestions: [],
      });
      const missing = await t.get(`/project/${p.code}/result/99999999/suggestions`);
      expect(missing.status).toBe(404);
      const other = await createProject(t);
      expect((await t.get(`/project/${other.code}/result/${passed}/suggestions`)).status).toBe(404);
      expect((await t.get(`/project/${p.code}/result/x1/suggestions`)).status).toBe(400);
    });
  });
});
