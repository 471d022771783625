import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import {
  addResult,
  closeRun,
  createRun,
  deleteTcase,
  getRun,
  listRunTcases,
  updateTcase,
} from '../../../../test/helpers/run-factories.js';

/** docs/api-decisions.md#run-types-and-propagation (rules 1–4) and D17, shown through what a client reads. */
describeEachDb('run propagation (D17)', (t) => {
  const TYPES = ['static', 'static_struct', 'live'] as const;
  type RunType = (typeof TYPES)[number];

  /** A fresh project with two cases in folder "Home" and one run of the type selecting both. */
  async function scenario(type: RunType) {
    const project = await createProject(t);
    const home = await createFolder(t, project, ['Home']);
    const x = await createTcase(t, project, { folderId: home, title: 'X v1', priority: 'high' });
    const y = await createTcase(t, project, { folderId: home, title: 'Y v1', priority: 'high' });
    const queryPlans = type === 'live' ? [{ priorities: ['high'] }] : [{ tcaseIds: [x.id, y.id] }];
    const run = await createRun(t, project, { type, queryPlans });
    const item = async (id: string) => (await listRunTcases(t, project, run.id)).find((i) => i.id === id);
    return { project, home, x, y, run, item };
  }

  describe('versioned edits (title, steps)', () => {
    it.each([
      ['static_struct', true],
      ['live', true],
      ['static', false],
    ] as const)('reach the open cases of a %s run: %s', async (type, reflected) => {
      const s = await scenario(type);
      await updateTcase(t, s.project, s.x.id, {
        title: 'X v2',
        steps: [{ description: 'new step', expected: 'ok' }],
      });
      const x = await s.item(s.x.id);
      expect(x.title).toBe(reflected ? 'X v2' : 'X v1');
      expect(x.version).toBe(reflected ? 2 : 1);
      const detail = await t.get(`/project/${s.project.code}/run/${s.run.id}/tcase/${s.x.id}`);
      expect(detail.status).toBe(200);
      expect(detail.body.isLatestVersion).toBe(reflected);
      expect(detail.body.steps).toHaveLength(reflected ? 1 : 0);
    });

    it.each(['static_struct', 'live'] as const)(
      'stop at the version a %s run case was tested on once its status is not open (rule 2)',
      async (type) => {
        const s = await scenario(type);
        await addResult(t, s.project, s.run.id, s.x.id, 'passed');
        await updateTcase(t, s.project, s.x.id, { title: 'X v2' });
        await updateTcase(t, s.project, s.y.id, { title: 'Y v2' });
        expect(await s.item(s.x.id)).toMatchObject({ title: 'X v1', version: 1, status: 'passed' });
        expect(await s.item(s.y.id)).toMatchObject({ title: 'Y v2', version: 2, status: 'open' });
        const detail = await t.get(`/project/${s.project.code}/run/${s.run.id}/tcase/${s.x.seq}`);
        expect(detail.body).toMatchObject({ version: 1, isLatestVersion: false, title: 'X v1' });
        expect(detail.body.results[0]).toMatchObject({ status: 'passed', tcaseVersion: '1' });
      },
    );

    it('pin a static run at creation even while every case is open', async () => {
      const s = await scenario('static');
      await updateTcase(t, s.project, s.x.id, { priority: 'low' });
      expect(await s.item(s.x.id)).toMatchObject({ version: 1, priority: 'high', status: 'open' });
    });
  });

  describe('folder and position changes (rule 3)', () => {
    it.each(TYPES)('reach the open %s run', async (type) => {
      const s = await scenario(type);
      const elsewhere = await createFolder(t, s.project, ['Elsewhere']);
      await updateTcase(t, s.project, s.x.id, { folderId: elsewhere });
      const x = await s.item(s.x.id);
      expect(x).toMatchObject({ folderId: elsewhere, pos: 0, version: 1 });
      const withFolder = await listRunTcases(t, s.project, s.run.id, { include: 'folder' });
      expect(withFolder.find((i) => i.id === s.x.id).folder).toEqual({
        id: elsewhere,
        parentId: 0,
        title: 'Elsewhere',
        comment: '',
        pos: expect.any(Number),
      });
    });
  });

  describe('closed runs (rule 1)', () => {
    it.each(TYPES)(
      'a closed %s run never changes: versions, folders, positions and its set are frozen',
      async (type) => {
        const s = await scenario(type);
        await addResult(t, s.project, s.run.id, s.y.id, 'failed');
        const before = await listRunTcases(t, s.project, s.run.id, { include: 'folder' });
        const countsBefore = (await getRun(t, s.project, s.run.id)).statusCounts;
        await closeRun(t, s.project, s.run.id);
        expect(await listRunTcases(t, s.project, s.run.id, { include: 'folder' })).toEqual(before);
        const elsewhere = await createFolder(t, s.project, ['Moved away']);
        await updateTcase(t, s.project, s.x.id, { title: 'X edited', folderId: elsewhere, priority: 'low' });
        await updateTcase(t, s.project, s.y.id, { title: 'Y edited' });
        await createTcase(t, s.project, { folderId: s.home, priority: 'high' });
        await deleteTcase(t, s.project, s.y.id);
        expect(await listRunTcases(t, s.project, s.run.id, { include: 'folder' })).toEqual(before);
        expect((await getRun(t, s.project, s.run.id)).statusCounts).toEqual(countsBefore);
        const detail = await t.get(`/project/${s.project.code}/run/${s.run.id}/tcase/${s.x.id}`);
        expect(detail.body).toMatchObject({
          title: 'X v1',
          folderId: s.home,
          version: 1,
          isLatestVersion: false,
        });
      },
    );
  });

  describe('live runs gain and lose cases', () => {
    it('gain a new matching case and never a non-matching one, a draft or a template', async () => {
      const s = await scenario('live');
      const fresh = await createTcase(t, s.project, { folderId: s.home, priority: 'high' });
      const low = await createTcase(t, s.project, { folderId: s.home, priority: 'low' });
      const draft = await createTcase(t, s.project, { folderId: s.home, priority: 'high', isDraft: true });
      const template = await createTcase(t, s.project, {
        folderId: s.home,
        priority: 'high',
        type: 'template',
        title: 'Pay with ${card}',
        parameterValues: [{ values: { card: 'visa' } }],
      });
      const ids = (await listRunTcases(t, s.project, s.run.id)).map((i) => i.id);
      expect(ids).toContain(fresh.id);
      expect(ids).not.toContain(low.id);
      expect(ids).not.toContain(draft.id);
      expect(ids).not.toContain(template.id);
      // Rule 4: the filled case of the template joins, the template does not.
      const filled = (await listRunTcases(t, s.project, s.run.id)).filter((i) => i.type === 'filled');
      expect(filled).toHaveLength(1);
      expect(filled[0].templateTCaseId).toBe(template.id);
      expect((await getRun(t, s.project, s.run.id)).statusCounts).toMatchObject({ all: 4, open: 4 });
      await updateTcase(t, s.project, draft.id, { isDraft: false });
      expect((await listRunTcases(t, s.project, s.run.id)).map((i) => i.id)).toContain(draft.id);
    });

    it('lose a case that stops matching, keep its results, and get it back with its latest status', async () => {
      const s = await scenario('live');
      await addResult(t, s.project, s.run.id, s.x.id, 'blocked');
      await updateTcase(t, s.project, s.x.id, { priority: 'low' });
      expect((await listRunTcases(t, s.project, s.run.id)).map((i) => i.id)).toEqual([s.y.id]);
      expect((await getRun(t, s.project, s.run.id)).statusCounts).toMatchObject({
        all: 1,
        open: 1,
        blocked: 0,
      });
      expect((await t.get(`/project/${s.project.code}/run/${s.run.id}/tcase/${s.x.id}`)).status).toBe(404);
      await updateTcase(t, s.project, s.x.id, { priority: 'high' });
      const back = await s.item(s.x.id);
      // D18: the status of a returning case is that of its latest result, which was kept.
      expect(back).toMatchObject({ status: 'blocked', version: 1 });
      expect((await getRun(t, s.project, s.run.id)).statusCounts).toMatchObject({
        all: 2,
        open: 1,
        blocked: 1,
      });
      const detail = await t.get(`/project/${s.project.code}/run/${s.run.id}/tcase/${s.x.id}`);
      expect(detail.body.results.map((r: { status: string }) => r.status)).toEqual(['blocked']);
    });

    it('follow moves into and out of a folder filter, with subfolders', async () => {
      const project = await createProject(t);
      const watched = await createFolder(t, project, ['Watched']);
      const child = await createFolder(t, project, ['Watched', 'Child']);
      const outside = await createFolder(t, project, ['Outside']);
      const run = await createRun(t, project, { type: 'live', queryPlans: [{ folderIds: [watched] }] });
      const c = await createTcase(t, project, { folderId: outside });
      expect(await listRunTcases(t, project, run.id)).toEqual([]);
      await updateTcase(t, project, c.id, { folderId: child });
      expect((await listRunTcases(t, project, run.id)).map((i) => i.id)).toEqual([c.id]);
      await updateTcase(t, project, c.id, { folderId: outside });
      expect(await listRunTcases(t, project, run.id)).toEqual([]);
    });

    it('follow tag changes', async () => {
      const project = await createProject(t);
      const c = await createTcase(t, project, { tags: ['api'] });
      const tags = (await t.get(`/project/${project.code}/tag`)).body.tags;
      const api = tags.find((x: { title: string }) => x.title === 'api').id;
      const other = await createTcase(t, project);
      const run = await createRun(t, project, { type: 'live', queryPlans: [{ tagIds: [api] }] });
      expect((await listRunTcases(t, project, run.id)).map((i) => i.id)).toEqual([c.id]);
      await updateTcase(t, project, other.id, { tags: ['api', 'ui'] });
      await updateTcase(t, project, c.id, { tags: [] });
      expect((await listRunTcases(t, project, run.id)).map((i) => i.id)).toEqual([other.id]);
    });

    it('lose deleted test cases, while open static and static_struct runs keep them', async () => {
      const live = await scenario('live');
      await deleteTcase(t, live.project, live.x.id);
      expect((await listRunTcases(t, live.project, live.run.id)).map((i) => i.id)).toEqual([live.y.id]);
      expect((await getRun(t, live.project, live.run.id)).statusCounts.all).toBe(1);
      for (const type of ['static', 'static_struct'] as const) {
        const s = await scenario(type);
        await deleteTcase(t, s.project, s.x.id);
        expect((await listRunTcases(t, s.project, s.run.id)).map((i) => i.id).sort()).toEqual(
          [s.x.id, s.y.id].sort(),
        );
      }
    });

    it('never change static or static_struct sets when cases start matching their filters', async () => {
      for (const type of ['static', 'static_struct'] as const) {
        const project = await createProject(t);
        const a = await createTcase(t, project, { priority: 'high' });
        const run = await createRun(t, project, { type, queryPlans: [{ priorities: ['high'] }] });
        await createTcase(t, project, { priority: 'high' });
        await updateTcase(t, project, a.id, { priority: 'low' });
        expect((await listRunTcases(t, project, run.id)).map((i) => i.id)).toEqual([a.id]);
      }
    });

    it('move each of several live runs sharing a query plan, counting the case once in each', async () => {
      const project = await createProject(t);
      const high = [{ priorities: ['high'] }];
      const first = await createRun(t, project, { type: 'live', queryPlans: high, title: 'High A' });
      const second = await createRun(t, project, { type: 'live', queryPlans: high, title: 'High B' });
      const wide = await createRun(t, project, {
        type: 'live',
        queryPlans: [{ priorities: ['high', 'low'] }],
        title: 'High or low',
      });
      const c = await createTcase(t, project, { priority: 'high' });
      for (const run of [first, second, wide]) {
        expect((await listRunTcases(t, project, run.id)).map((i) => i.id)).toEqual([c.id]);
        expect((await getRun(t, project, run.id)).statusCounts).toMatchObject({ all: 1, open: 1 });
      }
      await addResult(t, project, first.id, c.id, 'passed');
      await updateTcase(t, project, c.id, { priority: 'low' });
      for (const run of [first, second]) {
        expect(await listRunTcases(t, project, run.id)).toEqual([]);
        expect((await getRun(t, project, run.id)).statusCounts).toMatchObject({ all: 0, open: 0, passed: 0 });
      }
      expect((await getRun(t, project, wide.id)).statusCounts).toMatchObject({ all: 1, open: 1 });
      await updateTcase(t, project, c.id, { priority: 'high' });
      expect((await getRun(t, project, first.id)).statusCounts).toMatchObject({ all: 1, open: 0, passed: 1 });
      expect((await getRun(t, project, second.id)).statusCounts).toMatchObject({
        all: 1,
        open: 1,
        passed: 0,
      });
      expect((await getRun(t, project, wide.id)).statusCounts).toMatchObject({ all: 1, open: 1 });
    });

    it('leave other projects’ live runs alone', async () => {
      const s = await scenario('live');
      const other = await createProject(t);
      await createTcase(t, other, { priority: 'high' });
      expect(await listRunTcases(t, s.project, s.run.id)).toHaveLength(2);
    });
  });
});
