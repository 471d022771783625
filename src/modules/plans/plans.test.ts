import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, memberWithKey, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { createRun, listRunTcases, updateTcase } from '../../../test/helpers/run-factories.js';

describeEachDb('test plans (D20)', (t) => {
  let P: { id: string; code: string; title: string };
  let a: { id: string; seq: number };
  let b: { id: string; seq: number };
  let draftId: string;
  let templateId: string;
  let milestoneId: number;
  let otherMilestoneId: number;
  let archivedMilestoneId: number;
  let configurationId: string;

  const planUrl = () => `/project/${P.code}/plan`;
  const planIds = async () => (await t.get(planUrl())).body.plans.map((p: { id: number }) => p.id);
  const runCount = async () => (await t.get(`/project/${P.code}/run`)).body.runs.length;
  const oneRun = (title: string, tcaseIds: string[] = [], extra: Record<string, unknown> = {}) => ({
    title,
    queryPlans: [{ tcaseIds }],
    ...extra,
  });

  beforeAll(async () => {
    P = await createProject(t);
    a = await createTcase(t, P, { title: 'A v1' });
    b = await createTcase(t, P);
    draftId = (await createTcase(t, P, { isDraft: true })).id;
    templateId = (
      await createTcase(t, P, {
        type: 'template',
        title: 'T ${x}',
        parameterValues: [{ values: { x: '1' } }],
      })
    ).id;
    milestoneId = (await t.post(`/project/${P.code}/milestone`, { title: 'Sprint 1' })).body.id;
    otherMilestoneId = (await t.post(`/project/${P.code}/milestone`, { title: 'Sprint 2' })).body.id;
    archivedMilestoneId = (await t.post(`/project/${P.code}/milestone`, { title: 'Sprint 0' })).body.id;
    await t.post(`/project/${P.code}/milestone/${archivedMilestoneId}/archive`);
    configurationId = (await t.post(`/project/${P.code}/configuration`, { title: 'Firefox' })).body.id;
  });

  describe('POST /project/:p/plan', () => {
    it('answers 201 {id} and creates the plan with all its runs, static unless static_struct is given', async () => {
      const runner = await memberWithKey(t, 'test-runner', P);
      const res = await t.post(planUrl(), {
        title: 'Release 1.0',
        description: '<i>all browsers</i><img src="javascript:alert(1)">',
        milestoneId,
        runs: [
          oneRun('Chrome', [a.id, b.id, a.id], { assignmentId: runner.user.id, description: 'on chrome' }),
          oneRun('Firefox', [b.id], { configurationId, type: 'static_struct' }),
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number) });
      const plan = await t.get(`${planUrl()}/${res.body.id}`);
      expect(plan.status).toBe(200);
      expect(plan.body).toMatchObject({
        id: res.body.id,
        projectId: P.id,
        title: 'Release 1.0',
        description: '<i>all browsers</i><img />',
        milestoneId,
        milestone: { id: milestoneId, title: 'Sprint 1' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const [chrome, firefox] = plan.body.runs;
      expect(plan.body.runIds).toEqual([chrome.id, firefox.id]);
      expect(chrome).toMatchObject({
        type: 'static',
        title: 'Chrome',
        description: 'on chrome',
        planId: res.body.id,
        plan: { title: 'Release 1.0' },
        milestoneId,
        assignmentId: runner.user.id,
        isAutomated: true,
        statusCounts: { all: 2, open: 2 },
      });
      expect(firefox).toMatchObject({ type: 'static_struct', configurationId, statusCounts: { all: 1 } });
      // A static plan run is pinned at creation (D17).
      await updateTcase(t, P, a.id, { title: 'A v2' });
      expect((await listRunTcases(t, P, chrome.id)).find((i) => i.id === a.id).title).toBe('A v1');
    });

    it('answers 409 for a plan title taken in the same milestone or among plans without one, allowing it elsewhere', async () => {
      const first = await t.post(planUrl(), { title: 'Regression', runs: [oneRun('r')] });
      expect(first.status).toBe(201);
      const dup = await t.post(planUrl(), { title: 'Regression', runs: [oneRun('r')] });
      expect(dup.status).toBe(409);
      expect(dup.body).toEqual({
        code: 'CONFLICT',
        message: `a test plan titled "Regression" exists among the plans without a milestone; conflicting plan id: ${first.body.id}`,
      });
      const inMilestone = await t.post(planUrl(), { title: 'Regression', milestoneId, runs: [oneRun('r')] });
      expect(inMilestone.status).toBe(201);
      const dupInMilestone = await t.post(planUrl(), {
        title: 'Regression',
        milestoneId,
        runs: [oneRun('r')],
      });
      expect(dupInMilestone.status).toBe(409);
      expect(dupInMilestone.body.message).toMatch(new RegExp(`in milestone ${milestoneId}`));
      const other = await t.post(planUrl(), {
        title: 'Regression',
        milestoneId: otherMilestoneId,
        runs: [oneRun('r')],
      });
      expect(other.status).toBe(201);
    });

    it('gives exactly one winner to concurrent creators of one plan title', async () => {
      const answers = await Promise.all(
        [1, 2, 3].map(() => t.post(planUrl(), { title: 'Raced plan', runs: [oneRun('r', [a.id])] })),
      );
      expect(answers.map((x) => x.status).sort()).toEqual([201, 409, 409]);
    });

    it('scopes run titles to the plan (D10): plan runs may share titles with other plans and standalone runs', async () => {
      await createRun(t, P, { title: 'Smoke' });
      const one = await t.post(planUrl(), { title: 'Plan one', runs: [oneRun('Smoke')] });
      const two = await t.post(planUrl(), { title: 'Plan two', runs: [oneRun('Smoke')] });
      expect([one.status, two.status]).toEqual([201, 201]);
      const standalone = await t.post(`/project/${P.code}/run`, {
        title: 'Smoke',
        type: 'static',
        queryPlans: [{ tcaseIds: [] }],
      });
      expect(standalone.status).toBe(409);
    });

    it('answers 400 for every invalid field and stores neither the plan nor any run', async () => {
      const plansBefore = await planIds();
      const runsBefore = await runCount();
      const viewer = await userWithKey(t, 'viewer');
      const cases: [Record<string, unknown>, string, RegExp?][] = [
        [{ title: '', runs: [oneRun('r')] }, '/title'],
        [{ title: 'x'.repeat(256), runs: [oneRun('r')] }, '/title'],
        [{ title: 'No runs', runs: [] }, '/runs', /at least one run/],
        [{ title: 'No runs key' }, '/runs'],
        [{ title: 'Long run title', runs: [oneRun('r'.repeat(256))] }, '/runs/0/title'],
        [{ title: 'Empty run title', runs: [oneRun(' ')] }, '/runs/0/title'],
        [{ title: 'Live', runs: [oneRun('r', [], { type: 'live' })] }, '/runs/0/type', /cannot be live/],
        [{ title: 'Bad type', runs: [oneRun('r', [], { type: 'dynamic' })] }, '/runs/0/type'],
        [
          { title: 'Two plans', runs: [{ title: 'r', queryPlans: [{ tcaseIds: [] }, { tcaseIds: [] }] }] },
          '/runs/0/queryPlans',
          /exactly one/,
        ],
        [{ title: 'No plans', runs: [{ title: 'r', queryPlans: [] }] }, '/runs/0/queryPlans'],
        [
          { title: 'Filters', runs: [{ title: 'r', queryPlans: [{ tcaseIds: [], folderIds: [1] }] }] },
          '/runs/0/queryPlans/0/folderIds',
        ],
        [{ title: 'No ids', runs: [{ title: 'r', queryPlans: [{}] }] }, '/runs/0/queryPlans/0/tcaseIds'],
        [
          { title: 'Template', runs: [oneRun('r', [templateId])] },
          '/runs/0/queryPlans/0/tcaseIds',
          /templates/,
        ],
        [{ title: 'Draft', runs: [oneRun('r', [draftId])] }, '/runs/0/queryPlans/0/tcaseIds', /draft/],
        [
          { title: 'Unknown', runs: [oneRun('ok', [a.id]), oneRun('r', ['nosuch'])] },
          '/runs/1/queryPlans/0/tcaseIds',
          /not found/,
        ],
        [
          { title: 'Viewer', runs: [oneRun('r', [], { assignmentId: viewer.user.id })] },
          '/runs/0/assignmentId',
        ],
        [
          { title: 'Config', runs: [oneRun('r', [], { configurationId: 'nosuch' })] },
          '/runs/0/configurationId',
        ],
        [
          { title: 'Archived', milestoneId: archivedMilestoneId, runs: [oneRun('r')] },
          '/milestoneId',
          /archived/,
        ],
        [{ title: 'Unknown ms', milestoneId: 999999, runs: [oneRun('r')] }, '/milestoneId'],
        [{ title: 'Extra', runs: [oneRun('r')], cloneOf: 1 }, '/cloneOf'],
        [{ title: 'Run extra', runs: [oneRun('r', [], { milestoneId })] }, '/runs/0/milestoneId'],
      ];
      for (const [body, path, message] of cases) {
        const res = await t.post(planUrl(), body);
        expect(res.status, String(body.title)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(
          res.body.details.map((d: { path: string }) => d.path),
          String(body.title),
        ).toContain(path);
        if (message) expect(res.body.message).toMatch(message);
      }
      expect(await planIds()).toEqual(plansBefore);
      expect(await runCount()).toBe(runsBefore);
    });

    it('answers 409 naming both runs by index when two runs of the new plan share a title (D10), storing nothing', async () => {
      const plansBefore = await planIds();
      const runsBefore = await runCount();
      const res = await t.post(planUrl(), {
        title: 'Twin runs',
        runs: [oneRun('Chrome', [a.id]), oneRun('Smoke', [b.id]), oneRun(' Smoke ', [a.id])],
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'CONFLICT',
        message: 'runs/1 and runs/2 are both titled "Smoke"; run titles are unique within a test plan',
      });
      expect(await planIds()).toEqual(plansBefore);
      expect(await runCount()).toBe(runsBefore);

      // A body that is wrong as well is a 400 first: the clash is only reported for an otherwise valid plan.
      const invalid = await t.post(planUrl(), {
        title: 'Twin runs',
        runs: [oneRun('Smoke', [a.id]), oneRun('Smoke', [a.id], { type: 'live' })],
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.details.map((d: { path: string }) => d.path)).toEqual(['/runs/1/type']);
    });

    it('answers 401 without a key, 403 for a viewer, a non-member or an archived project, 404 for an unknown project', async () => {
      const body = { title: 'Access', runs: [oneRun('r')] };
      expect((await t.post(planUrl(), body, { key: null })).status).toBe(401);
      const viewer = await userWithKey(t, 'viewer');
      expect((await t.post(planUrl(), body, { key: viewer.key })).status).toBe(403);
      const outsider = await userWithKey(t, 'test-runner');
      expect((await t.post(planUrl(), body, { key: outsider.key })).status).toBe(403);
      const archived = await createProject(t);
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', archived.id)
        .execute();
      expect((await t.post(`/project/${archived.code}/plan`, body)).status).toBe(403);
      const missing = await t.post('/project/NOPE4/plan', body);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
    });
  });

  describe('GET /project/:p/plan and /plan/:id', () => {
    it('lists the plans newest first with their run ids; no milestone keys when there is none', async () => {
      const project = await createProject(t);
      const c = await createTcase(t, project);
      const first = await t.post(`/project/${project.code}/plan`, {
        title: 'First',
        runs: [oneRun('r1', [c.id])],
      });
      const second = await t.post(`/project/${project.code}/plan`, {
        title: 'Second',
        runs: [oneRun('r1'), oneRun('r2')],
      });
      const res = await t.get(`/project/${project.code}/plan`);
      expect(res.status).toBe(200);
      expect(res.body.plans.map((p: { id: number }) => p.id)).toEqual([second.body.id, first.body.id]);
      expect(res.body.plans[0].runIds).toHaveLength(2);
      expect(res.body.plans[1]).toEqual({
        id: first.body.id,
        projectId: project.id,
        title: 'First',
        description: '',
        runIds: [expect.any(Number)],
        closed: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    });

    it('answers 404 for an unknown plan or a plan of another project, 403 for a non-member', async () => {
      const missing = await t.get(`${planUrl()}/999999`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'test plan 999999 not found' });
      const other = await createProject(t);
      const foreign = await t.post(`/project/${other.code}/plan`, { title: 'Foreign', runs: [oneRun('r')] });
      expect((await t.get(`${planUrl()}/${foreign.body.id}`)).status).toBe(404);
      const outsider = await userWithKey(t, 'user');
      expect((await t.get(planUrl(), { key: outsider.key })).status).toBe(403);
    });
  });
});
