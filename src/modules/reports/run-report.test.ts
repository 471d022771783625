import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { addResult, closeRun } from '../../../test/helpers/run-factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import { cases, counts, ownerName, runWith } from '../../../test/helpers/report-factories.js';

describeEachDb('run report', (t) => {
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
        { ...same, title: 'Nightly 41' },
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
      // The compared run is named, and the fixed cases carry their titles (the failures list has the others').
      expect(r.since).toEqual({
        runId: previous,
        title: 'Nightly 41',
        newFailures: [c3.seq],
        fixed: [c1.seq],
        fixedCases: [{ seq: c1.seq, title: expect.any(String) }],
      });
      expect(older).toBeLessThan(previous);

      const given = (await t.get(`/project/${p.code}/run/${current}/report`, { query: { since: older } }))
        .body;
      expect(given.since).toMatchObject({
        runId: older,
        newFailures: [c2.seq, c3.seq],
        fixed: [],
        fixedCases: [],
      });
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
      expect(smoke.since).toMatchObject({
        runId: first.Smoke,
        title: 'Smoke',
        newFailures: [c2.seq],
        fixed: [c1.seq],
      });
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

    it('answers every case of the run with its latest result as CSV, formula-like text prefixed by an apostrophe', async () => {
      const p = await createProject(t);
      const folder = await createFolder(t, p, ['Top', '@risk']);
      const c1 = await createTcase(t, p, { folderId: folder, title: '=HYPERLINK("x")' });
      const c2 = await createTcase(t, p, { folderId: folder, title: 'plain, with comma' });
      const c3 = await createTcase(t, p, { folderId: folder, title: 'passes' });
      const c4 = await createTcase(t, p, { folderId: folder, title: 'not run yet' });
      const runId = await runWith(t, p, [
        [c1, 'failed', { comment: '-1 crash', links: [{ url: 'https://bugs.example/9', text: 'B' }] }],
        [c2, 'blocked'],
        [c3, 'passed', { timeTaken: 1500 }],
        [c4, null],
      ]);
      const res = await t.get(`/project/${p.code}/run/${runId}/report`, { query: { format: 'csv' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="${p.code}-run-${runId}-report.csv"`,
      );
      const name = await ownerName(t);
      const at = new Map(
        (
          await t.db
            .selectFrom('results')
            .select(['tcase_id', 'created_at'])
            .where('run_id', '=', runId)
            .execute()
        ).map((r) => [r.tcase_id, r.created_at]),
      );
      expect(res.text.split('\r\n')).toEqual([
        'seq,case,tcaseId,title,folderPath,status,comment,links,author,at,timeTakenMs',
        `${c1.seq},${p.code}-${c1.seq},${c1.id},"'=HYPERLINK(""x"")",Top / @risk,failed,'-1 crash,https://bugs.example/9,${name},${at.get(c1.id)},`,
        `${c2.seq},${p.code}-${c2.seq},${c2.id},"plain, with comma",Top / @risk,blocked,,,${name},${at.get(c2.id)},`,
        `${c3.seq},${p.code}-${c3.seq},${c3.id},passes,Top / @risk,passed,,,${name},${at.get(c3.id)},1500`,
        `${c4.seq},${p.code}-${c4.seq},${c4.id},not run yet,Top / @risk,open,,,,,`,
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

  describe('the OpenAPI document', () => {
    it('describes every report answer as JSON and as text/csv, with format, last and limit parameters', async () => {
      const doc = (await t.request('GET', '/api/public/v0/openapi.json', { key: null })).body;
      // Shared report links (report/share) are links to reports, not reports: they have no CSV.
      const reports = Object.entries(doc.paths as Record<string, { get?: any }>).filter(
        ([path]) =>
          (path.endsWith('/report') || path.includes('/report/')) && !path.includes('/report/share'),
      );
      expect(reports.map(([path]) => path).sort()).toEqual([
        '/api/public/v0/project/{project}/milestone/{milestone}/report',
        '/api/public/v0/project/{project}/plan/{plan}/report',
        '/api/public/v0/project/{project}/report/coverage',
        '/api/public/v0/project/{project}/report/defects',
        '/api/public/v0/project/{project}/report/failing',
        '/api/public/v0/project/{project}/report/flaky',
        '/api/public/v0/project/{project}/report/folders',
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
