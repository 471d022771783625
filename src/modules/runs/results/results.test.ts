import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import * as timeSpentMigration from '../../../db/migrations/0007_run_time_spent.js';
import * as plainLinksMigration from '../../../db/migrations/0008_result_plain_links.js';
import * as linkRunsMigration from '../../../db/migrations/0020_result_link_runs.js';
import {
  refuseResultsWithComment,
  resultRowsOf,
  statementLog,
} from '../../../../test/helpers/statement-log.js';

let runCounter = 0;

/** Test cases created through the API in one folder; returns `{id, seq}` in order. */
async function makeTcases(t: TestEnv, code: string, titles: string[]) {
  const res = await t.post(`/project/${code}/tcase/bulk`, {
    folderPath: ['Suite'],
    tcases: titles.map((title) => ({ title, tags: [] })),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.tcases as { id: string; seq: number }[];
}

async function makeRun(t: TestEnv, code: string, tcaseIds: string[], type = 'static_struct') {
  const res = await t.post(`/project/${code}/run`, {
    title: `Run ${++runCounter}`,
    type,
    queryPlans: [{ tcaseIds }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

async function getRun(t: TestEnv, code: string, runId: number) {
  const res = await t.get(`/project/${code}/run`);
  expect(res.status).toBe(200);
  return res.body.runs.find((r: { id: number }) => r.id === runId);
}

async function runTcases(t: TestEnv, code: string, runId: number) {
  const res = await t.get(`/project/${code}/run/${runId}/tcase`);
  expect(res.status).toBe(200);
  return new Map<string, any>(res.body.tcases.map((tc: { id: string }) => [tc.id, tc]));
}

const counts = (over: Record<string, number>) => ({
  all: 0,
  open: 0,
  passed: 0,
  failed: 0,
  blocked: 0,
  skipped: 0,
  custom1: 0,
  custom2: 0,
  custom3: 0,
  custom4: 0,
  ...over,
});

async function countResults(t: TestEnv, runId: number): Promise<number> {
  const row = await t.db
    .selectFrom('results')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function archive(t: TestEnv, projectId: string, at: string | null) {
  await t.db.updateTable('projects').set({ archived_at: at }).where('id', '=', projectId).execute();
}

/** A project with three test cases and an open static_struct run holding them. */
async function scenario(t: TestEnv, type = 'static_struct') {
  const project = await createProject(t);
  const tcases = await makeTcases(t, project.code, ['Login works', 'Logout works', 'Signup works']);
  const runId = await makeRun(
    t,
    project.code,
    tcases.map((c) => c.id),
    type,
  );
  return { project, code: project.code, tcases, runId };
}

describeEachDb('results', (t) => {
  describe('POST /project/:p/run/:r/tcase/:ref/result', () => {
    it('answers 201 with the result id and moves the case status, isAutomated and statusCounts (D18)', async () => {
      const { code, tcases, runId } = await scenario(t);
      const before = await getRun(t, code, runId);
      expect(before.statusCounts).toEqual(counts({ all: 3, open: 3 }));

      const res = await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'failed',
        comment: '<p>Broken <script>alert(1)</script><b>badly</b></p>',
        timeTaken: 1500,
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number) });

      const run = await getRun(t, code, runId);
      expect(run.statusCounts).toEqual(counts({ all: 3, open: 2, failed: 1 }));
      const cases = await runTcases(t, code, runId);
      expect(cases.get(tcases[0].id)).toMatchObject({ status: 'failed', isAutomated: true });
      expect(cases.get(tcases[1].id)).toMatchObject({ status: 'open', isAutomated: false });

      const stored = await t.db
        .selectFrom('results')
        .selectAll()
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(stored).toMatchObject({
        run_id: runId,
        tcase_id: tcases[0].id,
        tcase_version: 1,
        status: 'failed',
        comment: '<p>Broken <b>badly</b></p>',
        time_taken: 1500,
        author_id: t.ownerId,
        internal: 0,
      });
      expect(stored.api_key_id).toEqual(expect.any(String));
    });

    it('shows the result in the run test case detail with apiKeyId set and internal false', async () => {
      const { user, key, keyId } = await userWithKey(t, 'test-runner');
      const project = await createProject(t, {}, [user.id]);
      const [tc] = await makeTcases(t, project.code, ['Detail case']);
      const runId = await makeRun(t, project.code, [tc.id]);
      const res = await t.post(
        `/project/${project.code}/run/${runId}/tcase/${tc.id}/result`,
        { status: 'passed', comment: '', timeTaken: null },
        { key },
      );
      expect(res.status).toBe(201);
      const detail = await t.get(`/project/${project.code}/run/${runId}/tcase/${tc.id}`);
      expect(detail.status).toBe(200);
      expect(detail.body.status).toBe('passed');
      expect(detail.body.results).toEqual([
        expect.objectContaining({
          id: res.body.id,
          tcaseId: tc.id,
          tcaseVersion: '1',
          authorId: user.id,
          status: 'passed',
          comment: '',
          timeTaken: null,
          apiKeyId: keyId,
          internal: false,
          links: [],
        }),
      ]);
    });

    it('finds the test case by zero-padded sequence number', async () => {
      const { code, tcases, runId } = await scenario(t);
      const padded = String(tcases[1].seq).padStart(3, '0');
      const res = await t.post(`/project/${code}/run/${runId}/tcase/${padded}/result`, {
        status: 'blocked',
        comment: 'waiting on backend',
      });
      expect(res.status).toBe(201);
      expect((await runTcases(t, code, runId)).get(tcases[1].id).status).toBe('blocked');
    });

    it('keeps the status of the latest result: failed, then passed, then open again', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`;
      for (const status of ['failed', 'passed']) {
        expect((await t.post(url, { status, comment: '' })).status).toBe(201);
      }
      expect((await runTcases(t, code, runId)).get(tcases[0].id).status).toBe('passed');
      expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, open: 2, passed: 1 }));
      expect((await t.post(url, { status: 'open', comment: 'retest' })).status).toBe(201);
      expect((await runTcases(t, code, runId)).get(tcases[0].id).status).toBe('open');
      expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, open: 3 }));
      expect(await countResults(t, runId)).toBe(3);
    });

    it('answers 404 for an unknown project, an unknown run, a run of another project and a case not in the run', async () => {
      const { code, tcases, runId } = await scenario(t);
      const other = await scenario(t);
      const [outside] = await makeTcases(t, code, ['Not in the run']);
      const body = { status: 'passed', comment: '' };
      const cases: [string, RegExp][] = [
        [`/project/NOPE1/run/${runId}/tcase/${tcases[0].id}/result`, /project "NOPE1" not found/],
        [`/project/${code}/run/999999/tcase/${tcases[0].id}/result`, /run 999999/],
        [`/project/${code}/run/${other.runId}/tcase/${tcases[0].id}/result`, /run/],
        [`/project/${code}/run/${runId}/tcase/${outside.id}/result`, /not found in run/],
        [`/project/${code}/run/${runId}/tcase/nosuchcase/result`, /not found in run/],
        [`/project/${code}/run/${runId}/tcase/99999/result`, /not found in run/],
      ];
      for (const [url, message] of cases) {
        const res = await t.post(url, body);
        expect(res.status, url).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
        expect(res.body.message, url).toMatch(message);
      }
      expect(await countResults(t, runId)).toBe(0);
    });

    it('answers 409 on a closed run and stores nothing', async () => {
      const { code, tcases, runId } = await scenario(t);
      expect((await t.post(`/project/${code}/run/${runId}/close`)).status).toBe(200);
      const res = await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'passed',
        comment: '',
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/closed/) });
      expect(await countResults(t, runId)).toBe(0);
    });

    it('answers 403 on an archived project and 201 again once it is unarchived', async () => {
      const { project, code, tcases, runId } = await scenario(t);
      await archive(t, project.id, new Date().toISOString());
      const url = `/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`;
      const res = await t.post(url, { status: 'passed', comment: '' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/archived/) });
      expect(await countResults(t, runId)).toBe(0);
      await archive(t, project.id, null);
      expect((await t.post(url, { status: 'passed', comment: '' })).status).toBe(201);
    });

    it('answers 401 without a key or with a bad key, and 403 to a viewer, a non-member and a restricted key', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`;
      const body = { status: 'passed', comment: '' };
      for (const key of [null, 'not-a-key', `${t.tenantId}.nokey.secret`]) {
        const res = await t.post(url, body, { key });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('UNAUTHORIZED');
      }
      const viewer = await userWithKey(t, 'viewer');
      const outsider = await userWithKey(t, 'test-runner');
      const siem = await userWithKey(t, 'admin', { keyName: 'SIEM-LOG-ONLY reader' });
      for (const key of [viewer.key, outsider.key, siem.key]) {
        const res = await t.post(url, body, { key });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      }
      expect(await countResults(t, runId)).toBe(0);
    });

    it('answers 400 for a bad body: missing status, unknown status or field, wrong types, negative time, bad link', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`;
      const bad: [unknown, string][] = [
        [{ comment: '' }, '/status'],
        [{ status: 'green', comment: '' }, '/status'],
        [{ status: 'passed', comment: '', colour: 'red' }, '/colour'],
        [{ status: 'passed', comment: 5 }, '/comment'],
        [{ status: 'passed', comment: '', timeTaken: '5' }, '/timeTaken'],
        [{ status: 'passed', comment: '', timeTaken: -1 }, '/timeTaken'],
        [{ status: 'passed', links: [{ url: 'https://x.test/1' }] }, '/links/0/text'],
        [{ status: 'passed', links: [{ text: 'log' }] }, '/links/0/url'],
        [
          { status: 'passed', links: [{ text: 'log', url: 'https://x.test/1', integrationId: '' }] },
          '/links/0/integrationId',
        ],
      ];
      for (const [body, path] of bad) {
        const res = await t.post(url, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details[0].path, JSON.stringify(body)).toBe(path);
      }
      expect(await countResults(t, runId)).toBe(0);
    });

    it('answers 400 for an inactive custom status and accepts it once activated (D23)', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`;
      const res = await t.post(url, { status: 'custom2', comment: '' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { path: '/status', message: expect.stringMatching(/custom2 is not active/) },
      ]);
      const activate = await t.post('/settings/preferences/status', {
        statuses: [{ id: 'custom2', name: 'Flaky', color: 'purple', isActive: true }],
      });
      expect(activate.status).toBe(200);
      expect((await t.post(url, { status: 'custom2', comment: '' })).status).toBe(201);
      expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, open: 2, custom2: 1 }));
      await t.post('/settings/preferences/status', {
        statuses: [{ id: 'custom2', name: 'Flaky', color: 'purple', isActive: false }],
      });
    });
  });

  describe('results without comment (D26)', () => {
    it('stores a missing comment as "" on a single result, in a batch and in a group commit', async () => {
      const { code, tcases, runId } = await scenario(t);
      const single = await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'passed',
      });
      expect(single.status, JSON.stringify(single.body)).toBe(201);
      const batch = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[1].id, status: 'failed' },
          { tcaseId: tcases[2].id, status: 'blocked', comment: '<b>kept</b>' },
        ],
      });
      expect(batch.status, JSON.stringify(batch.body)).toBe(201);
      const together = await Promise.all(
        tcases.map((c) =>
          t.post(`/project/${code}/run/${runId}/tcase/${c.id}/result`, { status: 'skipped', timeTaken: 5 }),
        ),
      );
      expect(together.map((r) => r.status)).toEqual([201, 201, 201]);

      const stored = await t.db
        .selectFrom('results')
        .select(['id', 'status', 'comment'])
        .where('run_id', '=', runId)
        .orderBy('id')
        .execute();
      expect(stored.map((r) => [r.status, r.comment])).toEqual([
        ['passed', ''],
        ['failed', ''],
        ['blocked', '<b>kept</b>'],
        ['skipped', ''],
        ['skipped', ''],
        ['skipped', ''],
      ]);
      expect(stored[0].id).toBe(single.body.id);
      expect(stored.slice(1, 3).map((r) => r.id)).toEqual(batch.body.ids);
      expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, skipped: 3 }));
      const detail = await t.get(`/project/${code}/run/${runId}/tcase/${tcases[0].id}`);
      expect(detail.body.results.map((r: { comment: string }) => r.comment)).toEqual(['', '']);
    });
  });

  describe('run timeSpent', () => {
    it('stays null until a result has a timeTaken, then adds up every result’s time, batches included', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = (id: string) => `/project/${code}/run/${runId}/tcase/${id}/result`;
      expect((await getRun(t, code, runId)).timeSpent).toBeNull();

      await t.post(url(tcases[0].id), { status: 'passed', comment: '', timeTaken: null });
      await t.post(url(tcases[1].id), { status: 'passed', comment: '' });
      expect((await getRun(t, code, runId)).timeSpent).toBeNull();

      expect(
        (await t.post(url(tcases[0].id), { status: 'failed', comment: '', timeTaken: 1500 })).status,
      ).toBe(201);
      const batch = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[1].id, status: 'passed', comment: '', timeTaken: 250 },
          { tcaseId: tcases[2].id, status: 'blocked', comment: '', timeTaken: null },
          // A second result for the same case: its time was spent too.
          { tcaseId: tcases[1].id, status: 'failed', comment: '', timeTaken: 2_000_000_000 },
          { tcaseId: tcases[2].id, status: 'failed', comment: '', timeTaken: 2_000_000_000 },
        ],
      });
      expect(batch.status).toBe(201);
      // Past 2^31 ms: stored whole on both databases.
      expect((await getRun(t, code, runId)).timeSpent).toBe(1500 + 250 + 4_000_000_000);
    });

    it('is filled in by migration 0007 for runs whose results came before it', async () => {
      const { code, tcases, runId } = await scenario(t);
      await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[0].id, status: 'passed', comment: '', timeTaken: 70 },
          { tcaseId: tcases[1].id, status: 'passed', comment: '', timeTaken: 30 },
        ],
      });
      // As a run recorded before the migration looks: results, no timeSpent.
      await t.db.updateTable('runs').set({ time_spent: null }).where('id', '=', runId).execute();
      await timeSpentMigration.up(t.db);
      expect((await getRun(t, code, runId)).timeSpent).toBe(100);
    });

    it('leaves timeSpent unchanged when a batch is refused', async () => {
      const { code, tcases, runId } = await scenario(t);
      await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'passed',
        comment: '',
        timeTaken: 40,
      });
      const refused = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[1].id, status: 'passed', comment: '', timeTaken: 60 },
          { tcaseId: 'no-such-case', status: 'passed', comment: '', timeTaken: 60 },
        ],
      });
      expect(refused.status).toBe(400);
      expect((await getRun(t, code, runId)).timeSpent).toBe(40);
    });
  });

  describe('result links (D24)', () => {
    async function linkedIntegration(projectId: string) {
      const id = `int${Date.now().toString(36)}${++runCounter}`;
      const now = new Date().toISOString();
      await t.db
        .insertInto('integrations')
        .values({
          id,
          tenant_id: t.tenantId,
          name: `Tracker ${id}`,
          type: 'tracker_a',
          config: '{}',
          token_enc: null,
          created_by: t.ownerId,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await t.db
        .insertInto('integration_projects')
        .values({
          tenant_id: t.tenantId,
          project_id: projectId,
          integration_id: id,
          type: 'tracker_a',
          config: '{}',
          created_at: now,
          updated_at: now,
        })
        .execute();
      return id;
    }

    it('stores links to an integration linked to the project', async () => {
      const { project, code, tcases, runId } = await scenario(t);
      const integrationId = await linkedIntegration(project.id);
      const res = await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'failed',
        comment: '',
        links: [
          { integrationId, url: 'https://tracker.test/issues/12', text: 'Login broken', meta: { id: '12' } },
        ],
      });
      expect(res.status).toBe(201);
      const links = await t.db
        .selectFrom('result_links')
        .selectAll()
        .where('result_id', '=', res.body.id)
        .execute();
      expect(links).toEqual([
        expect.objectContaining({
          integration_id: integrationId,
          url: 'https://tracker.test/issues/12',
          text: 'Login broken',
          meta: '{"id":"12"}',
        }),
      ]);
    });

    it('answers 400 naming the link for an integration not linked to the project, a bad url or a non-string meta.id', async () => {
      const { project, code, tcases, runId } = await scenario(t);
      const other = await createProject(t);
      const foreign = await linkedIntegration(other.id);
      const mine = await linkedIntegration(project.id);
      const url = `/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`;
      const bad: [unknown, string, RegExp][] = [
        [
          { integrationId: foreign, url: 'https://t.test/1', text: 'x' },
          '/links/0/integrationId',
          /not linked/,
        ],
        [
          { integrationId: 'nope', url: 'https://t.test/1', text: 'x' },
          '/links/0/integrationId',
          /not linked/,
        ],
        [{ integrationId: mine, url: 'javascript:alert(1)', text: 'x' }, '/links/0/url', /http/],
        [
          { integrationId: mine, url: 'https://t.test/1', text: 'x', meta: { id: 12 } },
          '/links/0/meta/id',
          /string/,
        ],
      ];
      for (const [link, path, message] of bad) {
        const res = await t.post(url, { status: 'failed', comment: '', links: [link] });
        expect(res.status, JSON.stringify(link)).toBe(400);
        expect(res.body.details).toEqual([{ path, message: expect.stringMatching(message) }]);
      }
      expect(await countResults(t, runId)).toBe(0);
    });
    it('stores a plain link (no integrationId) with no integration and shows it without the integration keys', async () => {
      const { project, code, tcases, runId } = await scenario(t);
      const integrationId = await linkedIntegration(project.id);
      const res = await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'failed',
        links: [
          { text: 'CI log', url: 'https://ci.test/jobs/7/log' },
          { integrationId, url: 'https://tracker.test/issues/12', text: 'Login broken' },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const stored = await t.db
        .selectFrom('result_links')
        .select(['integration_id', 'url', 'text', 'meta'])
        .where('result_id', '=', res.body.id)
        .orderBy('id')
        .execute();
      expect(stored).toEqual([
        { integration_id: null, url: 'https://ci.test/jobs/7/log', text: 'CI log', meta: '{}' },
        {
          integration_id: integrationId,
          url: 'https://tracker.test/issues/12',
          text: 'Login broken',
          meta: '{}',
        },
      ]);

      const detail = await t.get(`/project/${code}/run/${runId}/tcase/${tcases[0].id}`);
      expect(detail.status).toBe(200);
      const [plain, tracked] = detail.body.results[0].links;
      expect(plain).toEqual({
        id: expect.any(Number),
        resultId: res.body.id,
        url: 'https://ci.test/jobs/7/log',
        text: 'CI log',
        meta: {},
      });
      expect(tracked).toMatchObject({
        integrationId,
        integration: { id: integrationId, type: 'tracker_a' },
        url: 'https://tracker.test/issues/12',
      });
    });

    it('takes plain links in a batch and through single results that arrive together (group commit)', async () => {
      const { code, tcases, runId } = await scenario(t);
      const batch = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[0].id, status: 'passed', links: [{ text: 'Job', url: 'http://ci.test/1' }] },
          { tcaseId: tcases[1].id, status: 'failed', links: [{ text: '', url: 'https://ci.test/2' }] },
        ],
      });
      expect(batch.status, JSON.stringify(batch.body)).toBe(201);
      const together = await Promise.all(
        tcases.map((c, i) =>
          t.post(`/project/${code}/run/${runId}/tcase/${c.id}/result`, {
            status: 'passed',
            links: [{ text: `Run ${i}`, url: `https://ci.test/run/${i}` }],
          }),
        ),
      );
      expect(together.map((r) => r.status)).toEqual([201, 201, 201]);
      const stored = await t.db
        .selectFrom('result_links')
        .innerJoin('results', 'results.id', 'result_links.result_id')
        .select(['result_links.integration_id', 'result_links.url', 'result_links.text'])
        .where('results.run_id', '=', runId)
        .orderBy('result_links.id')
        .execute();
      // Results that arrive together are written in arrival order, which the test does not control.
      expect(stored.slice(0, 2)).toEqual([
        { integration_id: null, url: 'http://ci.test/1', text: 'Job' },
        { integration_id: null, url: 'https://ci.test/2', text: '' },
      ]);
      expect(stored.slice(2).sort((x, y) => x.url.localeCompare(y.url))).toEqual(
        [0, 1, 2].map((i) => ({ integration_id: null, url: `https://ci.test/run/${i}`, text: `Run ${i}` })),
      );
    });

    it('answers 400 naming the plain link for a url that is not absolute http(s) or too long, or a text too long', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`;
      const long = `https://ci.test/${'a'.repeat(2048 - 'https://ci.test/'.length)}`;
      const bad: [unknown, string][] = [
        [{ text: 'x', url: 'javascript:alert(1)' }, '/links/0/url'],
        [{ text: 'x', url: 'ftp://ci.test/log' }, '/links/0/url'],
        [{ text: 'x', url: '/jobs/7' }, '/links/0/url'],
        [{ text: 'x', url: '' }, '/links/0/url'],
        [{ text: 'x', url: `${long}b` }, '/links/0/url'],
        [{ text: 'x'.repeat(1025), url: 'https://ci.test/1' }, '/links/0/text'],
        [{ text: 'x', url: 'https://ci.test/1', colour: 'red' }, '/links/0/colour'],
      ];
      for (const [link, path] of bad) {
        const res = await t.post(url, { status: 'failed', links: [link] });
        expect(res.status, JSON.stringify(link).slice(0, 80)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details[0].path).toBe(path);
      }
      const batch = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[0].id, status: 'passed', links: [{ text: 'ok', url: 'https://ci.test/1' }] },
          { tcaseId: tcases[1].id, status: 'passed', links: [{ text: 'bad', url: 'mailto:a@b.test' }] },
        ],
      });
      expect(batch.status).toBe(400);
      expect(batch.body.details).toEqual([
        { path: '/items/1/links/0/url', message: expect.stringMatching(/http/) },
      ]);
      expect(await countResults(t, runId)).toBe(0);

      // The limits themselves are accepted.
      const edge = await t.post(url, { status: 'failed', links: [{ text: 'x'.repeat(1024), url: long }] });
      expect(edge.status, JSON.stringify(edge.body)).toBe(201);
    });

    it('keeps plain links through migration 0008 down (which drops them) and up again', async () => {
      const { project, code, tcases, runId } = await scenario(t);
      const integrationId = await linkedIntegration(project.id);
      const res = await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'failed',
        links: [
          { integrationId, url: 'https://tracker.test/issues/1', text: 'Bug 1' },
          { text: 'CI log', url: 'https://ci.test/log' },
        ],
      });
      expect(res.status).toBe(201);
      const linksOf = () =>
        t.db
          .selectFrom('result_links')
          .select(['id', 'integration_id', 'url'])
          .where('result_id', '=', res.body.id)
          .orderBy('id')
          .execute();
      const before = await linksOf();

      // 0008 rebuilds the table as it knew it: the later link column (0020) is taken off first and put back after.
      await linkRunsMigration.down(t.db);
      await plainLinksMigration.down(t.db);
      // Down keeps the links to an integration, with their ids, and the column is required again.
      expect(await linksOf()).toEqual([before[0]]);
      // Raw SQL: the table as 0008 left it has no run_id, which the table type now asks for.
      await expect(
        sql`insert into result_links (tenant_id, result_id, integration_id, url, text, meta)
          values (${t.tenantId}, ${res.body.id}, ${null}, 'https://x.test', '', '{}')`.execute(t.db),
      ).rejects.toThrow();

      await plainLinksMigration.up(t.db);
      await linkRunsMigration.up(t.db);
      expect(await linksOf()).toEqual([before[0]]);
      const again = await t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'passed',
        links: [{ text: 'CI log', url: 'https://ci.test/log2' }],
      });
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      const [link] = await t.db
        .selectFrom('result_links')
        .select(['id', 'integration_id'])
        .where('result_id', '=', again.body.id)
        .execute();
      // Ids go on from where they were: the rebuilt table kept the high-water mark.
      expect(link).toEqual({ id: expect.any(Number), integration_id: null });
      expect(link.id).toBeGreaterThan(before[1].id);
    });
  });

  describe('version pinning (D17, D18)', () => {
    const rename = async (code: string, id: string, title: string) => {
      const res = await t.patch(`/project/${code}/tcase/${id}`, { title });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };

    it('static_struct: a result on an open case records and pins the shown version; later edits reach only open cases', async () => {
      const { code, tcases, runId } = await scenario(t);
      const [a, b] = tcases;
      await rename(code, a.id, 'Login works v2');
      await rename(code, b.id, 'Logout works v2');
      let cases = await runTcases(t, code, runId);
      expect(cases.get(a.id)).toMatchObject({ version: 2, title: 'Login works v2' });

      const res = await t.post(`/project/${code}/run/${runId}/tcase/${a.id}/result`, {
        status: 'failed',
        comment: '',
      });
      expect(res.status).toBe(201);
      await rename(code, a.id, 'Login works v3');
      await rename(code, b.id, 'Logout works v3');
      cases = await runTcases(t, code, runId);
      expect(cases.get(a.id)).toMatchObject({ version: 2, title: 'Login works v2', status: 'failed' });
      expect(cases.get(b.id)).toMatchObject({ version: 3, title: 'Logout works v3', status: 'open' });
      const detail = await t.get(`/project/${code}/run/${runId}/tcase/${a.id}`);
      expect(detail.body.results.map((r: { tcaseVersion: string }) => r.tcaseVersion)).toEqual(['2']);

      // An `open` result records the pinned version and un-pins: the latest shows again.
      await t.post(`/project/${code}/run/${runId}/tcase/${a.id}/result`, { status: 'open', comment: '' });
      cases = await runTcases(t, code, runId);
      expect(cases.get(a.id)).toMatchObject({ version: 3, title: 'Login works v3', status: 'open' });
      const after = await t.get(`/project/${code}/run/${runId}/tcase/${a.id}`);
      expect(after.body.results.map((r: { tcaseVersion: string }) => r.tcaseVersion)).toEqual(['2', '2']);
    });

    it('static: results record the version fixed at creation, and edits never reach the run', async () => {
      const { code, tcases, runId } = await scenario(t, 'static');
      const [a] = tcases;
      await rename(code, a.id, 'Login works v2');
      await t.post(`/project/${code}/run/${runId}/tcase/${a.id}/result`, { status: 'open', comment: '' });
      await t.post(`/project/${code}/run/${runId}/tcase/${a.id}/result`, { status: 'passed', comment: '' });
      const cases = await runTcases(t, code, runId);
      expect(cases.get(a.id)).toMatchObject({ version: 1, title: 'Login works', status: 'passed' });
      const rows = await t.db
        .selectFrom('results')
        .select('tcase_version')
        .where('run_id', '=', runId)
        .orderBy('id')
        .execute();
      expect(rows.map((r) => r.tcase_version)).toEqual([1, 1]);
    });
  });

  describe('POST /project/:p/run/:r/result/batch', () => {
    it('answers 201 with ids in item order, one result per item even for a repeated case; the last decides', async () => {
      const { code, tcases, runId } = await scenario(t);
      const [a, b, c] = tcases;
      const res = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: a.id, status: 'failed', comment: 'first try', timeTaken: 10 },
          { tcaseId: b.id, status: 'skipped', comment: '', timeTaken: null },
          { tcaseId: a.id, status: 'passed', comment: 'second try' },
          { tcaseId: String(c.seq), status: 'blocked', comment: '' },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body.ids).toHaveLength(4);
      expect([...res.body.ids].sort((x: number, y: number) => x - y)).toEqual(res.body.ids);

      const rows = await t.db
        .selectFrom('results')
        .select(['id', 'tcase_id', 'status', 'comment', 'time_taken'])
        .where('run_id', '=', runId)
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: res.body.ids[0], tcase_id: a.id, status: 'failed', comment: 'first try', time_taken: 10 },
        { id: res.body.ids[1], tcase_id: b.id, status: 'skipped', comment: '', time_taken: null },
        { id: res.body.ids[2], tcase_id: a.id, status: 'passed', comment: 'second try', time_taken: null },
        { id: res.body.ids[3], tcase_id: c.id, status: 'blocked', comment: '', time_taken: null },
      ]);
      const cases = await runTcases(t, code, runId);
      expect(cases.get(a.id)).toMatchObject({ status: 'passed', isAutomated: true });
      expect(cases.get(b.id).status).toBe('skipped');
      expect(cases.get(c.id).status).toBe('blocked');
      expect((await getRun(t, code, runId)).statusCounts).toEqual(
        counts({ all: 3, passed: 1, skipped: 1, blocked: 1 }),
      );
      const latest = await t.db
        .selectFrom('run_tcases')
        .select('latest_result_id')
        .where('run_id', '=', runId)
        .where('tcase_id', '=', a.id)
        .executeTakeFirstOrThrow();
      expect(latest.latest_result_id).toBe(res.body.ids[2]);
    });

    it('names test cases by id, seq or legacy id; a seq beats a legacy id that looks the same', async () => {
      const { code, tcases, runId } = await scenario(t);
      const [a, b, c] = tcases;
      const setLegacy = (id: string, legacy: string) =>
        t.db.updateTable('tcases').set({ legacy_id: legacy }).where('id', '=', id).execute();
      await setLegacy(a.id, String(b.seq));
      await setLegacy(c.id, 'OLD-7');
      const res = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: String(b.seq).padStart(4, '0'), status: 'failed', comment: '' },
          { tcaseId: 'OLD-7', status: 'skipped', comment: '' },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const cases = await runTcases(t, code, runId);
      expect([a, b, c].map((x) => cases.get(x.id).status)).toEqual(['open', 'failed', 'skipped']);
    });

    it('validates the whole batch first: one bad item stores nothing and each problem names its item (D11)', async () => {
      const { code, tcases, runId } = await scenario(t);
      const [, outside] = await makeTcases(t, code, ['x', 'Not in the run']);
      await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [{ tcaseId: tcases[2].id, status: 'failed', comment: '' }],
      });
      const before = await countResults(t, runId);
      const res = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[0].id, status: 'passed', comment: '' },
          { tcaseId: tcases[1].id, status: 'custom3', comment: '' },
          { tcaseId: tcases[0].id, status: 'passed', comment: '' },
          { tcaseId: outside.id, status: 'passed', comment: '' },
          { tcaseId: 'nosuchcase', status: 'passed', comment: '' },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details).toEqual([
        { path: '/items/1/status', message: expect.stringMatching(/custom3 is not active/) },
        { path: '/items/3/tcaseId', message: `test case "${outside.id}" is not in run ${runId}` },
        { path: '/items/4/tcaseId', message: `test case "nosuchcase" is not in run ${runId}` },
      ]);
      expect(res.body.message).toContain('/items/3/tcaseId');
      expect(await countResults(t, runId)).toBe(before);
      const cases = await runTcases(t, code, runId);
      expect(cases.get(tcases[0].id).status).toBe('open');
      expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, open: 2, failed: 1 }));
    });

    it('answers 400 naming the item for a schema problem in one item', async () => {
      const { code, tcases, runId } = await scenario(t);
      const res = await t.post(`/project/${code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[0].id, status: 'passed', comment: '' },
          { tcaseId: tcases[1].id, status: 'passed', comment: 5 },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('/items/1/comment');
      expect(await countResults(t, runId)).toBe(0);
    });

    it('answers 400 for an empty batch, a missing tcaseId and more than 5,000 items; accepts exactly 5,000', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/result/batch`;
      const empty = await t.post(url, { items: [] });
      expect(empty.status).toBe(400);
      expect(empty.body.details[0].path).toBe('/items');
      const missing = await t.post(url, { items: [{ status: 'passed', comment: '' }] });
      expect(missing.status).toBe(400);
      expect(missing.body.details[0].path).toBe('/items/0/tcaseId');

      const item = (i: number) => ({
        tcaseId: tcases[i % 3].id,
        status: ['passed', 'failed', 'skipped', 'blocked'][i % 4],
        comment: `run ${i}`,
        timeTaken: i,
      });
      const tooMany = await t.post(url, { items: Array.from({ length: 5001 }, (_, i) => item(i)) });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.details[0].path).toBe('/items');
      expect(await countResults(t, runId)).toBe(0);

      const ok = await t.post(url, { items: Array.from({ length: 5000 }, (_, i) => item(i)) });
      expect(ok.status).toBe(201);
      expect(ok.body.ids).toHaveLength(5000);
      expect(new Set(ok.body.ids).size).toBe(5000);
      expect(await countResults(t, runId)).toBe(5000);
      // The last items for cases 0, 1, 2 are 4998 (skipped), 4999 (blocked) and 4997 (failed).
      const cases = await runTcases(t, code, runId);
      expect(cases.get(tcases[0].id).status).toBe('skipped');
      expect(cases.get(tcases[1].id).status).toBe('blocked');
      expect(cases.get(tcases[2].id).status).toBe('failed');
      expect((await getRun(t, code, runId)).statusCounts).toEqual(
        counts({ all: 3, blocked: 1, failed: 1, skipped: 1 }),
      );
      const last = await t.db
        .selectFrom('results')
        .select(['comment', 'time_taken'])
        .where('id', '=', ok.body.ids[4999])
        .executeTakeFirstOrThrow();
      expect(last).toEqual({ comment: 'run 4999', time_taken: 4999 });
    });

    it('answers 404 only for the project or the run, 409 on a closed run and 403 on an archived project', async () => {
      const { project, code, tcases, runId } = await scenario(t);
      const other = await scenario(t);
      const body = { items: [{ tcaseId: tcases[0].id, status: 'passed', comment: '' }] };
      for (const url of [
        `/project/NOPE2/run/${runId}/result/batch`,
        `/project/${code}/run/999999/result/batch`,
        `/project/${code}/run/${other.runId}/result/batch`,
      ]) {
        const res = await t.post(url, body);
        expect(res.status, url).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
      await archive(t, project.id, new Date().toISOString());
      const archived = await t.post(`/project/${code}/run/${runId}/result/batch`, body);
      expect(archived.status).toBe(403);
      expect(archived.body.message).toMatch(/archived/);
      await archive(t, project.id, null);
      await t.post(`/project/${code}/run/${runId}/close`);
      const closed = await t.post(`/project/${code}/run/${runId}/result/batch`, body);
      expect(closed.status).toBe(409);
      expect(closed.body.code).toBe('CONFLICT');
      expect(await countResults(t, runId)).toBe(0);
    });

    it('answers 401 without a key and 403 to a viewer', async () => {
      const { code, tcases, runId } = await scenario(t);
      const body = { items: [{ tcaseId: tcases[0].id, status: 'passed', comment: '' }] };
      const url = `/project/${code}/run/${runId}/result/batch`;
      expect((await t.post(url, body, { key: null })).status).toBe(401);
      const viewer = await userWithKey(t, 'viewer');
      const res = await t.post(url, body, { key: viewer.key });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect(await countResults(t, runId)).toBe(0);
    });

    it('keeps the counters exact when batches for one run arrive at the same time', async () => {
      const { code, tcases, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/result/batch`;
      const statuses = ['passed', 'failed', 'blocked', 'skipped'];
      const responses = await Promise.all(
        statuses.map((status) =>
          t.post(url, { items: tcases.map((c) => ({ tcaseId: c.id, status, comment: '' })) }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      const run = await getRun(t, code, runId);
      const cases = [...(await runTcases(t, code, runId)).values()];
      const expected: Record<string, number> = { all: 3 };
      for (const c of cases) expected[c.status] = (expected[c.status] ?? 0) + 1;
      expect(run.statusCounts).toEqual(counts(expected));
      expect(await countResults(t, runId)).toBe(12);
    });
  });
});

/** What the app's group commit did, seen in its statements: how many results each insert wrote. */
const statements = statementLog();
const resultInserts = () => statements.statements().filter((s) => resultRowsOf(s) > 0);

describeEachDb(
  'results of single calls arriving together',
  (t) => {
    // Single results that arrive together share one commit (results.group-commit.ts).
    describe('single results posted at the same time', () => {
      it('records every one with its own author and key; each case shows its last result and the counters agree', async () => {
        const { user, key, keyId } = await userWithKey(t, 'test-runner');
        const project = await createProject(t, {}, [user.id]);
        const tcases = await makeTcases(t, project.code, ['A', 'B', 'C', 'D']);
        const runId = await makeRun(
          t,
          project.code,
          tcases.map((c) => c.id),
        );
        const url = (id: string) => `/project/${project.code}/run/${runId}/tcase/${id}/result`;
        // 40 results, four per case and status mixed, half from the owner and half from the runner.
        const posts = Array.from({ length: 40 }, (_, i) => ({
          tcase: tcases[i % 4].id,
          status: ['failed', 'passed', 'blocked'][i % 3],
          key: i % 2 === 0 ? undefined : key,
        }));
        statements.clear();
        const responses = await Promise.all(
          posts.map((p) => t.post(url(p.tcase), { status: p.status, comment: '' }, { key: p.key })),
        );
        expect(responses.map((r) => r.status)).toEqual(posts.map(() => 201));
        // They did share transactions: fewer inserts than results, and one wrote several at once.
        expect(resultInserts().length).toBeLessThan(40);
        expect(Math.max(...resultInserts().map(resultRowsOf))).toBeGreaterThan(1);
        const ids = responses.map((r) => r.body.id as number);
        expect(new Set(ids).size).toBe(40);
        // Requests finish their checks in any order; whatever order they reached the database in, each case
        // shows the status of its last result (highest id), and the counters agree with the cases.
        const lastStatus = new Map<string, { id: number; status: string }>();
        posts.forEach((p, i) => {
          const seen = lastStatus.get(p.tcase);
          if (!seen || seen.id < ids[i]) lastStatus.set(p.tcase, { id: ids[i], status: p.status });
        });
        const cases = await runTcases(t, project.code, runId);
        const expected: Record<string, number> = { all: 4 };
        for (const c of tcases) {
          const status = lastStatus.get(c.id)!.status;
          expect(cases.get(c.id)).toMatchObject({ status, isAutomated: true });
          expected[status] = (expected[status] ?? 0) + 1;
        }
        expect((await getRun(t, project.code, runId)).statusCounts).toEqual(counts(expected));
        expect(await countResults(t, runId)).toBe(40);

        const stored = await t.db
          .selectFrom('results')
          .select(['id', 'author_id', 'api_key_id'])
          .where('run_id', '=', runId)
          .orderBy('id')
          .execute();
        expect(stored).toHaveLength(40);
        for (const row of stored) {
          const i = ids.indexOf(row.id);
          expect(row.author_id).toBe(posts[i].key ? user.id : t.ownerId);
          if (posts[i].key) expect(row.api_key_id).toBe(keyId);
          else expect(row.api_key_id).not.toBe(keyId);
        }
      });

      it('answers 404 only to the result whose case is not in the run and records the others beside it', async () => {
        const { code, tcases, runId } = await scenario(t);
        const outside = (await makeTcases(t, code, ['Not in the run']))[0];
        const targets = [tcases[0].id, outside.id, tcases[1].id, tcases[2].id];
        const responses = await Promise.all(
          targets.map((id) =>
            t.post(`/project/${code}/run/${runId}/tcase/${id}/result`, { status: 'blocked', comment: 'x' }),
          ),
        );
        expect(responses.map((r) => r.status)).toEqual([201, 404, 201, 201]);
        expect(responses[1].body).toMatchObject({
          code: 'NOT_FOUND',
          message: expect.stringContaining(outside.id),
        });
        expect(await countResults(t, runId)).toBe(3);
        expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, blocked: 3 }));
      });

      it('gives each caller its own answer (201, 409 closed run, 403 non-member, 404 unknown run) when they arrive together', async () => {
        const { code, tcases, runId } = await scenario(t);
        const closedRun = await makeRun(
          t,
          code,
          tcases.map((c) => c.id),
        );
        expect((await t.post(`/project/${code}/run/${closedRun}/close`)).status).toBe(200);
        const outsider = await userWithKey(t, 'test-runner'); // not a member of the project
        const body = { status: 'passed', comment: '' };
        const responses = await Promise.all([
          t.post(`/project/${code}/run/${runId}/tcase/${tcases[0].id}/result`, body),
          t.post(`/project/${code}/run/${closedRun}/tcase/${tcases[0].id}/result`, body),
          t.post(`/project/${code}/run/${runId}/tcase/${tcases[1].id}/result`, body, { key: outsider.key }),
          t.post(`/project/${code}/run/999999/tcase/${tcases[1].id}/result`, body),
          t.post(`/project/${code}/run/${runId}/tcase/${tcases[2].id}/result`, body),
        ]);
        expect(responses.map((r) => r.status)).toEqual([201, 409, 403, 404, 201]);
        expect(responses[1].body.code).toBe('CONFLICT');
        expect(responses[2].body.code).toBe('FORBIDDEN');
        expect(responses[3].body.code).toBe('NOT_FOUND');
        expect(await countResults(t, runId)).toBe(2);
        expect(await countResults(t, closedRun)).toBe(0);
        expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, open: 1, passed: 2 }));
      });

      it('answers 500 only to the result whose statements fail and stores the others, across callers and projects', async () => {
        const { user, key } = await userWithKey(t, 'test-runner');
        const withRun = async () => {
          const project = await createProject(t, {}, [user.id]);
          const cases = await makeTcases(t, project.code, ['A', 'B', 'C']);
          const run = await makeRun(
            t,
            project.code,
            cases.map((c) => c.id),
          );
          return { code: project.code, tcases: cases, runId: run };
        };
        const { code, tcases, runId } = await withRun();
        const other = await withRun();
        const posts = Array.from({ length: 21 }, (_, i) => ({
          url:
            i % 3 === 2
              ? `/project/${other.code}/run/${other.runId}/tcase/${other.tcases[i % 3].id}/result`
              : `/project/${code}/run/${runId}/tcase/${tcases[i % 3].id}/result`,
          comment: i === 10 ? 'fails in the database' : `innocent ${i}`,
        }));
        statements.clear();
        const allow = await refuseResultsWithComment(t.db, t.dbName, 'fails in the database');
        let responses;
        try {
          responses = await Promise.all(
            posts.map((p, i) =>
              t.post(p.url, { status: 'passed', comment: p.comment }, { key: i % 2 ? key : undefined }),
            ),
          );
        } finally {
          await allow();
        }
        expect(responses.map((r) => r.status)).toEqual(posts.map((_, i) => (i === 10 ? 500 : 201)));
        expect(responses[10].body).toEqual({
          code: 'INTERNAL',
          message: expect.any(String),
          requestId: responses[10].headers['x-request-id'],
        });
        // The failing result was tried in a group first (so the isolation was exercised, not bypassed).
        const refused = resultInserts().filter(
          (s) => s.failed && s.parameters.includes('fails in the database'),
        );
        expect(Math.max(...refused.map(resultRowsOf))).toBeGreaterThan(1);
        const stored = await t.db
          .selectFrom('results')
          .select('comment')
          .where('run_id', 'in', [runId, other.runId])
          .execute();
        expect(stored.map((r) => r.comment).sort()).toEqual(
          posts
            .filter((_, i) => i !== 10)
            .map((p) => p.comment)
            .sort(),
        );
        expect(await countResults(t, runId)).toBe(13);
        expect(await countResults(t, other.runId)).toBe(7);
        expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, open: 1, passed: 2 }));
        expect((await getRun(t, other.code, other.runId)).statusCounts).toEqual(
          counts({ all: 3, open: 2, passed: 1 }),
        );
      });

      it('writes results for several runs at once, each into its own run', async () => {
        const { code, tcases, runId } = await scenario(t);
        const otherRun = await makeRun(
          t,
          code,
          tcases.map((c) => c.id),
        );
        const responses = await Promise.all(
          [runId, otherRun, runId, otherRun].map((r, i) =>
            t.post(`/project/${code}/run/${r}/tcase/${tcases[i % 3].id}/result`, {
              status: r === runId ? 'passed' : 'skipped',
              comment: '',
            }),
          ),
        );
        expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201]);
        expect((await getRun(t, code, runId)).statusCounts).toEqual(counts({ all: 3, open: 1, passed: 2 }));
        expect((await getRun(t, code, otherRun)).statusCounts).toEqual(
          counts({ all: 3, open: 1, skipped: 2 }),
        );
      });
    });
  },
  { db: { log: statements.log } },
);
