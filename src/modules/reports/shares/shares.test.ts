import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { auditRows, createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { cases, runWith } from '../../../../test/helpers/report-factories.js';
import { createApiKey } from '../../api-keys/api-keys.service.js';
import { createTenant } from '../../tenants/tenants.service.js';
import { createUser } from '../../users/users.service.js';
import { SESSION_COOKIE } from '../../auth/auth.service.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const EMAIL = /[\w.+-]+@[\w-]+\.[\w.-]+/;
const shared = (token: string) => `/api/shared-report/${token}`;

describeEachDb('shared report links', (t) => {
  /** A project with a run whose results the owner recorded (a failure with a link), and that run's id. */
  async function projectWithRun() {
    const p = await createProject(t);
    const [c1, c2] = await cases(t, p, 2);
    const runId = await runWith(t, p, [
      [c1, 'passed'],
      [c2, 'failed', { comment: 'broke', links: [{ text: 'BUG-1', url: 'https://bugs.test/1' }] }],
    ]);
    return { p, runId };
  }

  describe('POST /project/:p/report/share', () => {
    it('answers 201 with a token and its URL under the public URL, expiring in 30 days by default', async () => {
      const { p, runId } = await projectWithRun();
      const before = Date.now();
      const res = await t.post(`/project/${p.code}/report/share`, { report: 'run', params: { runId } });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        token: expect.any(String),
        url: expect.any(String),
      });
      expect(res.body.url).toBe(`http://casebook.test/shared/${res.body.token}`);
      const row = await t.db
        .selectFrom('report_shares')
        .selectAll()
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(row.token_hash).not.toContain(res.body.token);
      const expires = Date.parse(row.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 30 * DAY_MS);
      expect(expires).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);
    });

    it('accepts an expiry up to 90 days ahead and refuses one in the past or beyond with a 400', async () => {
      const { p, runId } = await projectWithRun();
      const body = (ms: number) => ({
        report: 'run',
        params: { runId },
        expiresAt: new Date(Date.now() + ms).toISOString(),
      });
      expect((await t.post(`/project/${p.code}/report/share`, body(89 * DAY_MS))).status).toBe(201);
      for (const ms of [-60_000, 91 * DAY_MS]) {
        const res = await t.post(`/project/${p.code}/report/share`, body(ms));
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details).toEqual([{ path: '/expiresAt', message: expect.any(String) }]);
      }
    });

    it('answers 404 for a run, plan or milestone not in the project and 400 when the needed parameter is missing', async () => {
      const { p, runId } = await projectWithRun();
      const other = await projectWithRun();
      const post = (report: string, params: Record<string, number>) =>
        t.post(`/project/${p.code}/report/share`, { report, params });
      expect((await post('run', { runId: other.runId })).status).toBe(404);
      expect((await post('run', { runId, since: other.runId })).status).toBe(404);
      expect((await post('plan', { planId: 999_999 })).status).toBe(404);
      expect((await post('milestone', { milestoneId: 999_999 })).status).toBe(404);
      expect((await post('run', {})).status).toBe(400);
      expect((await post('dashboard', { runId })).status).toBe(400);
      expect((await post('dashboard', {})).status).toBe(201);
    });

    it('lets a test-runner member share and refuses a viewer with 403', async () => {
      const runner = await userWithKey(t, 'test-runner');
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [runner.user.id, viewer.user.id]);
      const body = { report: 'dashboard' };
      expect((await t.post(`/project/${p.code}/report/share`, body, { key: runner.key })).status).toBe(201);
      expect((await t.post(`/project/${p.code}/report/share`, body, { key: viewer.key })).status).toBe(403);
    });

    it('records who created which link in the audit log, without the token', async () => {
      const { p, runId } = await projectWithRun();
      const res = await t.post(`/project/${p.code}/report/share`, { report: 'run', params: { runId } });
      const rows = await auditRows(t, 'report_share.created', t.ownerId);
      const row = rows.find((r) => JSON.parse(r.meta ?? '{}').shareId === res.body.id);
      expect(JSON.parse(row?.meta ?? '{}')).toMatchObject({
        project: p.code,
        report: 'run',
        params: { runId },
      });
      expect(row?.meta).not.toContain(res.body.token);
    });
  });

  describe('GET /project/:p/report/share', () => {
    it('lists the links newest first with creator, dates, revoked and whether each opens, and never the token', async () => {
      const { p, runId } = await projectWithRun();
      const first = await t.post(`/project/${p.code}/report/share`, { report: 'run', params: { runId } });
      const second = await t.post(`/project/${p.code}/report/share`, { report: 'dashboard' });
      await t.del(`/project/${p.code}/report/share/${first.body.id}`);
      const res = await t.get(`/project/${p.code}/report/share`);
      expect(res.status).toBe(200);
      expect(res.body.shares).toEqual([
        {
          id: second.body.id,
          report: 'dashboard',
          params: {},
          createdBy: { id: t.ownerId, name: expect.any(String) },
          createdAt: expect.any(String),
          expiresAt: expect.any(String),
          revoked: false,
          active: true,
        },
        expect.objectContaining({
          id: first.body.id,
          report: 'run',
          params: { runId },
          revoked: true,
          active: false,
          inactiveReason: 'revoked',
        }),
      ]);
      expect(res.text).not.toContain(first.body.token);
      expect(res.text).not.toContain(second.body.token);
    });
  });

  describe('DELETE /project/:p/report/share/:id', () => {
    it('lets the creator and an admin revoke (204, audited) and refuses another member with 403', async () => {
      const creator = await userWithKey(t, 'test-runner');
      const other = await userWithKey(t, 'user');
      const admin = await userWithKey(t, 'admin');
      const p = await createProject(t, {}, [creator.user.id, other.user.id]);
      const make = async () =>
        (await t.post(`/project/${p.code}/report/share`, { report: 'dashboard' }, { key: creator.key })).body;
      const a = await make();
      const b = await make();
      const del = (id: number, key: string) => t.del(`/project/${p.code}/report/share/${id}`, { key });
      expect((await del(a.id, other.key)).status).toBe(403);
      expect((await t.get(shared(a.token), { key: null })).status).toBe(200);
      const byCreator = await del(a.id, creator.key);
      expect(byCreator.status).toBe(204);
      expect(byCreator.text).toBe('');
      expect((await del(b.id, admin.key)).status).toBe(204);
      expect((await del(999_999, admin.key)).status).toBe(404);
      const revoked = await auditRows(t, 'report_share.revoked');
      const ids = revoked.map((r) => [r.user_id, JSON.parse(r.meta ?? '{}').shareId]);
      expect(ids).toEqual(
        expect.arrayContaining([
          [creator.user.id, a.id],
          [admin.user.id, b.id],
        ]),
      );
    });
  });

  describe('GET /api/shared-report/:token', () => {
    it('answers the run report as its members see it, with the project, no e-mail and no-referrer/noindex headers', async () => {
      const { p, runId } = await projectWithRun();
      const created = await t.post(`/project/${p.code}/report/share`, { report: 'run', params: { runId } });
      const res = await t.get(shared(created.body.token), { key: null });
      expect(res.status, res.text).toBe(200);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-robots-tag']).toBe('noindex');
      const authenticated = await t.get(`/project/${p.code}/run/${runId}/report`);
      expect(res.body).toEqual({
        report: 'run',
        params: { runId },
        project: { code: p.code, title: p.title },
        expiresAt: expect.any(String),
        // The page shows the counts in the tenant's own status names and colours.
        statuses: (await t.get('/settings/preferences/status')).body.statuses,
        data: authenticated.body,
      });
      expect(res.body.data.failures[0].links).toEqual([{ text: 'BUG-1', url: 'https://bugs.test/1' }]);
      expect(res.body.data.failures[0].author).toEqual({ id: t.ownerId, name: expect.any(String) });
      expect(res.text).not.toMatch(EMAIL);
    });

    it('answers the plan, milestone and dashboard reports the authenticated endpoints give', async () => {
      const p = await createProject(t);
      const [c1] = await cases(t, p, 1);
      const milestoneId = (await t.post(`/project/${p.code}/milestone`, { title: 'M' })).body.id;
      await runWith(t, p, [[c1, 'failed']], { milestoneId });
      const plan = await t.post(`/project/${p.code}/plan`, {
        title: 'Plan',
        runs: [{ title: 'R', queryPlans: [{ tcaseIds: [c1.id] }] }],
      });
      expect(plan.status, plan.text).toBe(201);
      const read = async (report: string, params: Record<string, number> = {}) => {
        const made = await t.post(`/project/${p.code}/report/share`, { report, params });
        expect(made.status, made.text).toBe(201);
        const res = await t.get(shared(made.body.token), { key: null });
        expect(res.text).not.toMatch(EMAIL);
        return res.body.data;
      };
      expect(await read('plan', { planId: plan.body.id })).toEqual(
        (await t.get(`/project/${p.code}/plan/${plan.body.id}/report`)).body,
      );
      expect(await read('milestone', { milestoneId })).toEqual(
        (await t.get(`/project/${p.code}/milestone/${milestoneId}/report`)).body,
      );
      const dashboard = await read('dashboard');
      for (const name of ['trend', 'folders', 'flaky', 'failing', 'slowest', 'coverage', 'defects']) {
        expect(dashboard[name], name).toEqual((await t.get(`/project/${p.code}/report/${name}`)).body);
      }
    });

    it('answers the same 404 for an unknown, an expired and a revoked token', async () => {
      const { p, runId } = await projectWithRun();
      const make = async () =>
        (await t.post(`/project/${p.code}/report/share`, { report: 'run', params: { runId } })).body;
      const expired = await make();
      await t.db
        .updateTable('report_shares')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', expired.id)
        .execute();
      const revoked = await make();
      await t.del(`/project/${p.code}/report/share/${revoked.id}`);
      const answers = [];
      for (const token of ['no-such-token', expired.token, revoked.token]) {
        const res = await t.get(shared(token), { key: null });
        expect(res.status).toBe(404);
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        answers.push({ code: res.body.code, message: res.body.message, details: res.body.details });
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    });

    it('refuses the token as an API key, a bearer token or a session cookie on every other route (401)', async () => {
      const { p, runId } = await projectWithRun();
      const { token } = (
        await t.post(`/project/${p.code}/report/share`, { report: 'run', params: { runId } })
      ).body;
      const report = `/project/${p.code}/run/${runId}/report`;
      expect((await t.get(report, { key: token })).status).toBe(401);
      expect((await t.get(report, { key: null, headers: { authorization: `Bearer ${token}` } })).status).toBe(
        401,
      );
      expect(
        (await t.get(report, { key: null, headers: { cookie: `${SESSION_COOKIE}=${token}` } })).status,
      ).toBe(401);
      expect(
        (await t.get('/users/me', { key: null, headers: { cookie: `${SESSION_COOKIE}=${token}` } })).status,
      ).toBe(401);
    });
  });
});

describeEachDb(
  'shared report links across tenants',
  (t) => {
    it("opens a link only on its own tenant's host", async () => {
      const tenants: Record<string, { host: string; key: string }> = {};
      for (const id of ['gamma', 'delta']) {
        const host = `${id}.casebook.test`;
        await createTenant(t.db, { id, name: `Tenant ${id}`, host });
        const user = await createUser(
          t.db,
          id,
          { email: `owner@${id}.example.com`, name: 'O', role: 'owner' },
          true,
        );
        tenants[id] = { host, key: (await createApiKey(t.db, id, { userId: user.id, name: 'k' })).key };
      }
      const { host, key } = tenants.gamma;
      const project = await t.post('/project', { code: 'GAM', title: 'Gamma' }, { key, headers: { host } });
      expect(project.status, project.text).toBe(201);
      const made = await t.post(
        '/project/GAM/report/share',
        { report: 'dashboard' },
        { key, headers: { host } },
      );
      expect(made.status, made.text).toBe(201);
      const read = (h: string) => t.get(shared(made.body.token), { key: null, headers: { host: h } });
      expect((await read(host)).status).toBe(200);
      expect((await read(tenants.delta.host)).status).toBe(404);
    });
  },
  { env: { CASEBOOK_MULTI_TENANT: 'true' } },
);
