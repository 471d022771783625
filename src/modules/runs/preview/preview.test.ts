import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { createRun, listRunTcases } from '../../../../test/helpers/run-factories.js';

describeEachDb('run query-plan preview', (t) => {
  let P: { id: string; code: string; title: string };
  let folderA: number;
  let folderA1: number;
  let folderB: number;
  let tagSmoke: number;
  const c: Record<string, { id: string; seq: number }> = {};
  let draftId: string;
  let templateId: string;
  let filledId: string;

  const previewUrl = () => `/project/${P.code}/run/preview`;
  const preview = (body: Record<string, unknown>, key?: string) => t.post(previewUrl(), body, { key });

  beforeAll(async () => {
    P = await createProject(t);
    folderA = await createFolder(t, P, ['A']);
    folderA1 = await createFolder(t, P, ['A', 'A1']);
    folderB = await createFolder(t, P, ['B']);
    c.a = await createTcase(t, P, { folderId: folderA, priority: 'high', tags: ['smoke'], title: 'Alpha' });
    c.a1 = await createTcase(t, P, { folderId: folderA1, priority: 'low', tags: ['smoke'] });
    c.b = await createTcase(t, P, { folderId: folderB, priority: 'high' });
    c.b2 = await createTcase(t, P, { folderId: folderB, priority: 'medium', tags: ['smoke'] });
    draftId = (await createTcase(t, P, { folderId: folderA, isDraft: true, tags: ['smoke'] })).id;
    const template = await createTcase(t, P, {
      folderId: folderA,
      type: 'template',
      title: 'Login as ${role}',
      parameterValues: [{ values: { role: 'admin' } }],
    });
    templateId = template.id;
    filledId = (await t.get(`/project/${P.code}/tcase/${templateId}`)).body.parameterValues[0].tcaseId;
    const tags = await t.get(`/project/${P.code}/tag`);
    tagSmoke = tags.body.tags.find((x: { title: string }) => x.title === 'smoke').id;
  });

  const shapes: [string, () => Record<string, unknown>][] = [
    ['a folder with its subfolders', () => ({ type: 'static', queryPlans: [{ folderIds: [folderA] }] })],
    ['a tag', () => ({ type: 'static_struct', queryPlans: [{ tagIds: [tagSmoke] }] })],
    ['priorities', () => ({ type: 'static', queryPlans: [{ priorities: ['high', 'low'] }] })],
    [
      'a folder AND a tag AND a priority',
      () => ({
        type: 'static',
        queryPlans: [{ folderIds: [folderA], tagIds: [tagSmoke], priorities: ['low'] }],
      }),
    ],
    [
      'picked cases with a duplicate and a filled case',
      () => ({ type: 'static_struct', queryPlans: [{ tcaseIds: [c.b2.id, c.a.id, c.b2.id, filledId] }] }),
    ],
    ['an empty plan (everything)', () => ({ type: 'static', queryPlans: [{}] })],
    [
      'several live plans (a union)',
      () => ({ type: 'live', queryPlans: [{ folderIds: [folderA1] }, { priorities: ['high'] }] }),
    ],
  ];

  describe('POST /project/:p/run/preview', () => {
    for (const [name, body] of shapes) {
      it(`selects exactly the cases a run created from ${name} gets`, async () => {
        const res = await preview({ ...body(), limit: 5000 });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const run = await createRun(t, P, body());
        const inRun = (await listRunTcases(t, P, run.id)).map((x) => x.id).sort();
        expect(res.body.tcases.map((x: { id: string }) => x.id).sort()).toEqual(inRun);
        expect(res.body.total).toBe(inRun.length);
        expect(inRun).not.toContain(draftId);
        expect(inRun).not.toContain(templateId);
      });
    }

    it('lists each case with seq, title, priority and folder, in seq order', async () => {
      const res = await preview({ type: 'static', queryPlans: [{ folderIds: [folderA] }] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        total: 3,
        offset: 0,
        limit: 100,
        tcases: [
          {
            id: c.a.id,
            seq: c.a.seq,
            title: 'Alpha',
            priority: 'high',
            folderId: folderA,
            folder: { id: folderA, title: 'A' },
          },
          {
            id: c.a1.id,
            seq: c.a1.seq,
            title: expect.any(String),
            priority: 'low',
            folderId: folderA1,
            folder: { id: folderA1, title: 'A1' },
          },
          expect.objectContaining({ id: filledId, title: 'Login as admin', folderId: folderA }),
        ],
      });
    });

    it('pages the list with offset and limit, the total unchanged; limit 0 answers only the total', async () => {
      const page = await preview({ type: 'static', queryPlans: [{}], offset: 1, limit: 2 });
      expect(page.status).toBe(200);
      const all = await preview({ type: 'static', queryPlans: [{}] });
      expect(page.body.total).toBe(all.body.total);
      expect(page.body.tcases).toEqual(all.body.tcases.slice(1, 3));
      const count = await preview({ type: 'static', queryPlans: [{}], limit: 0 });
      expect(count.body).toEqual({ total: all.body.total, offset: 0, limit: 0, tcases: [] });
    });

    it('answers 400 like run creation for a draft, an unknown folder, or tcaseIds in a live plan', async () => {
      const draft = await preview({ type: 'static', queryPlans: [{ tcaseIds: [draftId] }] });
      expect(draft.status).toBe(400);
      expect(draft.body.code).toBe('VALIDATION_FAILED');
      expect(draft.body.details[0].path).toBe('/queryPlans/0/tcaseIds');
      const folder = await preview({ type: 'static', queryPlans: [{ folderIds: [999999] }] });
      expect(folder.status).toBe(400);
      expect(folder.body.details[0].path).toBe('/queryPlans/0/folderIds');
      const live = await preview({ type: 'live', queryPlans: [{ tcaseIds: [c.a.id] }] });
      expect(live.status).toBe(400);
      expect(live.body.details[0].path).toBe('/queryPlans/0/tcaseIds');
      const two = await preview({ type: 'static', queryPlans: [{}, {}] });
      expect(two.status).toBe(400);
    });

    it('lets a viewer member preview (a read), and answers 404 for an unknown project', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const member = await t.post(`/project/${P.code}/member`, { userId: viewer.user.id });
      expect(member.status, JSON.stringify(member.body)).toBeLessThan(300);
      const res = await preview({ type: 'static', queryPlans: [{ priorities: ['high'] }] }, viewer.key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const missing = await t.post('/project/NOPE/run/preview', { type: 'static', queryPlans: [{}] });
      expect(missing.status).toBe(404);
    });
  });
});
