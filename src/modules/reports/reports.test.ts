import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { addResult, closeRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { cases, counts, runWith, type Project } from '../../../test/helpers/report-factories.js';

describeEachDb('project reports', (t) => {
  describe('GET /project/:p/report/trend', () => {
    it('answers the last N runs oldest first with their counts and pass rate, filtered by milestone', async () => {
      const p = await createProject(t);
      const m = (await t.post(`/project/${p.code}/milestone`, { title: 'M' })).body.id;
      const [c1, c2, c3, c4] = await cases(t, p, 4);
      await runWith(t, p, [[c1, 'failed']]);
      const r2 = await runWith(
        t,
        p,
        [
          [c1, 'passed'],
          [c2, 'failed'],
          [c3, 'skipped'],
          [c4, null],
        ],
        { milestoneId: m },
      );
      const r3 = await runWith(t, p, [
        [c1, 'passed'],
        [c2, 'passed'],
      ]);
      const res = await t.get(`/project/${p.code}/report/trend`, { query: { by: 'run', last: 2 } });
      expect(res.status).toBe(200);
      expect(res.body.points).toEqual([
        {
          key: String(r2),
          label: expect.any(String),
          at: expect.any(String),
          counts: counts({ passed: 1, failed: 1, skipped: 1, open: 1 }),
          passRate: 0.5,
        },
        {
          key: String(r3),
          label: expect.any(String),
          at: expect.any(String),
          counts: counts({ passed: 2 }),
          passRate: 1,
        },
      ]);
      const filtered = await t.get(`/project/${p.code}/report/trend`, { query: { milestoneId: m } });
      expect(filtered.body.points.map((pt: { key: string }) => pt.key)).toEqual([String(r2)]);
    });

    it('sums runs per UTC day of their creation, leaves out days without results, and keeps the last N days', async () => {
      const p = await createProject(t);
      const [c1, c2] = await cases(t, p, 2);
      const day = async (runId: number, at: string) =>
        t.db.updateTable('runs').set({ created_at: at }).where('id', '=', runId).execute();
      await day(await runWith(t, p, [[c1, 'failed']]), '2026-03-01T10:00:00.000Z');
      await day(
        await runWith(t, p, [
          [c1, 'passed'],
          [c2, 'failed'],
        ]),
        '2026-03-02T23:59:59.000Z',
      );
      await day(
        await runWith(t, p, [
          [c1, 'passed'],
          [c2, 'passed'],
        ]),
        '2026-03-02T00:00:00.000Z',
      );
      await day(await runWith(t, p, [[c1, null]]), '2026-03-03T08:00:00.000Z');
      await day(await runWith(t, p, [[c1, 'blocked']]), '2026-03-04T08:00:00.000Z');
      const res = await t.get(`/project/${p.code}/report/trend`, { query: { by: 'day', last: 2 } });
      expect(res.status).toBe(200);
      expect(res.body.points).toEqual([
        {
          key: '2026-03-02',
          label: '2026-03-02',
          at: '2026-03-02T23:59:59.000Z',
          counts: counts({ passed: 3, failed: 1 }),
          passRate: 0.75,
        },
        {
          key: '2026-03-04',
          label: '2026-03-04',
          at: '2026-03-04T08:00:00.000Z',
          counts: counts({ blocked: 1 }),
          passRate: 0,
        },
      ]);
    });

    it.each<Record<string, string | number>>([{ last: 201 }, { last: 0 }, { by: 'week' }, { format: 'xml' }])(
      'answers 400 with the validation body for %j',
      async (query) => {
        const p = await createProject(t);
        const res = await t.get(`/project/${p.code}/report/trend`, { query });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details[0].path).toBe(`/${Object.keys(query)[0]}`);
      },
    );

    it('accepts last=200 and answers CSV with one row per point', async () => {
      const p = await createProject(t);
      const [c1] = await cases(t, p, 1);
      const runId = await runWith(t, p, [[c1, 'passed']], { title: '+1 run' });
      const res = await t.get(`/project/${p.code}/report/trend`, { query: { last: 200, format: 'csv' } });
      expect(res.status).toBe(200);
      const at = (await t.get(`/project/${p.code}/report/trend`)).body.points[0].at;
      expect(res.text).toBe(
        'key,label,at,all,open,passed,failed,blocked,skipped,custom1,custom2,custom3,custom4,passRate\r\n' +
          `${runId},'+1 run,${at},1,0,1,0,0,0,0,0,0,0,1\r\n`,
      );
    });
  });

  describe('flaky, failing, slowest and defects over the last N runs', () => {
    async function history(p: Project) {
      // w: failed, skipped, passed, open: a skipped or open run neither flips nor breaks the sequence.
      const [x, y, z, w] = await cases(t, p, 4);
      const bug = (n: number) => ({ links: [{ url: `https://bugs.example/${n}`, text: `BUG-${n}` }] });
      const runs = [
        await runWith(t, p, [
          [x, 'passed', { timeTaken: 100 }],
          [y, 'passed', { timeTaken: 10 }],
          [z, 'passed'],
          [w, 'failed'],
        ]),
        await runWith(t, p, [
          [x, 'failed', { timeTaken: 300, ...bug(1) }],
          [y, 'passed', { timeTaken: 20 }],
          [z, 'passed'],
          [w, 'skipped'],
        ]),
        await runWith(t, p, [
          [x, 'passed', { timeTaken: 200 }],
          [y, 'failed', { timeTaken: 30, ...bug(1) }],
          [z, 'passed'],
          [w, 'passed'],
        ]),
        await runWith(t, p, [
          [x, 'blocked', { timeTaken: 400, ...bug(2) }],
          [y, 'skipped'],
          [z, 'passed'],
          [w, null],
        ]),
      ];
      return { x, y, z, w, runs };
    }

    it('counts flips between passed and failed or blocked, most first, and only within the last N runs', async () => {
      const p = await createProject(t);
      const { x, y, w } = await history(p);
      const all = (await t.get(`/project/${p.code}/report/flaky`)).body;
      // The fields clients read before the flaky score stay as they were (the score's own are in flaky-score.test.ts).
      expect(all.tcases).toMatchObject([
        { tcaseId: x.id, seq: x.seq, title: expect.any(String), flips: 3, runs: 4, lastStatus: 'blocked' },
        { tcaseId: y.id, seq: y.seq, title: expect.any(String), flips: 1, runs: 4, lastStatus: 'skipped' },
        { tcaseId: w.id, seq: w.seq, title: expect.any(String), flips: 1, runs: 4, lastStatus: 'open' },
      ]);
      const two = (await t.get(`/project/${p.code}/report/flaky`, { query: { last: 2 } })).body;
      expect(two.tcases).toMatchObject([
        { tcaseId: x.id, seq: x.seq, title: expect.any(String), flips: 1, runs: 2, lastStatus: 'blocked' },
      ]);
    });

    it('lists the most failing cases first with their last failure time', async () => {
      const p = await createProject(t);
      const { x, y, w } = await history(p);
      const r = (await t.get(`/project/${p.code}/report/failing`)).body;
      expect(r.tcases).toEqual([
        {
          tcaseId: x.id,
          seq: x.seq,
          title: expect.any(String),
          failures: 2,
          runs: 4,
          lastFailedAt: expect.any(String),
        },
        {
          tcaseId: y.id,
          seq: y.seq,
          title: expect.any(String),
          failures: 1,
          runs: 4,
          lastFailedAt: expect.any(String),
        },
        {
          tcaseId: w.id,
          seq: w.seq,
          title: expect.any(String),
          failures: 1,
          runs: 4,
          lastFailedAt: expect.any(String),
        },
      ]);
      // Ties in failures: the newest failure first.
      expect(r.tcases[0].lastFailedAt > r.tcases[1].lastFailedAt).toBe(true);
      expect(r.tcases[1].lastFailedAt > r.tcases[2].lastFailedAt).toBe(true);
      const limited = (await t.get(`/project/${p.code}/report/failing`, { query: { limit: 1 } })).body;
      expect(limited.tcases.map((c: { seq: number }) => c.seq)).toEqual([x.seq]);
    });

    it('answers median and max of timeTaken, slowest first, from timed results only', async () => {
      const p = await createProject(t);
      const { x, y } = await history(p);
      const r = (await t.get(`/project/${p.code}/report/slowest`)).body;
      expect(r.tcases).toEqual([
        { tcaseId: x.id, seq: x.seq, title: expect.any(String), medianMs: 250, maxMs: 400, samples: 4 },
        { tcaseId: y.id, seq: y.seq, title: expect.any(String), medianMs: 20, maxMs: 30, samples: 3 },
      ]);
      const csv = await t.get(`/project/${p.code}/report/slowest`, { query: { format: 'csv', last: 1 } });
      expect(csv.text.split('\r\n')).toEqual([
        'seq,tcaseId,title,medianMs,maxMs,samples',
        expect.stringMatching(new RegExp(`^${x.seq},${x.id},.*,400,400,1$`)),
        '',
      ]);
    });

    it('groups result links by URL with their cases, runs and first and last times, newest first', async () => {
      const p = await createProject(t);
      const { x, y, runs } = await history(p);
      const r = (await t.get(`/project/${p.code}/report/defects`)).body;
      expect(r.defects).toEqual([
        {
          url: 'https://bugs.example/2',
          text: 'BUG-2',
          tcases: [x.seq],
          runs: [runs[3]],
          firstAt: expect.any(String),
          lastAt: expect.any(String),
        },
        {
          url: 'https://bugs.example/1',
          text: 'BUG-1',
          tcases: [x.seq, y.seq].sort((a, b) => a - b),
          runs: [runs[1], runs[2]],
          firstAt: expect.any(String),
          lastAt: expect.any(String),
        },
      ]);
      expect(r.defects[1].firstAt < r.defects[1].lastAt).toBe(true);
      const recent = (await t.get(`/project/${p.code}/report/defects`, { query: { last: 1 } })).body;
      expect(recent.defects.map((d: { url: string }) => d.url)).toEqual(['https://bugs.example/2']);
    });
  });

  describe('GET /project/:p/report/coverage', () => {
    it("lists each requirement's cases with their newest recorded status and counts them, and the uncovered cases", async () => {
      const p = await createProject(t);
      const reqA = { text: 'A login', url: 'https://req.example/a' };
      const reqB = { text: 'B export', url: '' };
      const c1 = await createTcase(t, p, { requirements: [reqA] });
      const c2 = await createTcase(t, p, { requirements: [reqA, reqB] });
      await cases(t, p, 2);
      await runWith(t, p, [
        [c1, 'failed'],
        [c2, 'passed'],
      ]);
      await runWith(t, p, [
        [c1, 'passed'],
        [c2, null],
      ]);
      await createTcase(t, p, { requirements: [{ text: 'C nothing run', url: '' }] });
      const r = (await t.get(`/project/${p.code}/report/coverage`)).body;
      expect(r.uncovered).toBe(2);
      expect(r.requirements.map((q: { text: string }) => q.text)).toEqual([
        'A login',
        'B export',
        'C nothing run',
      ]);
      expect(r.requirements[0]).toEqual({
        id: expect.any(String),
        ...reqA,
        tcases: [
          { tcaseId: c1.id, seq: c1.seq, title: expect.any(String), lastStatus: 'passed' },
          { tcaseId: c2.id, seq: c2.seq, title: expect.any(String), lastStatus: 'passed' },
        ],
        counts: counts({ passed: 2 }),
      });
      expect(r.requirements[2].tcases[0].lastStatus).toBe('open');
      expect(r.requirements[2].counts).toEqual(counts({ open: 1 }));
    });
  });

  describe('milestone and plan reports', () => {
    it("answers a milestone's runs, their sum and the sum per day; 404 for an unknown milestone", async () => {
      const p = await createProject(t);
      const m = (await t.post(`/project/${p.code}/milestone`, { title: 'Beta' })).body.id;
      const [c1, c2] = await cases(t, p, 2);
      const r1 = await runWith(
        t,
        p,
        [
          [c1, 'passed'],
          [c2, 'failed'],
        ],
        { milestoneId: m },
      );
      const r2 = await runWith(
        t,
        p,
        [
          [c1, 'passed'],
          [c2, 'passed'],
        ],
        { milestoneId: m },
      );
      await runWith(t, p, [[c1, 'failed']]);
      await t.db
        .updateTable('runs')
        .set({ created_at: '2026-04-01T12:00:00.000Z' })
        .where('id', '=', r1)
        .execute();
      await t.db
        .updateTable('runs')
        .set({ created_at: '2026-04-03T12:00:00.000Z' })
        .where('id', '=', r2)
        .execute();
      await closeRun(t, p, r1);
      const res = await t.get(`/project/${p.code}/milestone/${m}/report`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        milestone: { id: m, title: 'Beta', archived: false, createdAt: expect.any(String) },
        counts: counts({ passed: 3, failed: 1 }),
        passRate: 0.75,
        runs: [
          {
            id: r1,
            title: expect.any(String),
            closed: true,
            counts: counts({ passed: 1, failed: 1 }),
            passRate: 0.5,
          },
          { id: r2, title: expect.any(String), closed: false, counts: counts({ passed: 2 }), passRate: 1 },
        ],
        points: [
          { date: '2026-04-01', counts: counts({ passed: 1, failed: 1 }) },
          { date: '2026-04-03', counts: counts({ passed: 2 }) },
        ],
      });
      const csv = await t.get(`/project/${p.code}/milestone/${m}/report`, { query: { format: 'csv' } });
      expect(csv.text.split('\r\n').slice(1, 3)).toEqual([
        expect.stringMatching(new RegExp(`^${r1},.*,true,2,0,1,1,0,0,0,0,0,0,0.5$`)),
        expect.stringMatching(new RegExp(`^${r2},.*,false,2,0,2,0,0,0,0,0,0,0,1$`)),
      ]);
      expect((await t.get(`/project/${p.code}/milestone/999999/report`)).status).toBe(404);
    });

    it("answers a plan's runs with their pass rates and their sum; 404 for an unknown plan", async () => {
      const p = await createProject(t);
      const [c1, c2] = await cases(t, p, 2);
      const created = await t.post(`/project/${p.code}/plan`, {
        title: 'Sprint 7',
        runs: [
          { title: 'API', queryPlans: [{ tcaseIds: [c1.id, c2.id] }] },
          { title: 'UI', queryPlans: [{ tcaseIds: [c1.id] }] },
        ],
      });
      const planId = created.body.id;
      const runs = (await t.get(`/project/${p.code}/plan/${planId}`)).body.runs as {
        id: number;
        title: string;
      }[];
      const api = runs.find((r) => r.title === 'API')!.id;
      const ui = runs.find((r) => r.title === 'UI')!.id;
      await addResult(t, p, api, c1.id, 'passed');
      await addResult(t, p, api, c2.id, 'blocked');
      const res = await t.get(`/project/${p.code}/plan/${planId}/report`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        plan: { id: planId, title: 'Sprint 7', createdAt: expect.any(String) },
        counts: counts({ passed: 1, blocked: 1, open: 1 }),
        passRate: 0.5,
        runs: [
          { id: api, title: 'API', closed: false, counts: counts({ passed: 1, blocked: 1 }), passRate: 0.5 },
          { id: ui, title: 'UI', closed: false, counts: counts({ open: 1 }), passRate: null },
        ],
      });
      expect((await t.get(`/project/${p.code}/plan/999999/report`)).status).toBe(404);
    });
  });

  describe('access', () => {
    it.each([
      'report/trend',
      'report/flaky',
      'report/failing',
      'report/slowest',
      'report/defects',
      'report/coverage',
    ])(
      'GET %s answers 200 to a viewer member, 403 to a non-member and 404 for an unknown project',
      async (path) => {
        const viewer = await userWithKey(t, 'viewer');
        const outsider = await userWithKey(t, 'viewer');
        const p = await createProject(t, {}, [viewer.user.id]);
        expect((await t.get(`/project/${p.code}/${path}`, { key: viewer.key })).status).toBe(200);
        expect((await t.get(`/project/${p.code}/${path}`, { key: outsider.key })).status).toBe(403);
        expect((await t.get(`/project/NOPE9/${path}`)).status).toBe(404);
      },
    );
  });
});
