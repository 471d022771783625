import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { addResult, closeRun, createRun } from '../../../test/helpers/run-factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';

type Project = { id: string; code: string };

const counts = (c: Partial<Record<string, number>>) => {
  const all = Object.values(c).reduce((a: number, b) => a + (b ?? 0), 0);
  return {
    all,
    open: 0,
    passed: 0,
    failed: 0,
    blocked: 0,
    skipped: 0,
    custom1: 0,
    custom2: 0,
    custom3: 0,
    custom4: 0,
    ...c,
  };
};

async function cases(t: TestEnv, p: Project, n: number, folderId?: number) {
  const out: { id: string; seq: number }[] = [];
  for (let i = 0; i < n; i++) out.push(await createTcase(t, p, folderId ? { folderId } : {}));
  return out;
}

/** A run of `tcases` with one result per case as given (null: no result, the case stays open). */
async function runWith(
  t: TestEnv,
  p: Project,
  results: [{ id: string }, string | null, Record<string, unknown>?][],
  overrides: Record<string, unknown> = {},
) {
  const { id } = await createRun(t, p, { tcaseIds: results.map(([c]) => c.id), ...overrides });
  for (const [c, status, extra] of results) if (status) await addResult(t, p, id, c.id, status, extra);
  return id;
}

async function ownerName(t: TestEnv) {
  const row = await t.db
    .selectFrom('users')
    .select('name')
    .where('id', '=', t.ownerId)
    .executeTakeFirstOrThrow();
  return row.name;
}

describeEachDb('reports', (t) => {
  describe('GET /project/:p/run/:r/report', () => {
    it('answers counts, pass rate, time spent, whole folder paths and failures with comment, links and author', async () => {
      const p = await createProject(t);
      const deep = await createFolder(t, p, ['Checkout', 'Payment', 'Cards']);
      const other = await createFolder(t, p, ['Login']);
      const [c1, c2] = await cases(t, p, 2, deep);
      const [c3, c4, c5] = await cases(t, p, 3, other);
      const runId = await runWith(t, p, [
        [c1, 'passed', { timeTaken: 100 }],
        [
          c2,
          'failed',
          {
            timeTaken: 250,
            comment: '<p>boom</p>',
            links: [{ url: 'https://bugs.example/1', text: 'BUG-1' }],
          },
        ],
        [c3, 'blocked'],
        [c4, 'skipped', { timeTaken: 50 }],
        [c5, null],
      ]);
      const res = await t.get(`/project/${p.code}/run/${runId}/report`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const r = res.body;
      expect(r.run).toEqual({
        id: runId,
        title: expect.any(String),
        closed: false,
        createdAt: expect.any(String),
        closedAt: null,
      });
      expect(r.counts).toEqual(counts({ passed: 1, failed: 1, blocked: 1, skipped: 1, open: 1 }));
      expect(r.passRate).toBeCloseTo(1 / 3, 12);
      expect(r.timeSpent).toBe(400);
      expect(r.folders).toEqual([
        { path: ['Checkout', 'Payment', 'Cards'], counts: counts({ passed: 1, failed: 1 }) },
        { path: ['Login'], counts: counts({ blocked: 1, skipped: 1, open: 1 }) },
      ]);
      const name = await ownerName(t);
      expect(r.failures).toEqual([
        {
          tcaseId: c2.id,
          seq: c2.seq,
          title: expect.any(String),
          folderPath: ['Checkout', 'Payment', 'Cards'],
          status: 'failed',
          comment: '<p>boom</p>',
          links: [{ text: 'BUG-1', url: 'https://bugs.example/1' }],
          author: { id: t.ownerId, name },
          at: expect.any(String),
        },
        {
          tcaseId: c3.id,
          seq: c3.seq,
          title: expect.any(String),
          folderPath: ['Login'],
          status: 'blocked',
          comment: '',
          links: [],
          author: { id: t.ownerId, name },
          at: expect.any(String),
        },
      ]);
      expect(r.since).toBeNull();
    });

    it('answers passRate null and timeSpent 0 when nothing counts (only open and skipped cases)', async () => {
      const p = await createProject(t);
      const [c1, c2] = await cases(t, p, 2);
      const runId = await runWith(t, p, [
        [c1, 'skipped'],
        [c2, null],
      ]);
      const r = (await t.get(`/project/${p.code}/run/${runId}/report`)).body;
      expect(r.counts).toEqual(counts({ skipped: 1, open: 1 }));
      expect(r.passRate).toBeNull();
      expect(r.timeSpent).toBe(0);
      expect(r.failures).toEqual([]);
    });

    it('compares by default with the newest earlier run of the same milestone and configuration', async () => {
      const p = await createProject(t);
      const m = (await t.post(`/project/${p.code}/milestone`, { title: 'M1' })).body.id;
      const x = (await t.post(`/project/${p.code}/configuration`, { title: 'Linux' })).body.id;
      const y = (await t.post(`/project/${p.code}/configuration`, { title: 'Windows' })).body.id;
      const [c1, c2, c3, c4] = await cases(t, p, 4);
      const same = { milestoneId: m, configurationId: x };
      const older = await runWith(
        t,
        p,
        [
          [c1, 'passed'],
          [c2, 'passed'],
          [c3, 'passed'],
          [c4, 'passed'],
        ],
        same,
      );
      const previous = await runWith(
        t,
        p,
        [
          [c1, 'failed'],
          [c2, 'blocked'],
          [c3, 'passed'],
          [c4, 'passed'],
        ],
        same,
      );
      // Newer than `previous` but another configuration, or no milestone: not comparable.
      await runWith(t, p, [[c1, 'passed']], { milestoneId: m, configurationId: y });
      await runWith(t, p, [[c1, 'passed']]);
      const current = await runWith(
        t,
        p,
        [
          [c1, 'passed'],
          [c2, 'failed'],
          [c3, 'failed'],
          [c4, null],
        ],
        same,
      );
      const r = (await t.get(`/project/${p.code}/run/${current}/report`)).body;
      expect(r.since).toEqual({ runId: previous, newFailures: [c3.seq], fixed: [c1.seq] });
      expect(older).toBeLessThan(previous);

      const given = (await t.get(`/project/${p.code}/run/${current}/report`, { query: { since: older } }))
        .body;
      expect(given.since).toEqual({ runId: older, newFailures: [c2.seq, c3.seq], fixed: [] });
    });

    it('compares a plan run by default with the run of the same title in the newest earlier plan', async () => {
      const p = await createProject(t);
      const [c1, c2] = await cases(t, p, 2);
      const plan = async (title: string, runTitles: string[]) => {
        const res = await t.post(`/project/${p.code}/plan`, {
          title,
          runs: runTitles.map((rt) => ({ title: rt, queryPlans: [{ tcaseIds: [c1.id, c2.id] }] })),
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        const got = (await t.get(`/project/${p.code}/plan/${res.body.id}`)).body;
        return Object.fromEntries(got.runs.map((r: { title: string; id: number }) => [r.title, r.id]));
      };
      const first = await plan('Release 1', ['Smoke', 'Full']);
      await addResult(t, p, first.Smoke, c1.id, 'failed');
      const second = await plan('Release 2', ['Full']);
      const third = await plan('Release 3', ['Smoke', 'Full']);
      await addResult(t, p, third.Smoke, c1.id, 'passed');
      await addResult(t, p, third.Smoke, c2.id, 'failed');
      const smoke = (await t.get(`/project/${p.code}/run/${third.Smoke}/report`)).body;
      expect(smoke.since).toEqual({ runId: first.Smoke, newFailures: [c2.seq], fixed: [c1.seq] });
      const full = (await t.get(`/project/${p.code}/run/${third.Full}/report`)).body;
      expect(full.since.runId).toBe(second.Full);
      // No earlier plan has a run of that title: the milestone and configuration rule applies (both none).
      const firstFull = (await t.get(`/project/${p.code}/run/${first.Full}/report`)).body;
      expect(firstFull.since.runId).toBe(first.Smoke);
    });

    it('keeps the folder a closed run froze', async () => {
      const p = await createProject(t);
      const a = await createFolder(t, p, ['A', 'Inner']);
      const b = await createFolder(t, p, ['B']);
      const [c1] = await cases(t, p, 1, a);
      const runId = await runWith(t, p, [[c1, 'failed']]);
      await closeRun(t, p, runId);
      expect((await t.patch(`/project/${p.code}/tcase/${c1.id}`, { folderId: b })).status).toBeLessThan(300);
      const r = (await t.get(`/project/${p.code}/run/${runId}/report`)).body;
      expect(r.run.closed).toBe(true);
      expect(r.folders.map((f: { path: string[] }) => f.path)).toEqual([['A', 'Inner']]);
      expect(r.failures[0].folderPath).toEqual(['A', 'Inner']);
    });

    it('answers the failures as CSV with formula-like text prefixed by an apostrophe', async () => {
      const p = await createProject(t);
      const folder = await createFolder(t, p, ['Top', '@risk']);
      const c1 = await createTcase(t, p, { folderId: folder, title: '=HYPERLINK("x")' });
      const c2 = await createTcase(t, p, { folderId: folder, title: 'plain, with comma' });
      const runId = await runWith(t, p, [
        [c1, 'failed', { comment: '-1 crash', links: [{ url: 'https://bugs.example/9', text: 'B' }] }],
        [c2, 'blocked'],
      ]);
      const res = await t.get(`/project/${p.code}/run/${runId}/report`, { query: { format: 'csv' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="${p.code}-run-${runId}-report.csv"`,
      );
      const json = (await t.get(`/project/${p.code}/run/${runId}/report`)).body;
      const name = await ownerName(t);
      const at = json.failures.map((f: { at: string }) => f.at);
      expect(res.text.split('\r\n')).toEqual([
        'seq,tcaseId,title,folderPath,status,comment,links,author,at,newFailure',
        `${c1.seq},${c1.id},"'=HYPERLINK(""x"")",Top / @risk,failed,'-1 crash,https://bugs.example/9,${name},${at[0]},`,
        `${c2.seq},${c2.id},"plain, with comma",Top / @risk,blocked,,,${name},${at[1]},`,
        '',
      ]);
    });

    it('answers 404 for an unknown run, since run or project, and 403 to a non-member; a viewer member reads it', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const outsider = await userWithKey(t, 'test-runner');
      const p = await createProject(t, {}, [viewer.user.id]);
      const [c1] = await cases(t, p, 1);
      const runId = await runWith(t, p, [[c1, 'passed']]);
      const other = await createProject(t);
      const foreign = await runWith(t, other, [[(await cases(t, other, 1))[0], 'passed']]);
      expect((await t.get(`/project/${p.code}/run/${runId}/report`, { key: viewer.key })).status).toBe(200);
      const denied = await t.get(`/project/${p.code}/run/${runId}/report`, { key: outsider.key });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      for (const url of [
        `/project/${p.code}/run/${foreign}/report`,
        `/project/${p.code}/run/${runId}/report?since=${foreign}`,
        `/project/NOPE9/run/${runId}/report`,
      ]) {
        const res = await t.get(url);
        expect(res.status, url).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    });
  });

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
      expect(all.tcases).toEqual([
        { tcaseId: x.id, seq: x.seq, title: expect.any(String), flips: 3, runs: 4, lastStatus: 'blocked' },
        { tcaseId: y.id, seq: y.seq, title: expect.any(String), flips: 1, runs: 4, lastStatus: 'skipped' },
        { tcaseId: w.id, seq: w.seq, title: expect.any(String), flips: 1, runs: 4, lastStatus: 'open' },
      ]);
      const two = (await t.get(`/project/${p.code}/report/flaky`, { query: { last: 2 } })).body;
      expect(two.tcases).toEqual([
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
  describe('the OpenAPI document', () => {
    it('describes every report answer as JSON and as text/csv, with format, last and limit parameters', async () => {
      const doc = (await t.request('GET', '/api/public/v0/openapi.json', { key: null })).body;
      const reports = Object.entries(doc.paths as Record<string, { get?: any }>).filter(
        ([path]) => path.endsWith('/report') || path.includes('/report/'),
      );
      expect(reports.map(([path]) => path).sort()).toEqual([
        '/api/public/v0/project/{project}/milestone/{milestone}/report',
        '/api/public/v0/project/{project}/plan/{plan}/report',
        '/api/public/v0/project/{project}/report/coverage',
        '/api/public/v0/project/{project}/report/defects',
        '/api/public/v0/project/{project}/report/failing',
        '/api/public/v0/project/{project}/report/flaky',
        '/api/public/v0/project/{project}/report/slowest',
        '/api/public/v0/project/{project}/report/trend',
        '/api/public/v0/project/{project}/run/{run}/report',
      ]);
      for (const [path, item] of reports) {
        const content = item.get.responses['200'].content;
        expect(Object.keys(content).sort(), path).toEqual(['application/json', 'text/csv']);
        expect(content['text/csv'].schema.type, path).toBe('string');
        const params = item.get.parameters.map((q: { name: string }) => q.name);
        expect(params, path).toContain('format');
      }
      const flaky = doc.paths['/api/public/v0/project/{project}/report/flaky'].get.parameters;
      const last = flaky.find((q: { name: string }) => q.name === 'last');
      expect(last.schema).toMatchObject({ minimum: 1, maximum: 200, default: 20 });
    });
  });
});
