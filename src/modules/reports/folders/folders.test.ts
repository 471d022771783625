import { expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder } from '../../../../test/helpers/tcase-factories.js';
import { cases, counts, runWith } from '../../../../test/helpers/report-factories.js';

describeEachDb('failures by folder (GET /project/:p/report/folders)', (t) => {
  /** Web / Login holds c1 and c2, API holds c3; three runs with known results, the newest last. */
  async function seeded() {
    const p = await createProject(t);
    const login = await createFolder(t, p, ['Web', 'Login']);
    const apiFolder = await createFolder(t, p, ['API']);
    const [c1, c2] = await cases(t, p, 2, login);
    const [c3] = await cases(t, p, 1, apiFolder);
    await runWith(t, p, [
      [c1, 'failed'],
      [c2, 'passed'],
      [c3, 'blocked'],
    ]);
    await runWith(t, p, [
      [c1, 'failed'],
      [c2, null],
      [c3, 'passed'],
    ]);
    await runWith(t, p, [[c3, 'passed']]);
    return p;
  }

  it('counts each run case of the last N runs in its folder, with the whole path, most failures first', async () => {
    const p = await seeded();
    const all = await t.get(`/project/${p.code}/report/folders`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      folders: [
        {
          path: ['Web', 'Login'],
          failures: 2,
          results: 3,
          counts: counts({ failed: 2, passed: 1, open: 1 }),
        },
        { path: ['API'], failures: 1, results: 3, counts: counts({ blocked: 1, passed: 2 }) },
      ],
    });

    const lastTwo = await t.get(`/project/${p.code}/report/folders`, { query: { last: 2 } });
    expect(lastTwo.body.folders).toEqual([
      { path: ['Web', 'Login'], failures: 1, results: 1, counts: counts({ failed: 1, open: 1 }) },
      { path: ['API'], failures: 0, results: 2, counts: counts({ passed: 2 }) },
    ]);

    const limited = await t.get(`/project/${p.code}/report/folders`, { query: { limit: 1 } });
    expect(limited.body.folders.map((f: { path: string[] }) => f.path)).toEqual([['Web', 'Login']]);
  });

  it('answers an empty list for a project without runs', async () => {
    const p = await createProject(t);
    expect((await t.get(`/project/${p.code}/report/folders`)).body).toEqual({ folders: [] });
  });

  it('downloads the same rows as CSV with the path joined by " / "', async () => {
    const p = await seeded();
    const res = await t.get(`/project/${p.code}/report/folders`, { query: { format: 'csv' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${p.code}-folders.csv"`);
    expect(res.text.split('\r\n').slice(0, 3)).toEqual([
      'folderPath,failures,results,all,open,passed,failed,blocked,skipped,custom1,custom2,custom3,custom4',
      'Web / Login,2,3,4,1,1,2,0,0,0,0,0,0',
      'API,1,3,3,0,2,0,1,0,0,0,0,0',
    ]);
  });

  it('refuses a last outside 1–200 with a JSON error naming it', async () => {
    const p = await createProject(t);
    for (const last of [0, 201, 'x']) {
      const res = await t.get(`/project/${p.code}/report/folders`, { query: { last } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(/last/);
    }
  });

  it('answers 200 to a viewer member, 403 to a non-member and 404 for an unknown project', async () => {
    const viewer = await userWithKey(t, 'viewer');
    const outsider = await userWithKey(t, 'viewer');
    const p = await createProject(t, {}, [viewer.user.id]);
    expect((await t.get(`/project/${p.code}/report/folders`, { key: viewer.key })).status).toBe(200);
    expect((await t.get(`/project/${p.code}/report/folders`, { key: outsider.key })).status).toBe(403);
    expect((await t.get('/project/NOPE9/report/folders')).status).toBe(404);
  });
});
