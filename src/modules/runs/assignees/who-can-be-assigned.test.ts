import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createTcase } from '../../../../test/helpers/tcase-factories.js';
import { createRun, getRun } from '../../../../test/helpers/run-factories.js';

type Person = Awaited<ReturnType<typeof userWithKey>>;

// One rule for every path that names an assignee: runs, clones, plans, edits and a run's cases.
describeEachDb('who can be assigned a run or its cases', (t) => {
  let P: { id: string; code: string; title: string };
  let member: Person;
  let viewer: Person;
  let outsider: Person;
  let admin: Person;
  let tcaseId: string;

  const noAccess = () => new RegExp(`user \\d+ has no access to project ${P.code}`);
  const refusal = (res: { status: number; body: { details?: { path: string; message: string }[] } }) => ({
    status: res.status,
    detail: res.body.details?.[0],
  });

  beforeAll(async () => {
    member = await userWithKey(t, 'test-runner');
    viewer = await userWithKey(t, 'viewer');
    outsider = await userWithKey(t, 'test-runner');
    admin = await userWithKey(t, 'admin');
    P = await createProject(t, {}, [member.user.id, viewer.user.id]);
    tcaseId = (await createTcase(t, P)).id;
  });

  describe('POST /project/:p/run', () => {
    it('answers 400 at /assignmentId for a person who cannot open the project, and creates nothing', async () => {
      const before = (await t.get(`/project/${P.code}/run`)).body.runs.length;
      const res = await t.post(`/project/${P.code}/run`, {
        title: 'Outsider run',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [tcaseId] }],
        assignmentId: outsider.user.id,
      });
      expect(refusal(res)).toEqual({
        status: 400,
        detail: { path: '/assignmentId', message: expect.stringMatching(noAccess()) },
      });
      expect((await t.get(`/project/${P.code}/run`)).body.runs.length).toBe(before);
    });

    it('accepts a member and an admin who is not a member (D3: admins open every project)', async () => {
      for (const who of [member, admin]) {
        const { id } = await createRun(t, P, { tcaseIds: [tcaseId], assignmentId: who.user.id });
        expect((await getRun(t, P, id)).assignmentId).toBe(who.user.id);
      }
    });

    it('still refuses a viewer, in words naming the role', async () => {
      const res = await t.post(`/project/${P.code}/run`, {
        title: 'Viewer run',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [tcaseId] }],
        assignmentId: viewer.user.id,
      });
      expect(refusal(res)).toEqual({
        status: 400,
        detail: {
          path: '/assignmentId',
          message: `user ${viewer.user.id} is a viewer and cannot be assigned a run`,
        },
      });
    });
  });

  describe('PATCH /project/:p/run/:r', () => {
    it('answers 400 at /assignmentId for a person who cannot open the project and keeps the assignee', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [tcaseId], assignmentId: member.user.id });
      const res = await t.patch(`/project/${P.code}/run/${id}`, { assignmentId: outsider.user.id });
      expect(refusal(res)).toEqual({
        status: 400,
        detail: { path: '/assignmentId', message: expect.stringMatching(noAccess()) },
      });
      expect((await getRun(t, P, id)).assignmentId).toBe(member.user.id);
    });
  });

  describe('POST /project/:p/run/clone', () => {
    it('answers 400 at /assignmentId for a person who cannot open the project', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [tcaseId] });
      const res = await t.post(`/project/${P.code}/run/clone`, {
        runId: id,
        title: 'Clone for an outsider',
        assignmentId: outsider.user.id,
      });
      expect(refusal(res)).toEqual({
        status: 400,
        detail: { path: '/assignmentId', message: expect.stringMatching(noAccess()) },
      });
    });

    it('carries the source run’s assignee only while they can still open the project', async () => {
      const leaver = await userWithKey(t, 'test-runner');
      await t.post(`/project/${P.code}/member`, { userId: leaver.user.id });
      const { id } = await createRun(t, P, { tcaseIds: [tcaseId], assignmentId: leaver.user.id });
      const kept = await t.post(`/project/${P.code}/run/clone`, { runId: id, title: 'Clone while a member' });
      expect(kept.status, JSON.stringify(kept.body)).toBe(201);
      expect((await getRun(t, P, kept.body.id)).assignmentId).toBe(leaver.user.id);

      expect((await t.del(`/project/${P.code}/member/${leaver.user.id}`)).status).toBe(200);
      const clone = await t.post(`/project/${P.code}/run/clone`, {
        runId: id,
        title: 'Clone after they left',
      });
      expect(clone.status, JSON.stringify(clone.body)).toBe(201);
      expect((await getRun(t, P, clone.body.id)).assignmentId ?? null).toBeNull();
    });
  });

  describe('POST /project/:p/plan and POST /project/:p/plan/:id/run', () => {
    const planRun = (title: string, assignmentId: number) => ({
      title,
      queryPlans: [{ tcaseIds: [tcaseId] }],
      assignmentId,
    });

    it('answers 400 at /runs/<i>/assignmentId for a person who cannot open the project, and creates no plan', async () => {
      const before = (await t.get(`/project/${P.code}/plan`)).body.plans.length;
      const res = await t.post(`/project/${P.code}/plan`, {
        title: 'Plan with an outsider',
        runs: [planRun('Chrome', member.user.id), planRun('Firefox', outsider.user.id)],
      });
      expect(refusal(res)).toEqual({
        status: 400,
        detail: { path: '/runs/1/assignmentId', message: expect.stringMatching(noAccess()) },
      });
      expect((await t.get(`/project/${P.code}/plan`)).body.plans.length).toBe(before);
    });

    it('refuses a run added to a plan for a person who cannot open the project, at its index', async () => {
      const plan = await t.post(`/project/${P.code}/plan`, {
        title: 'Plan to add to',
        runs: [planRun('Chrome', admin.user.id)],
      });
      expect(plan.status, JSON.stringify(plan.body)).toBe(201);
      const res = await t.post(`/project/${P.code}/plan/${plan.body.id}/run`, {
        runs: [planRun('Safari', outsider.user.id)],
      });
      expect(refusal(res)).toEqual({
        status: 400,
        detail: { path: '/runs/0/assignmentId', message: expect.stringMatching(noAccess()) },
      });
    });
  });

  describe('POST /project/:p/run/:r/tcase/assign', () => {
    it('refuses the same person with the same words, at /assigneeId', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [tcaseId] });
      const res = await t.post(`/project/${P.code}/run/${id}/tcase/assign`, {
        tcaseIds: [tcaseId],
        assigneeId: outsider.user.id,
      });
      expect(refusal(res)).toEqual({
        status: 400,
        detail: { path: '/assigneeId', message: expect.stringMatching(noAccess()) },
      });
    });
  });

  describe('GET /project/:p/assignable', () => {
    it('lists exactly the people the paths above accept: members above viewer and every admin and owner', async () => {
      const res = await t.get(`/project/${P.code}/assignable`);
      expect(res.status).toBe(200);
      const ids = res.body.users.map((u: { id: number }) => u.id);
      expect(ids).toEqual(expect.arrayContaining([member.user.id, admin.user.id]));
      expect(ids).not.toContain(viewer.user.id);
      expect(ids).not.toContain(outsider.user.id);
    });

    it('answers 403 to someone who cannot open the project', async () => {
      expect((await t.get(`/project/${P.code}/assignable`, { key: outsider.key })).status).toBe(403);
    });
  });
});
