import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, memberWithKey, userWithKey } from '../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import {
  addResult,
  closeRun,
  createRun,
  getRun,
  listRunTcases,
} from '../../../test/helpers/run-factories.js';
import { createUser } from '../users/users.service.js';

describeEachDb('runs', (t) => {
  let P: { id: string; code: string; title: string };
  let folderA: number;
  let folderA1: number;
  let folderB: number;
  const c: Record<string, { id: string; seq: number }> = {};
  let templateId: string;
  let filledId: string;
  let draftId: string;
  let milestoneId: number;
  let archivedMilestoneId: number;
  let configurationId: string;
  let tagSmoke: number;

  const runsUrl = () => `/project/${P.code}/run`;
  const allRunIds = async () => (await t.get(runsUrl())).body.runs.map((r: { id: number }) => r.id);

  beforeAll(async () => {
    P = await createProject(t);
    folderA = await createFolder(t, P, ['A']);
    folderA1 = await createFolder(t, P, ['A', 'A1']);
    folderB = await createFolder(t, P, ['B']);
    c.a = await createTcase(t, P, { folderId: folderA, priority: 'high', tags: ['smoke'] });
    c.a1 = await createTcase(t, P, { folderId: folderA1, priority: 'low', tags: ['smoke'] });
    c.b = await createTcase(t, P, { folderId: folderB, priority: 'high' });
    c.b2 = await createTcase(t, P, { folderId: folderB, priority: 'medium', tags: ['smoke'] });
    draftId = (await createTcase(t, P, { folderId: folderB, isDraft: true })).id;
    const template = await createTcase(t, P, {
      folderId: folderB,
      type: 'template',
      title: 'Login as ${role}',
      parameterValues: [{ values: { role: 'admin' } }],
    });
    templateId = template.id;
    const full = await t.get(`/project/${P.code}/tcase/${templateId}`);
    filledId = full.body.parameterValues[0].tcaseId;
    const tags = await t.get(`/project/${P.code}/tag`);
    tagSmoke = tags.body.tags.find((x: { title: string }) => x.title === 'smoke').id;
    milestoneId = (await t.post(`/project/${P.code}/milestone`, { title: 'M1' })).body.id;
    archivedMilestoneId = (await t.post(`/project/${P.code}/milestone`, { title: 'M-old' })).body.id;
    const archived = await t.post(`/project/${P.code}/milestone/${archivedMilestoneId}/archive`);
    expect(archived.status, JSON.stringify(archived.body)).toBeLessThan(300);
    configurationId = (await t.post(`/project/${P.code}/configuration`, { title: 'Chrome' })).body.id;
  });

  describe('POST /project/:p/run', () => {
    it('answers 201 with the id of a static_struct run holding the named cases once each, all open', async () => {
      const res = await t.post(runsUrl(), {
        title: 'Uploader run',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [c.a.id, c.b.id, c.a.id, c.b.id, filledId] }],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number) });
      const items = await listRunTcases(t, P, res.body.id);
      expect(items.map((i) => i.id).sort()).toEqual([c.a.id, c.b.id, filledId].sort());
      expect(items.every((i) => i.status === 'open')).toBe(true);
      const run = await getRun(t, P, res.body.id);
      expect(run.statusCounts).toEqual({
        all: 3,
        open: 3,
        passed: 0,
        failed: 0,
        blocked: 0,
        skipped: 0,
        custom1: 0,
        custom2: 0,
        custom3: 0,
        custom4: 0,
      });
    });

    it('creates an empty run from an empty tcaseIds list as the uploader sends it', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [] });
      expect(await listRunTcases(t, P, id)).toEqual([]);
      expect((await getRun(t, P, id)).statusCounts.all).toBe(0);
    });

    it('selects folders with their subfolders, tags and priorities with AND inside a plan', async () => {
      const byFolder = await createRun(t, P, { type: 'static', queryPlans: [{ folderIds: [folderA] }] });
      expect((await listRunTcases(t, P, byFolder.id)).map((i) => i.id).sort()).toEqual(
        [c.a.id, c.a1.id].sort(),
      );
      const anded = await createRun(t, P, {
        type: 'static',
        queryPlans: [{ folderIds: [folderA], tagIds: [tagSmoke], priorities: ['high'] }],
      });
      expect((await listRunTcases(t, P, anded.id)).map((i) => i.id)).toEqual([c.a.id]);
      const orWithin = await createRun(t, P, {
        type: 'static',
        queryPlans: [{ priorities: ['high', 'low'] }],
      });
      expect((await listRunTcases(t, P, orWithin.id)).map((i) => i.id).sort()).toEqual(
        [c.a.id, c.a1.id, c.b.id].sort(),
      );
    });

    it('treats omitted and empty filters as unrestricted, never selecting drafts or templates', async () => {
      const { id } = await createRun(t, P, { type: 'static', queryPlans: [{ folderIds: [], tagIds: [] }] });
      const ids = (await listRunTcases(t, P, id)).map((i) => i.id);
      expect(ids).toContain(filledId);
      expect(ids).not.toContain(draftId);
      expect(ids).not.toContain(templateId);
    });

    it('combines the query plans of a live run by union', async () => {
      const { id } = await createRun(t, P, {
        type: 'live',
        queryPlans: [{ folderIds: [folderA1] }, { priorities: ['medium'], tagIds: [tagSmoke] }],
      });
      expect((await listRunTcases(t, P, id)).map((i) => i.id).sort()).toEqual([c.a1.id, c.b2.id].sort());
    });

    it('answers 400 for tcaseIds in a live run and for a live run without query plans', async () => {
      const before = await allRunIds();
      const withIds = await t.post(runsUrl(), {
        title: 'Live with ids',
        type: 'live',
        queryPlans: [{ priorities: ['high'] }, { tcaseIds: [c.a.id] }],
      });
      expect(withIds.status).toBe(400);
      expect(withIds.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ path: '/queryPlans/1/tcaseIds' }],
      });
      expect(withIds.body.message).toMatch(/filters only/);
      const none = await t.post(runsUrl(), { title: 'Live without plans', type: 'live', queryPlans: [] });
      expect(none.status).toBe(400);
      expect(none.body.details).toEqual([
        { path: '/queryPlans', message: expect.stringMatching(/at least one/) },
      ]);
      expect(await allRunIds()).toEqual(before);
    });

    it.each(['static', 'static_struct'])(
      'answers 400 when a %s run has other than one query plan',
      async (type) => {
        for (const queryPlans of [[], [{ tcaseIds: [c.a.id] }, { tcaseIds: [c.b.id] }]]) {
          const res = await t.post(runsUrl(), {
            title: `Plans ${type} ${queryPlans.length}`,
            type,
            queryPlans,
          });
          expect(res.status).toBe(400);
          expect(res.body.details[0]).toEqual({
            path: '/queryPlans',
            message: expect.stringMatching(/exactly one/),
          });
        }
      },
    );

    it('answers 400 naming drafts (D16), templates and unknown ids, and stores nothing', async () => {
      const before = await allRunIds();
      const draft = await t.post(runsUrl(), {
        title: 'With a draft',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [c.a.id, draftId] }],
      });
      expect(draft.status).toBe(400);
      expect(draft.body.message).toBe(`draft test cases cannot be added to a run: ${draftId}`);
      expect(draft.body.details).toEqual([{ path: '/queryPlans/0/tcaseIds', message: draft.body.message }]);
      const template = await t.post(runsUrl(), {
        title: 'With a template',
        type: 'static',
        queryPlans: [{ tcaseIds: [templateId] }],
      });
      expect(template.status).toBe(400);
      expect(template.body.message).toMatch(new RegExp(`^templates cannot be added.*${templateId}$`));
      const unknown = await t.post(runsUrl(), {
        title: 'With an unknown',
        type: 'static',
        queryPlans: [{ tcaseIds: ['nosuchcase', c.a.id] }],
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toBe('test cases not found in this project: nosuchcase');
      expect(await allRunIds()).toEqual(before);
    });

    it('answers 400 for a test case of another project', async () => {
      const other = await createProject(t);
      const foreign = await createTcase(t, other);
      const res = await t.post(runsUrl(), {
        title: 'Foreign case',
        type: 'static',
        queryPlans: [{ tcaseIds: [foreign.id] }],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`test cases not found in this project: ${foreign.id}`);
    });

    it('answers 400 for unknown folders and tags in filters', async () => {
      const folder = await t.post(runsUrl(), {
        title: 'F',
        type: 'live',
        queryPlans: [{ folderIds: [999999] }],
      });
      expect(folder.status).toBe(400);
      expect(folder.body.details).toEqual([
        { path: '/queryPlans/0/folderIds', message: 'folders not found in this project: 999999' },
      ]);
      const tag = await t.post(runsUrl(), { title: 'T', type: 'static', queryPlans: [{ tagIds: [888888] }] });
      expect(tag.status).toBe(400);
      expect(tag.body.details[0].path).toBe('/queryPlans/0/tagIds');
    });

    it('answers 400 for a bad title, a long description, a bad type, an unknown field and a wrong type', async () => {
      const plans = [{ tcaseIds: [] }];
      const cases: [Record<string, unknown>, string][] = [
        [{ title: '', type: 'static', queryPlans: plans }, '/title'],
        [{ title: '   ', type: 'static', queryPlans: plans }, '/title'],
        [{ title: 'x'.repeat(256), type: 'static', queryPlans: plans }, '/title'],
        [
          { title: 'Long desc', type: 'static', description: 'd'.repeat(513), queryPlans: plans },
          '/description',
        ],
        [{ title: 'Bad type', type: 'dynamic', queryPlans: plans }, '/type'],
        [{ title: 'Extra', type: 'static', queryPlans: plans, colour: 'red' }, '/colour'],
        [{ title: 'Wrong', type: 'static', queryPlans: plans, milestoneId: '1' }, '/milestoneId'],
        [
          { title: 'Bad prio', type: 'live', queryPlans: [{ priorities: ['urgent'] }] },
          '/queryPlans/0/priorities/0',
        ],
        [{ type: 'static', queryPlans: plans }, '/title'],
      ];
      for (const [body, path] of cases) {
        const res = await t.post(runsUrl(), body);
        expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      }
    });

    it('accepts a 255-character title and a 512-character description, and sanitises the description (D22)', async () => {
      const { id } = await createRun(t, P, { title: 't'.repeat(255), description: 'd'.repeat(512) });
      expect((await getRun(t, P, id)).title).toBe('t'.repeat(255));
      const clean = await createRun(t, P, { description: '<b>bold</b><script>alert(1)</script>' });
      expect((await getRun(t, P, clean.id)).description).toBe('<b>bold</b>');
    });

    it('answers 409 naming the conflicting run when the title is taken (D10)', async () => {
      const first = await createRun(t, P, { title: 'Nightly' });
      const res = await t.post(runsUrl(), { title: 'Nightly', type: 'live', queryPlans: [{}] });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      expect(res.body.message.endsWith(`conflicting run id: ${first.id}`)).toBe(true);
    });

    it('gives exactly one winner to concurrent creators of one title', async () => {
      const answers = await Promise.all(
        [1, 2, 3, 4].map(() =>
          t.post(runsUrl(), { title: 'Race', type: 'static_struct', queryPlans: [{ tcaseIds: [c.a.id] }] }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409]);
      const winner = answers.find((a) => a.status === 201)!.body.id;
      for (const loser of answers.filter((a) => a.status === 409)) {
        expect(loser.body.message.endsWith(`conflicting run id: ${winner}`)).toBe(true);
      }
    });

    it('stores milestone, assignee and configuration and shows them as related objects', async () => {
      const runner = await memberWithKey(t, 'test-runner', P);
      const { id } = await createRun(t, P, {
        milestoneId,
        assignmentId: runner.user.id,
        configurationId,
      });
      const run = await getRun(t, P, id);
      expect(run).toMatchObject({
        milestoneId,
        milestone: { title: 'M1' },
        assignmentId: runner.user.id,
        assignment: {
          id: runner.user.id,
          email: runner.user.email,
          name: runner.user.name,
          avatar: null,
          role: 'test-runner',
        },
        configurationId,
        configuration: {
          id: configurationId,
          title: 'Chrome',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      });
    });

    it('answers 400 for an unknown, archived or foreign milestone', async () => {
      const other = await createProject(t);
      const foreign = (await t.post(`/project/${other.code}/milestone`, { title: 'Foreign' })).body.id;
      for (const [mid, pattern] of [
        [999999, /does not exist/],
        [archivedMilestoneId, /archived/],
        [foreign, /does not exist/],
      ] as const) {
        const res = await t.post(runsUrl(), {
          title: `M ${mid}`,
          type: 'static',
          queryPlans: [{ tcaseIds: [] }],
          milestoneId: mid,
        });
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([{ path: '/milestoneId', message: expect.stringMatching(pattern) }]);
      }
    });

    it('answers 400 for an unknown, deactivated or viewer assignee', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const gone = await createUser(t.db, t.tenantId, {
        email: 'gone@example.com',
        name: 'Gone',
        role: 'user',
      });
      await t.db
        .updateTable('users')
        .set({ deactivated_at: new Date().toISOString() })
        .where('id', '=', gone.id)
        .execute();
      for (const [uid, pattern] of [
        [999999, /does not exist/],
        [gone.id, /deactivated/],
        [viewer.user.id, /viewer/],
      ] as const) {
        const res = await t.post(runsUrl(), {
          title: `A ${uid}`,
          type: 'static',
          queryPlans: [{ tcaseIds: [] }],
          assignmentId: uid,
        });
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([
          { path: '/assignmentId', message: expect.stringMatching(pattern) },
        ]);
      }
    });

    it('answers 400 for an unknown or foreign configuration', async () => {
      const other = await createProject(t);
      const foreign = (await t.post(`/project/${other.code}/configuration`, { title: 'Foreign' })).body.id;
      for (const cid of ['nosuchconfig', foreign]) {
        const res = await t.post(runsUrl(), {
          title: `C ${cid}`,
          type: 'static',
          queryPlans: [{ tcaseIds: [] }],
          configurationId: cid,
        });
        expect(res.status).toBe(400);
        expect(res.body.details[0].path).toBe('/configurationId');
      }
    });

    it('marks runs created through an API key as automated (D19) and through the web UI as not', async () => {
      const viaKey = await createRun(t, P);
      expect((await getRun(t, P, viaKey.id)).isAutomated).toBe(true);
      const login = await t.post(
        '/api/auth/login',
        { email: 'owner@example.com', password: 'owner-password' },
        { key: null },
      );
      expect(login.status).toBe(200);
      const viaSession = await t.post(
        runsUrl(),
        { title: 'From the UI', type: 'static', queryPlans: [{ tcaseIds: [] }] },
        { key: null, headers: { cookie: `session=${login.body.token}`, origin: 'http://casebook.test' } },
      );
      expect(viaSession.status).toBe(201);
      expect((await getRun(t, P, viaSession.body.id)).isAutomated).toBe(false);
    });

    it('answers 401 without a key, 403 for a viewer, a non-member and an archived project, 404 for an unknown project', async () => {
      const body = { title: 'Access', type: 'static', queryPlans: [{ tcaseIds: [] }] };
      expect((await t.post(runsUrl(), body, { key: null })).status).toBe(401);
      const viewer = await userWithKey(t, 'viewer');
      const viewerRes = await t.post(runsUrl(), body, { key: viewer.key });
      expect(viewerRes.status).toBe(403);
      expect(viewerRes.body.code).toBe('FORBIDDEN');
      const outsider = await userWithKey(t, 'test-runner');
      expect((await t.post(runsUrl(), body, { key: outsider.key })).status).toBe(403);
      const archived = await createProject(t);
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', archived.id)
        .execute();
      const arch = await t.post(`/project/${archived.code}/run`, body);
      expect(arch.status).toBe(403);
      expect(arch.body.message).toMatch(/archived/);
      const missing = await t.post('/project/NOPE1/run', body);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
    });

    it('lets a member test runner create a run', async () => {
      const runner = await userWithKey(t, 'test-runner');
      const project = await createProject(t, {}, [runner.user.id]);
      const res = await t.post(
        `/project/${project.code.toLowerCase()}/run`,
        { title: 'By runner', type: 'static', queryPlans: [{ tcaseIds: [] }] },
        { key: runner.key },
      );
      expect(res.status).toBe(201);
    });
  });

  describe('GET /project/:p/run', () => {
    let project: { code: string; id: string };
    let openRun: number;
    let closedRun: number;
    let milestoneRun: number;
    let case1: { id: string; seq: number };

    beforeAll(async () => {
      project = await createProject(t);
      case1 = await createTcase(t, project);
      const case2 = await createTcase(t, project);
      const ms = (await t.post(`/project/${project.code}/milestone`, { title: 'Release 1' })).body.id;
      openRun = (await createRun(t, project, { title: 'Open one', tcaseIds: [case1.id, case2.id] })).id;
      closedRun = (await createRun(t, project, { title: 'Closed one', tcaseIds: [case1.id] })).id;
      milestoneRun = (await createRun(t, project, { title: 'With milestone', milestoneId: ms })).id;
      await closeRun(t, project, closedRun);
    });

    it('lists every run, newest first, with every field of a run and all relations when include is absent', async () => {
      const res = await t.get(`/project/${project.code}/run`);
      expect(res.status).toBe(200);
      expect(res.body.runs.map((r: { id: number }) => r.id)).toEqual([milestoneRun, closedRun, openRun]);
      const run = res.body.runs.find((r: { id: number }) => r.id === openRun);
      expect(run).toEqual({
        id: openRun,
        type: 'static_struct',
        title: 'Open one',
        description: '',
        projectId: project.id,
        project: { id: project.id, code: project.code, title: expect.any(String) },
        planId: null,
        plan: null,
        milestoneId: null,
        milestone: null,
        assignmentId: null,
        assignment: null,
        configurationId: null,
        configuration: null,
        statusCounts: {
          all: 2,
          open: 2,
          passed: 0,
          failed: 0,
          blocked: 0,
          skipped: 0,
          custom1: 0,
          custom2: 0,
          custom3: 0,
          custom4: 0,
        },
        timeSpent: null,
        isAutomated: true,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        closed: false,
        closedAt: null,
        closedByUserId: null,
      });
      const closed = res.body.runs.find((r: { id: number }) => r.id === closedRun);
      expect(closed.closed).toBe(true);
      expect(closed.closedAt).toEqual(expect.any(String));
      expect(closed.closedByUserId).toBe(t.ownerId);
    });

    it('returns only the listed related objects and null for the others', async () => {
      const res = await t.get(`/project/${project.code}/run`, { query: { include: 'milestone' } });
      expect(res.status).toBe(200);
      const run = res.body.runs.find((r: { id: number }) => r.id === milestoneRun);
      expect(run.milestone).toEqual({ title: 'Release 1' });
      expect(run.project).toBeNull();
      expect(run.statusCounts).toBeNull();
      expect(run.milestoneId).toEqual(expect.any(Number));
      const two = await t.get(`/project/${project.code}/run`, {
        query: { include: ['project', 'statusCounts'] },
      });
      const r2 = two.body.runs.find((r: { id: number }) => r.id === openRun);
      expect(r2.project).toEqual({ id: project.id, code: project.code, title: expect.any(String) });
      expect(r2.statusCounts.all).toBe(2);
      expect(r2.milestone).toBeNull();
      const commas = await t.get(`/project/${project.code}/run?include=project,statusCounts`);
      expect(commas.body).toEqual(two.body);
    });

    it('answers 400 for an unknown include value', async () => {
      const res = await t.get(`/project/${project.code}/run`, { query: { include: 'tcases' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it('filters by closed state, by milestones (repeatable) and limits the count', async () => {
      const ids = async (query: Record<string, string | number | boolean | Array<string | number>>) =>
        (await t.get(`/project/${project.code}/run`, { query })).body.runs.map((r: { id: number }) => r.id);
      expect(await ids({ closed: true })).toEqual([closedRun]);
      expect(await ids({ closed: false })).toEqual([milestoneRun, openRun]);
      const ms = (await getRun(t, project, milestoneRun)).milestoneId;
      expect(await ids({ milestoneIds: [ms, 999999] })).toEqual([milestoneRun]);
      expect(await ids({ limit: 1 })).toEqual([milestoneRun]);
    });

    it('counts statuses from the results recorded', async () => {
      await addResult(t, project, openRun, case1.id, 'passed');
      const run = await getRun(t, project, openRun);
      expect(run.statusCounts).toMatchObject({ all: 2, open: 1, passed: 1 });
    });

    it('answers 404 for an unknown project and 403 for a non-member', async () => {
      expect((await t.get('/project/NOPE2/run')).status).toBe(404);
      const outsider = await userWithKey(t, 'user');
      expect((await t.get(`/project/${project.code}/run`, { key: outsider.key })).status).toBe(403);
    });

    it('lets a viewer member read the runs', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p2 = await createProject(t, {}, [viewer.user.id]);
      await createRun(t, p2);
      const res = await t.get(`/project/${p2.code}/run`, { key: viewer.key });
      expect(res.status).toBe(200);
      expect(res.body.runs).toHaveLength(1);
    });

    describe('GET /project/:p/run/:id', () => {
      it('answers one run exactly as the list shows it, every relation included when include is absent', async () => {
        const list = (await t.get(`/project/${project.code}/run`)).body.runs;
        for (const id of [openRun, closedRun, milestoneRun]) {
          const res = await t.get(`/project/${project.code}/run/${id}`);
          expect(res.status).toBe(200);
          expect(res.body).toEqual(list.find((r: { id: number }) => r.id === id));
        }
      });

      it('carries only the listed related objects, the others null', async () => {
        const res = await t.get(`/project/${project.code}/run/${milestoneRun}`, {
          query: { include: ['milestone', 'statusCounts'] },
        });
        expect(res.status).toBe(200);
        expect(res.body.milestone).toEqual({ title: 'Release 1' });
        expect(res.body.statusCounts.all).toBe(0);
        expect(res.body.project).toBeNull();
        expect(res.body.assignment).toBeNull();
      });

      it('answers 404 for an unknown run and for a run of another project, 400 for a bad id or include', async () => {
        const other = await createProject(t);
        const foreign = (await createRun(t, other)).id;
        for (const id of [999999, foreign]) {
          const res = await t.get(`/project/${project.code}/run/${id}`);
          expect(res.status).toBe(404);
          expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: `run ${id} not found` });
        }
        expect((await t.get(`/project/NOPE3/run/${openRun}`)).status).toBe(404);
        const bad = await t.get(`/project/${project.code}/run/abc`);
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe('VALIDATION_FAILED');
        const include = await t.get(`/project/${project.code}/run/${openRun}`, {
          query: { include: 'tcases' },
        });
        expect(include.status).toBe(400);
        expect(include.body.code).toBe('VALIDATION_FAILED');
      });

      it('lets a viewer member read a run and refuses a non-member', async () => {
        const viewer = await userWithKey(t, 'viewer');
        const p2 = await createProject(t, {}, [viewer.user.id]);
        const run = (await createRun(t, p2)).id;
        const res = await t.get(`/project/${p2.code}/run/${run}`, { key: viewer.key });
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(run);
        const outsider = await userWithKey(t, 'user');
        expect((await t.get(`/project/${p2.code}/run/${run}`, { key: outsider.key })).status).toBe(403);
      });
    });
  });

  describe('POST /project/:p/run/clone', () => {
    it('clones a static_struct run with its cases, all open again, and its relations by default', async () => {
      const runner = await memberWithKey(t, 'test-runner', P);
      const source = await createRun(t, P, {
        tcaseIds: [c.a.id, c.b.id],
        milestoneId,
        assignmentId: runner.user.id,
        configurationId,
        description: 'source text',
      });
      await addResult(t, P, source.id, c.a.id, 'failed');
      const res = await t.post(`${runsUrl()}/clone`, { runId: source.id, title: 'Clone of source' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number) });
      const clone = await getRun(t, P, res.body.id);
      expect(clone).toMatchObject({
        type: 'static_struct',
        title: 'Clone of source',
        description: 'source text',
        milestoneId,
        assignmentId: runner.user.id,
        configurationId,
        statusCounts: { all: 2, open: 2, failed: 0 },
        closedAt: null,
      });
      const items = await listRunTcases(t, P, res.body.id);
      expect(items.map((i) => i.id).sort()).toEqual([c.a.id, c.b.id].sort());
      expect(items.every((i) => i.status === 'open')).toBe(true);
    });

    it('keeps the query plans of a live run and reflects the test cases as they are now', async () => {
      const folder = await createFolder(t, P, ['Clone live']);
      const one = await createTcase(t, P, { folderId: folder });
      const source = await createRun(t, P, { type: 'live', queryPlans: [{ folderIds: [folder] }] });
      await closeRun(t, P, source.id);
      const two = await createTcase(t, P, { folderId: folder });
      const res = await t.post(`${runsUrl()}/clone`, {
        runId: source.id,
        title: 'Live clone',
        description: 'new',
      });
      expect(res.status).toBe(201);
      expect((await listRunTcases(t, P, source.id)).map((i) => i.id)).toEqual([one.id]);
      expect((await listRunTcases(t, P, res.body.id)).map((i) => i.id).sort()).toEqual(
        [one.id, two.id].sort(),
      );
      const clone = await getRun(t, P, res.body.id);
      expect(clone).toMatchObject({ type: 'live', description: 'new', closedAt: null });
      // The clone follows its plans from now on.
      const three = await createTcase(t, P, { folderId: folder });
      expect((await listRunTcases(t, P, res.body.id)).map((i) => i.id)).toContain(three.id);
    });

    it('overrides milestone and assignee when given', async () => {
      const source = await createRun(t, P, { milestoneId });
      const runner = await memberWithKey(t, 'user', P);
      const other = (await t.post(`/project/${P.code}/milestone`, { title: 'M2' })).body.id;
      const res = await t.post(`${runsUrl()}/clone`, {
        runId: source.id,
        title: 'Clone with overrides',
        milestoneId: other,
        assignmentId: runner.user.id,
      });
      expect(res.status).toBe(201);
      expect(await getRun(t, P, res.body.id)).toMatchObject({
        milestoneId: other,
        assignmentId: runner.user.id,
      });
    });

    it('answers 400 for an unknown run, a run of another project and a run of a test plan (D9)', async () => {
      const unknown = await t.post(`${runsUrl()}/clone`, { runId: 999999, title: 'Clone unknown' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details).toEqual([
        { path: '/runId', message: 'run 999999 does not exist in this project' },
      ]);
      const other = await createProject(t);
      const foreign = await createRun(t, other);
      expect((await t.post(`${runsUrl()}/clone`, { runId: foreign.id, title: 'Clone foreign' })).status).toBe(
        400,
      );
      const plan = await t.post(`/project/${P.code}/plan`, {
        title: 'Plan to clone from',
        runs: [{ title: 'Plan run', queryPlans: [{ tcaseIds: [c.a.id] }] }],
      });
      expect(plan.status).toBe(201);
      const planRunId = (await t.get(`/project/${P.code}/plan/${plan.body.id}`)).body.runs[0].id;
      const inPlan = await t.post(`${runsUrl()}/clone`, { runId: planRunId, title: 'Clone of plan run' });
      expect(inPlan.status).toBe(400);
      expect(inPlan.body.message).toMatch(/belongs to a test plan/);
    });

    it('answers 409 naming the conflicting run when the title is taken, and 400 for bad fields', async () => {
      const source = await createRun(t, P, { title: 'Clone source 2' });
      const res = await t.post(`${runsUrl()}/clone`, { runId: source.id, title: 'Clone source 2' });
      expect(res.status).toBe(409);
      expect(res.body.message.endsWith(`conflicting run id: ${source.id}`)).toBe(true);
      expect((await t.post(`${runsUrl()}/clone`, { runId: source.id, title: '' })).status).toBe(400);
      expect(
        (await t.post(`${runsUrl()}/clone`, { runId: source.id, title: 'x', type: 'live' })).status,
      ).toBe(400);
      const archived = await t.post(`${runsUrl()}/clone`, {
        runId: source.id,
        title: 'y',
        milestoneId: archivedMilestoneId,
      });
      expect(archived.status).toBe(400);
      const viewer = await userWithKey(t, 'viewer');
      expect(
        (await t.post(`${runsUrl()}/clone`, { runId: source.id, title: 'z' }, { key: viewer.key })).status,
      ).toBe(403);
    });
  });

  describe('POST /project/:p/run/:id/close', () => {
    it('answers 200 {"message":"Run closed"} to an empty body with a JSON content type, then 409', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [c.a.id] });
      const res = await t.request('POST', `${runsUrl()}/${id}/close`, {
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe('{"message":"Run closed"}');
      const run = await getRun(t, P, id);
      expect(run.closedAt).toEqual(expect.any(String));
      expect(run.closedByUserId).toBe(t.ownerId);
      const again = await t.post(`${runsUrl()}/${id}/close`);
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ code: 'CONFLICT', message: `run ${id} is already closed` });
    });

    it('answers 404 for an unknown run or a run of another project, 403 for a viewer', async () => {
      expect((await t.post(`${runsUrl()}/999999/close`)).status).toBe(404);
      const other = await createProject(t);
      const foreign = await createRun(t, other);
      const res = await t.post(`${runsUrl()}/${foreign.id}/close`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: `run ${foreign.id} not found` });
      const { id } = await createRun(t, P);
      const viewer = await userWithKey(t, 'viewer');
      expect((await t.post(`${runsUrl()}/${id}/close`, undefined, { key: viewer.key })).status).toBe(403);
      expect((await getRun(t, P, id)).closedAt).toBeNull();
    });
  });

  describe('POST /project/:p/run/:id/tcase/add and /remove', () => {
    it('adds test cases to an open static_struct run, ignoring those already in it', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [c.a.id] });
      const res = await t.post(`${runsUrl()}/${id}/tcase/add`, { tcaseIds: [c.a.id, c.b.id, c.b.id] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ added: 1 });
      expect((await listRunTcases(t, P, id)).map((i) => i.id).sort()).toEqual([c.a.id, c.b.id].sort());
      expect((await getRun(t, P, id)).statusCounts).toMatchObject({ all: 2, open: 2 });
    });

    it('removes test cases keeping their results, which come back when the case is added again', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [c.a.id, c.b.id] });
      await addResult(t, P, id, c.a.id, 'failed');
      const removed = await t.post(`${runsUrl()}/${id}/tcase/remove`, { tcaseIds: [c.a.id] });
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ removed: 1 });
      expect((await listRunTcases(t, P, id)).map((i) => i.id)).toEqual([c.b.id]);
      expect((await getRun(t, P, id)).statusCounts).toMatchObject({ all: 1, open: 1, failed: 0 });
      expect((await t.get(`${runsUrl()}/${id}/tcase/${c.a.id}`)).status).toBe(404);
      await t.post(`${runsUrl()}/${id}/tcase/add`, { tcaseIds: [c.a.id] });
      const back = (await listRunTcases(t, P, id)).find((i) => i.id === c.a.id);
      expect(back.status).toBe('failed');
      expect((await getRun(t, P, id)).statusCounts).toMatchObject({ all: 2, open: 1, failed: 1 });
      const detail = await t.get(`${runsUrl()}/${id}/tcase/${c.a.id}`);
      expect(detail.body.results.map((r: { status: string }) => r.status)).toEqual(['failed']);
    });

    it('answers 400 for cases that are not in the run, drafts and templates, changing nothing', async () => {
      const { id } = await createRun(t, P, { tcaseIds: [c.a.id] });
      const notIn = await t.post(`${runsUrl()}/${id}/tcase/remove`, { tcaseIds: [c.a.id, c.b.id] });
      expect(notIn.status).toBe(400);
      expect(notIn.body.details).toEqual([
        { path: '/tcaseIds', message: `test cases not in run ${id}: ${c.b.id}` },
      ]);
      const draft = await t.post(`${runsUrl()}/${id}/tcase/add`, { tcaseIds: [c.b.id, draftId] });
      expect(draft.status).toBe(400);
      expect(draft.body.message).toMatch(/draft/);
      const template = await t.post(`${runsUrl()}/${id}/tcase/add`, { tcaseIds: [templateId] });
      expect(template.status).toBe(400);
      expect((await t.post(`${runsUrl()}/${id}/tcase/add`, { tcaseIds: [] })).status).toBe(400);
      expect((await listRunTcases(t, P, id)).map((i) => i.id)).toEqual([c.a.id]);
    });

    it('answers 400 for static and live runs, 409 for a closed run, 404 for an unknown run', async () => {
      for (const body of [
        { type: 'static', queryPlans: [{ tcaseIds: [c.a.id] }] },
        { type: 'live', queryPlans: [{ priorities: ['high'] }] },
      ]) {
        const { id } = await createRun(t, P, body);
        const res = await t.post(`${runsUrl()}/${id}/tcase/add`, { tcaseIds: [c.b2.id] });
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/static_struct runs only/);
        expect((await t.post(`${runsUrl()}/${id}/tcase/remove`, { tcaseIds: [c.a.id] })).status).toBe(400);
      }
      const { id } = await createRun(t, P, { tcaseIds: [c.a.id] });
      await closeRun(t, P, id);
      const closed = await t.post(`${runsUrl()}/${id}/tcase/add`, { tcaseIds: [c.b.id] });
      expect(closed.status).toBe(409);
      expect(closed.body.message).toBe(`run ${id} is closed`);
      expect((await t.post(`${runsUrl()}/${id}/tcase/remove`, { tcaseIds: [c.a.id] })).status).toBe(409);
      expect((await t.post(`${runsUrl()}/999999/tcase/add`, { tcaseIds: [c.b.id] })).status).toBe(404);
    });
  });
});
