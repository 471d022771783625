import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { auditRows, createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { addResult, closeRun } from '../../../test/helpers/run-factories.js';

/** Issue 28: a test plan edited, given more runs and closed after it was made (D20 rules for its runs). */
describeEachDb('test plans after the fact', (t) => {
  let P: { id: string; code: string; title: string };
  let a: { id: string; seq: number };
  let b: { id: string; seq: number };
  let m1: number;
  let m2: number;
  let archived: number;
  let n = 0;

  const run = (title: string, tcaseIds: string[] = [a.id], extra: Record<string, unknown> = {}) => ({
    title,
    queryPlans: [{ tcaseIds }],
    ...extra,
  });
  const newPlan = async (body: Record<string, unknown> = {}) => {
    const res = await t.post(`/project/${P.code}/plan`, {
      title: `Plan ${++n}`,
      runs: [run('Chrome'), run('Firefox', [a.id, b.id])],
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  const plan = async (id: number) => (await t.get(`/project/${P.code}/plan/${id}`)).body;
  const url = (id: number, tail = '') => `/project/${P.code}/plan/${id}${tail}`;
  const metaOf = async (action: string, planId: number) =>
    (await auditRows(t, action)).map((r) => JSON.parse(r.meta ?? '{}')).filter((m) => m.plan_id === planId);

  beforeAll(async () => {
    P = await createProject(t);
    a = await createTcase(t, P, { title: 'A' });
    b = await createTcase(t, P, { title: 'B' });
    m1 = (await t.post(`/project/${P.code}/milestone`, { title: 'M1' })).body.id;
    m2 = (await t.post(`/project/${P.code}/milestone`, { title: 'M2' })).body.id;
    archived = (await t.post(`/project/${P.code}/milestone`, { title: 'Old' })).body.id;
    await t.post(`/project/${P.code}/milestone/${archived}/archive`);
  });

  describe('PATCH /project/:p/plan/:id', () => {
    it('renames the plan and moves it with all its runs, open or closed, to another milestone', async () => {
      const id = await newPlan({ milestoneId: m1 });
      const before = await plan(id);
      await closeRun(t, P, before.runIds[0]);
      const res = await t.patch(url(id), {
        title: '  Release 2 ',
        milestoneId: m2,
        description: '<b>go</b>',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Plan updated' });
      const after = await plan(id);
      expect(after).toMatchObject({
        title: 'Release 2',
        description: '<b>go</b>',
        milestoneId: m2,
        milestone: { id: m2, title: 'M2' },
        closed: false,
      });
      expect(after.runs.map((r: { milestoneId: number }) => r.milestoneId)).toEqual([m2, m2]);
      expect(after.runs.map((r: { plan: { title: string } }) => r.plan.title)).toEqual([
        'Release 2',
        'Release 2',
      ]);
      expect(await metaOf('plan.updated', id)).toEqual([
        {
          project_id: P.id,
          project_code: P.code,
          plan_id: id,
          plan_title: 'Release 2',
          changed: ['title', 'description', 'milestoneId'],
          previous_title: before.title,
          milestone_id: m2,
          previous_milestone_id: m1,
        },
      ]);
      // null takes the plan and its runs out of every milestone.
      expect((await t.patch(url(id), { milestoneId: null })).status).toBe(200);
      const none = await plan(id);
      expect('milestoneId' in none).toBe(false);
      expect(none.runs.map((r: { milestoneId: number | null }) => r.milestoneId)).toEqual([null, null]);
    });

    it('answers 409 for a title another plan has in the target milestone, and keeps the plan', async () => {
      await newPlan({ title: 'Taken', milestoneId: m2 });
      const id = await newPlan({ title: 'Taken', milestoneId: m1 });
      const res = await t.patch(url(id), { milestoneId: m2 });
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(
        /a test plan titled "Taken" exists in milestone \d+; conflicting plan id: \d+/,
      );
      const other = await newPlan({ milestoneId: m2 });
      expect((await t.patch(url(other), { title: 'Taken' })).status).toBe(409);
      expect(await plan(id)).toMatchObject({ title: 'Taken', milestoneId: m1 });
      // The same title under its own milestone is no clash with itself.
      expect((await t.patch(url(id), { title: 'Taken' })).status).toBe(200);
    });

    it.each([
      [{ title: ' ' }, '/title'],
      [{ title: 'x'.repeat(256) }, '/title'],
      [{ milestoneId: 999999 }, '/milestoneId'],
      [{ milestoneId: 'one' }, '/milestoneId'],
      [{}, undefined],
      [{ closed: true }, undefined],
    ])('answers 400 for %j and changes nothing', async (body, path) => {
      const id = await newPlan({ milestoneId: m1 });
      const before = await plan(id);
      const res = await t.patch(url(id), body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      if (path) expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      expect(await plan(id)).toEqual(before);
    });

    it('answers 400 for an archived milestone, but keeps one the plan already has', async () => {
      const id = await newPlan();
      const res = await t.patch(url(id), { milestoneId: archived });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`milestone ${archived} is archived`);
      const inArchived = await newPlan({ milestoneId: m1 });
      await t.post(`/project/${P.code}/milestone/${m1}/archive`);
      try {
        expect((await t.patch(url(inArchived), { title: 'Still here', milestoneId: m1 })).status).toBe(200);
      } finally {
        await t.post(`/project/${P.code}/milestone/${m1}/unarchive`);
      }
    });

    it('answers 404 for an unknown plan or one of another project, 403 to a viewer', async () => {
      expect((await t.patch(url(999999), { title: 'x' })).status).toBe(404);
      const other = await createProject(t);
      const foreign = await t.post(`/project/${other.code}/plan`, { title: 'F', runs: [run('r', [])] });
      expect((await t.patch(url(foreign.body.id), { title: 'x' })).status).toBe(404);
      const viewer = await userWithKey(t, 'viewer');
      const runner = await userWithKey(t, 'test-runner');
      const Q = await createProject(t, {}, [viewer.user.id, runner.user.id]);
      const q = (await t.post(`/project/${Q.code}/plan`, { title: 'Q', runs: [run('r', [])] })).body.id;
      const denied = await t.patch(`/project/${Q.code}/plan/${q}`, { title: 'v' }, { key: viewer.key });
      expect(denied.status).toBe(403);
      expect(
        (await t.patch(`/project/${Q.code}/plan/${q}`, { title: 'r' }, { key: runner.key })).status,
      ).toBe(200);
    });
  });

  describe('POST /project/:p/plan/:id/run', () => {
    it('adds runs in request order, filed under the plan and its milestone, and records plan.runs_added', async () => {
      const id = await newPlan({ milestoneId: m1 });
      const res = await t.post(url(id, '/run'), {
        runs: [run('Safari', [a.id, b.id], { type: 'static_struct' }), run('Edge', [b.id])],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ runIds: [expect.any(Number), expect.any(Number)] });
      const after = await plan(id);
      expect(after.runIds.slice(2)).toEqual(res.body.runIds);
      expect(after.runs.slice(2)).toMatchObject([
        { title: 'Safari', type: 'static_struct', planId: id, milestoneId: m1, statusCounts: { all: 2 } },
        { title: 'Edge', type: 'static', planId: id, milestoneId: m1, statusCounts: { all: 1 } },
      ]);
      expect(await metaOf('plan.runs_added', id)).toEqual([
        {
          project_id: P.id,
          project_code: P.code,
          plan_id: id,
          plan_title: after.title,
          run_ids: res.body.runIds,
        },
      ]);
    });

    it('answers 409 naming the run for a title the plan has, and adds none of the runs', async () => {
      const id = await newPlan();
      const chrome = (await plan(id)).runIds[0];
      const res = await t.post(url(id, '/run'), { runs: [run('Opera'), run('Chrome')] });
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(new RegExp(`conflicting run id: ${chrome}$`));
      const twice = await t.post(url(id, '/run'), { runs: [run('Opera'), run('Opera')] });
      expect(twice.status).toBe(409);
      expect((await plan(id)).runIds).toHaveLength(2);
    });

    it.each([
      [{ runs: [] }, '/runs'],
      [{ runs: [{ title: 'Live', type: 'live', queryPlans: [{ tcaseIds: [] }] }] }, '/runs/0/type'],
      [{ runs: [{ title: '', queryPlans: [{ tcaseIds: [] }] }] }, '/runs/0/title'],
      [{ runs: [{ title: 'Two', queryPlans: [{ tcaseIds: [] }, { tcaseIds: [] }] }] }, '/runs/0/queryPlans'],
      [{ runs: [{ title: 'Ghost', queryPlans: [{ tcaseIds: ['nope'] }] }] }, '/runs/0/queryPlans/0/tcaseIds'],
    ])('answers 400 for %j and adds nothing', async (body, path) => {
      const id = await newPlan();
      const res = await t.post(url(id, '/run'), body);
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path.startsWith(path))).toContain(true);
      expect((await plan(id)).runIds).toHaveLength(2);
    });
  });

  describe('POST /project/:p/plan/:id/close', () => {
    it('closes the plan and its open runs in one go, and the closed plan refuses every change with 409', async () => {
      const id = await newPlan({ milestoneId: m1 });
      const [chrome, firefox] = (await plan(id)).runIds;
      await closeRun(t, P, chrome);
      await addResult(t, P, firefox, a.id, 'passed');
      const res = await t.post(url(id, '/close'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Plan closed', closedRunIds: [firefox] });
      const after = await plan(id);
      expect(after).toMatchObject({ closed: true, closedAt: expect.any(String) });
      expect(after.runs.map((r: { closed: boolean }) => r.closed)).toEqual([true, true]);
      expect(after.runs[1].statusCounts).toMatchObject({ all: 2, passed: 1, open: 1 });
      expect(await metaOf('plan.closed', id)).toEqual([
        {
          project_id: P.id,
          project_code: P.code,
          plan_id: id,
          plan_title: after.title,
          closed_run_ids: [firefox],
        },
      ]);
      const again = await t.post(url(id, '/close'));
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(`test plan ${id} is already closed`);
      const edit = await t.patch(url(id), { title: 'After' });
      expect(edit.status).toBe(409);
      expect(edit.body.message).toMatch(/is closed/);
      expect((await t.post(url(id, '/run'), { runs: [run('Late')] })).status).toBe(409);
      expect(
        (await t.post(`/project/${P.code}/run/${firefox}/tcase/${b.id}/result`, { status: 'passed' })).status,
      ).toBe(409);
      expect(await plan(id)).toEqual(after);
    });

    it('leaves no open run behind when runs are added while the plan closes: they are closed with it or refused', async () => {
      for (let i = 0; i < 3; i++) {
        const id = await newPlan();
        const [closed, added] = await Promise.all([
          t.post(url(id, '/close')),
          t.post(url(id, '/run'), { runs: [run(`Racing ${i}`)] }),
        ]);
        expect(closed.status).toBe(200);
        expect([201, 409]).toContain(added.status);
        const after = await plan(id);
        expect(after.closed).toBe(true);
        expect(after.runs.filter((r: { closed: boolean }) => !r.closed)).toEqual([]);
        expect(after.runIds).toHaveLength(added.status === 201 ? 3 : 2);
        if (added.status === 201) expect(closed.body.closedRunIds).toEqual(after.runIds);
      }
    });

    it('answers 404 for an unknown plan and 403 to a viewer, closing nothing', async () => {
      expect((await t.post(url(999999, '/close'))).status).toBe(404);
      const viewer = await userWithKey(t, 'viewer');
      const Q = await createProject(t, {}, [viewer.user.id]);
      const q = (await t.post(`/project/${Q.code}/plan`, { title: 'Q', runs: [run('r', [])] })).body.id;
      expect(
        (await t.post(`/project/${Q.code}/plan/${q}/close`, undefined, { key: viewer.key })).status,
      ).toBe(403);
      expect((await t.get(`/project/${Q.code}/plan/${q}`)).body.closed).toBe(false);
    });
  });
});
