import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, memberWithKey, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import { closeRun, createRun, getRun } from '../../../../test/helpers/run-factories.js';

describeEachDb('run edit', (t) => {
  let P: { id: string; code: string; title: string };
  let tcaseId: string;
  let milestoneId: number;
  let archivedMilestoneId: number;
  let runnerId: number;
  let viewerId: number;

  const runUrl = (id: number) => `/project/${P.code}/run/${id}`;

  beforeAll(async () => {
    P = await createProject(t);
    const folder = await createFolder(t, P, ['F']);
    tcaseId = (await createTcase(t, P, { folderId: folder })).id;
    milestoneId = (await t.post(`/project/${P.code}/milestone`, { title: 'M1' })).body.id;
    archivedMilestoneId = (await t.post(`/project/${P.code}/milestone`, { title: 'Old' })).body.id;
    expect((await t.post(`/project/${P.code}/milestone/${archivedMilestoneId}/archive`)).status).toBe(200);
    runnerId = (await memberWithKey(t, 'test-runner', P)).user.id;
    viewerId = (await userWithKey(t, 'viewer')).user.id;
  });

  describe('PATCH /project/:p/run/:r', () => {
    it('changes title, description, assignee and milestone, and leaves cases and counts alone', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [tcaseId] });
      const res = await t.patch(runUrl(id), {
        title: '  Nightly  ',
        description: '<p>ok</p><script>x()</script>',
        assignmentId: runnerId,
        milestoneId,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ message: 'Run updated' });
      const run = await getRun(t, P, id);
      expect(run).toMatchObject({
        title: 'Nightly',
        description: '<p>ok</p>',
        assignmentId: runnerId,
        milestoneId,
        closed: false,
      });
      expect(run.statusCounts.all).toBe(1);
    });

    it('changes only the given fields, and null removes the assignee and the milestone', async () => {
      const { id } = await createRun(t, P, { assignmentId: runnerId, milestoneId, description: 'keep' });
      const before = await getRun(t, P, id);
      expect((await t.patch(runUrl(id), { assignmentId: null })).status).toBe(200);
      const mid = await getRun(t, P, id);
      expect(mid).toMatchObject({
        title: before.title,
        description: 'keep',
        assignmentId: null,
        milestoneId,
      });
      expect((await t.patch(runUrl(id), { milestoneId: null })).status).toBe(200);
      expect((await getRun(t, P, id)).milestoneId).toBeNull();
    });

    it('answers 409 ending "conflicting run id: <id>" for a title another run has (D10); its own title is fine', async () => {
      const taken = await createRun(t, P, { title: 'Taken title' });
      const { id } = await createRun(t, P, { title: 'Mine' });
      const res = await t.patch(runUrl(id), { title: 'Taken title' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      expect(res.body.message).toMatch(new RegExp(`conflicting run id: ${taken.id}$`));
      expect((await t.patch(runUrl(id), { title: 'Mine', description: 'x' })).status).toBe(200);
    });

    it('checks titles inside a plan against that plan only', async () => {
      await createRun(t, P, { title: 'Same name' });
      const plan = await t.post(`/project/${P.code}/plan`, {
        title: `Plan ${Date.now()}`,
        runs: [
          { title: 'p1', queryPlans: [{ tcaseIds: [tcaseId] }] },
          { title: 'p2', queryPlans: [{ tcaseIds: [tcaseId] }] },
        ],
      });
      expect(plan.status, JSON.stringify(plan.body)).toBe(201);
      const runs = (await t.get(`/project/${P.code}/plan/${plan.body.id}`)).body.runs as {
        id: number;
        title: string;
      }[];
      const p1 = runs.find((r) => r.title === 'p1')!;
      const p2 = runs.find((r) => r.title === 'p2')!;
      expect((await t.patch(runUrl(p1.id), { title: 'Same name' })).status).toBe(200);
      const clash = await t.patch(runUrl(p2.id), { title: 'Same name' });
      expect(clash.status).toBe(409);
      expect(clash.body.message).toMatch(new RegExp(`conflicting run id: ${p1.id}$`));
    });

    it('answers 409 for a closed run and stores nothing', async () => {
      const { id } = await createRun(t, P, { title: 'Closing' });
      await closeRun(t, P, id);
      const res = await t.patch(runUrl(id), { title: 'After close' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      expect((await getRun(t, P, id)).title).toBe('Closing');
    });

    it('answers 400 for an unknown, viewer or missing assignee, an unknown or archived milestone, a bad title', async () => {
      const { id } = await createRun(t, P);
      for (const [body, path] of [
        [{ assignmentId: 999999 }, '/assignmentId'],
        [{ assignmentId: viewerId }, '/assignmentId'],
        [{ milestoneId: 999999 }, '/milestoneId'],
        [{ milestoneId: archivedMilestoneId }, '/milestoneId'],
        [{ title: '   ' }, '/title'],
        [{ description: 'x'.repeat(513) }, '/description'],
      ] as const) {
        const res = await t.patch(runUrl(id), body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details?.[0]?.path ?? '').toBe(path);
      }
      const empty = await t.patch(runUrl(id), {});
      expect(empty.status).toBe(400);
      const unknown = await t.patch(runUrl(id), { type: 'live' });
      expect(unknown.status).toBe(400);
    });

    it('answers 404 for an unknown run and 403 for a viewer', async () => {
      expect((await t.patch(runUrl(999999), { title: 'x' })).status).toBe(404);
      const viewer = await userWithKey(t, 'viewer');
      await t.post(`/project/${P.code}/member`, { userId: viewer.user.id });
      const { id } = await createRun(t, P);
      expect((await t.patch(runUrl(id), { title: 'x' }, { key: viewer.key })).status).toBe(403);
    });
  });
});
