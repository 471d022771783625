import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { setFeature } from '../tenants/tenants.service.js';
import { maskSecrets, monthStartUtc, purgeExpiredAuditEvents, recordAudit } from './audit.service.js';
import { moduleJobs } from '../index.js';
import { auditRetentionJob, runAuditRetention } from './audit-retention.job.js';
import { jobEnv } from '../../jobs/index.js';

describeEachDb('audit log', (t) => {
  const system = () => ({ tenantId: t.tenantId, userId: null, ip: '10.0.0.1', userAgent: 'job' });
  const events = () => t.db.selectFrom('audit_events').selectAll().orderBy('id').execute();
  const lastId = async () => Number((await events()).at(-1)?.id ?? 0);

  /** Inserts `n` events of this tenant at `createdAt` straight into the table. */
  async function insertAt(n: number, createdAt: string, action = 'login') {
    const rows = Array.from({ length: n }, () => ({
      tenant_id: t.tenantId,
      user_id: t.ownerId,
      action,
      ip: '1.2.3.4',
      user_agent: 'ua',
      meta: null,
      created_at: createdAt,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await t.db
        .insertInto('audit_events')
        .values(rows.slice(i, i + 500))
        .execute();
  }

  describe('GET /audit-logs', () => {
    it('returns the events with their user, request ip and user agent, meta omitted when empty', async () => {
      const p = await createProject(t);
      const archived = await t.post(`/project/${p.code}/archive`, undefined, {
        headers: { 'user-agent': 'auditor-test/1.0', 'x-forwarded-for': '203.0.113.9' },
      });
      expect(archived.status).toBe(200);
      await recordAudit(t.db, system(), 'logout');
      const after = (await lastId()) - 2;
      const res = await t.get('/audit-logs', { query: { after } });
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(2);
      const [archive, logout] = res.body.events;
      expect(archive).toEqual({
        id: after + 1,
        user: { id: t.ownerId, name: 'Owner', email: 'owner@example.com' },
        action: 'archive_project',
        ip: '203.0.113.9',
        userAgent: 'auditor-test/1.0',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        meta: { project_id: p.id, project_code: p.code, project_title: p.title },
      });
      expect(logout).toEqual({
        id: after + 2,
        user: null,
        action: 'logout',
        ip: '10.0.0.1',
        userAgent: 'job',
        createdAt: expect.any(String),
      });
      expect(logout).not.toHaveProperty('meta');
      expect(res.body.after).toBe(after + 2);
    });

    it('pages in ascending id order: after is the last id returned, and the request after once none are left', async () => {
      const start = await lastId();
      for (let i = 0; i < 5; i++) await recordAudit(t.db, system(), 'login', { n: i });
      const first = await t.get('/audit-logs', { query: { after: start, count: 2 } });
      expect(first.body).toMatchObject({ after: start + 2, count: 2 });
      expect(first.body.events.map((e: any) => e.id)).toEqual([start + 1, start + 2]);
      const second = await t.get('/audit-logs', { query: { after: first.body.after, count: 2 } });
      expect(second.body.events.map((e: any) => e.meta.n)).toEqual([2, 3]);
      const third = await t.get('/audit-logs', { query: { after: second.body.after, count: 2 } });
      expect(third.body).toMatchObject({ after: start + 5, count: 1 });
      const done = await t.get('/audit-logs', { query: { after: third.body.after, count: 2 } });
      expect(done.body).toEqual({ after: start + 5, count: 0, events: [] });
    });

    it('starts at the first event of the current calendar month when after is 0 or omitted (D13)', async () => {
      const startOfMonth = monthStartUtc();
      const lastMonth = new Date(Date.parse(startOfMonth) - 1000).toISOString();
      await t.db.deleteFrom('audit_events').execute();
      await insertAt(3, lastMonth, 'old');
      await insertAt(2, startOfMonth, 'new');
      const omitted = await t.get('/audit-logs');
      expect(omitted.status).toBe(200);
      expect(omitted.body.events.map((e: any) => e.action)).toEqual(['new', 'new']);
      const zero = await t.get('/audit-logs', { query: { after: 0 } });
      expect(zero.body).toEqual(omitted.body);
      // An explicit cursor still reaches back into earlier months.
      const firstOld = Number((await events())[0].id);
      const explicit = await t.get('/audit-logs', { query: { after: firstOld - 1, count: 3 } });
      expect(explicit.body.events.map((e: any) => e.action)).toEqual(['old', 'old', 'old']);
    });

    it('answers an empty page with after 0 when the month has no events yet', async () => {
      await t.db.deleteFrom('audit_events').execute();
      await insertAt(2, '2020-01-15T00:00:00.000Z');
      const res = await t.get('/audit-logs');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ after: 0, count: 0, events: [] });
    });

    it('returns 100 events by default and up to count', async () => {
      await t.db.deleteFrom('audit_events').execute();
      await insertAt(130, new Date().toISOString());
      expect((await t.get('/audit-logs')).body.count).toBe(100);
      expect((await t.get('/audit-logs', { query: { count: 1000 } })).body.count).toBe(130);
      expect((await t.get('/audit-logs', { query: { count: 1 } })).body.count).toBe(1);
    });

    it.each([
      [{ count: 0 }, '/count'],
      [{ count: 1001 }, '/count'],
      [{ count: 'ten' }, '/count'],
      [{ after: -1 }, '/after'],
      [{ after: '1.5' }, '/after'],
    ])('answers 400 naming the parameter for %o', async (query, path) => {
      const res = await t.get('/audit-logs', { query: query as any });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe(path);
    });

    it('lets admins and SIEM-LOG-ONLY admin keys read it, and refuses other roles with 403 (D3, D5)', async () => {
      const admin = await userWithKey(t, 'admin');
      const siem = await userWithKey(t, 'admin', { keyName: 'SIEM-LOG-ONLY export' });
      expect((await t.get('/audit-logs', { key: admin.key })).status).toBe(200);
      expect((await t.get('/audit-logs', { key: siem.key })).status).toBe(200);
      // The SIEM key reads nothing else.
      const elsewhere = await t.get('/project', { key: siem.key });
      expect(elsewhere.status).toBe(403);
      expect(elsewhere.body.message).toMatch(/SIEM-LOG-ONLY/);
      for (const role of ['user', 'test-runner', 'viewer'] as const) {
        const { key } = await userWithKey(t, role);
        const res = await t.get('/audit-logs', { key });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      }
      const weakSiem = await userWithKey(t, 'user', { keyName: 'SIEM-LOG-ONLY' });
      expect((await t.get('/audit-logs', { key: weakSiem.key })).status).toBe(403);
      expect((await t.get('/audit-logs', { key: null })).status).toBe(401);
    });

    it('answers 402 FEATURE_NOT_AVAILABLE when the tenant lacks advanced-auth (D6)', async () => {
      await setFeature(t.db, t.tenantId, 'advanced-auth', false);
      try {
        const res = await t.get('/audit-logs');
        expect(res.status).toBe(402);
        expect(res.body).toEqual({
          code: 'FEATURE_NOT_AVAILABLE',
          message: expect.stringMatching(/advanced-auth/),
        });
      } finally {
        await setFeature(t.db, t.tenantId, 'advanced-auth', true);
      }
      expect((await t.get('/audit-logs')).status).toBe(200);
    });
  });

  describe('recordAudit', () => {
    it('stores meta as JSON with secrets, headers and payloads as ****, and null when empty', async () => {
      await recordAudit(t.db, system(), 'webhook.created', {
        webhook_id: 7,
        secret: 's3cr3t',
        headers: { Authorization: 'Bearer x' },
        payload: '{"a":1}',
        endpoint: 'https://hooks.example.com',
        skipped: undefined,
      });
      await recordAudit(t.db, system(), 'login', {});
      const [webhook, login] = (await events()).slice(-2);
      expect(JSON.parse(webhook.meta!)).toEqual({
        webhook_id: 7,
        secret: '****',
        headers: '****',
        payload: '****',
        endpoint: 'https://hooks.example.com',
      });
      expect(login.meta).toBeNull();
    });
  });

  describe('retention (D25)', () => {
    it('deletes events older than the retention in bounded batches and keeps the rest', async () => {
      await t.db.deleteFrom('audit_events').execute();
      const now = new Date('2030-06-15T00:00:00.000Z');
      await insertAt(23, '2030-05-01T00:00:00.000Z', 'old');
      await insertAt(4, '2030-06-10T00:00:00.000Z', 'recent');
      const deleted = await purgeExpiredAuditEvents(t.db, 30, { batchSize: 5, now });
      expect(deleted).toBe(23);
      expect((await events()).map((e) => e.action)).toEqual(['recent', 'recent', 'recent', 'recent']);
      expect(await purgeExpiredAuditEvents(t.db, 0, { now: new Date('2099-01-01') })).toBe(0);
      expect(await events()).toHaveLength(4);
    });

    it('runs as a periodic job of every server process and keeps everything when retention is 0', async () => {
      expect(moduleJobs).toContain(auditRetentionJob);
      await t.db.deleteFrom('audit_events').execute();
      await insertAt(3, '2001-01-01T00:00:00.000Z', 'ancient');
      await insertAt(1, new Date().toISOString(), 'fresh');
      const env = (auditRetentionDays: number) => jobEnv({ ...t.config, auditRetentionDays }, t.app.ctx);
      await auditRetentionJob.run(t.db, env(0));
      expect(await events()).toHaveLength(4);
      await auditRetentionJob.run(t.db, env(365));
      expect((await events()).map((e) => e.action)).toEqual(['fresh']);
      expect(await runAuditRetention(t.db, { retentionDays: 365 })).toBe(0);
    });
  });
});

describe('maskSecrets', () => {
  it('masks set secret-like values and leaves unset ones visible', () => {
    expect(maskSecrets({ secret: 'x', headers: null, payload: '', token: 't', name: 'n' })).toEqual({
      secret: '****',
      headers: null,
      payload: '',
      token: '****',
      name: 'n',
    });
  });
});
