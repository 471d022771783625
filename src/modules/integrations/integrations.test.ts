import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { decryptCredential, encryptCredential } from './credentials.js';
import { getLinkedIntegration } from './integrations.service.js';

describeEachDb('integrations', (t) => {
  let n = 0;
  const name = (base: string) => `${base} ${++n}`;
  const lastAudit = async () => {
    const row = await t.db
      .selectFrom('audit_events')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    return { action: row.action, meta: row.meta === null ? undefined : JSON.parse(row.meta) };
  };
  const auditCount = async () =>
    Number(
      (
        await t.db
          .selectFrom('audit_events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function create(body: Record<string, unknown>) {
    const res = await t.post('/integration', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }
  const trackerB = (overrides: Record<string, unknown> = {}) =>
    create({
      name: name('Site tracker'),
      type: 'tracker_b',
      config: { url: 'https://tracker-b.example.com', email: 'bot@example.com' },
      token: 'tb-secret-token',
      ...overrides,
    });

  describe('POST /integration', () => {
    it('creates each type, returns it without the credential, and audits integration.created with its fields', async () => {
      const a = await create({
        name: 'Repo A',
        type: 'tracker_a',
        config: { account: 'acme' },
        token: 'ghp_secret',
      });
      expect(await lastAudit()).toEqual({
        action: 'integration.created',
        meta: {
          integration_id: a,
          integration_title: 'Repo A',
          integration_type: 'tracker_a',
          account: 'acme',
        },
      });
      const b = await create({
        name: 'Site B',
        type: 'tracker_b',
        config: { url: 'https://b.example.com', email: 'bot@example.com' },
        token: 'tb-token',
      });
      expect((await lastAudit()).meta).toEqual({
        integration_id: b,
        integration_title: 'Site B',
        integration_type: 'tracker_b',
        url: 'https://b.example.com',
        email: 'bot@example.com',
      });
      const c = await create({ name: 'Org C', type: 'tracker_c', config: { organizationKey: 'ENG' } });
      expect((await lastAudit()).meta).toEqual({
        integration_id: c,
        integration_title: 'Org C',
        integration_type: 'tracker_c',
        organization_key: 'ENG',
      });
      const custom = await create({
        name: 'Custom',
        type: 'custom',
        config: { newUrl: 'https://bugs.example.com/new', viewUrl: 'https://bugs.example.com/{id}' },
      });
      expect((await lastAudit()).meta).toEqual({
        integration_id: custom,
        integration_title: 'Custom',
        integration_type: 'custom',
        new_url: 'https://bugs.example.com/new',
        view_url: 'https://bugs.example.com/{id}',
      });

      const got = await t.get(`/integration/${b}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({
        id: b,
        name: 'Site B',
        type: 'tracker_b',
        config: { url: 'https://b.example.com', email: 'bot@example.com' },
        hasToken: true,
        linkedProjectCount: 0,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(got.text).not.toContain('tb-token');
      const list = await t.get('/integration');
      expect(list.status).toBe(200);
      expect(list.body.integrations.find((i: any) => i.id === c)).toMatchObject({ hasToken: false });
      expect(list.text).not.toMatch(/ghp_secret|tb-token/);
    });

    it('stores the credential encrypted with AES-256-GCM under the configured key, never in clear', async () => {
      const id = await trackerB({ token: 'plain-text-credential' });
      const row = await t.db
        .selectFrom('integrations')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.token_enc).toMatch(/^v1:/);
      expect(JSON.stringify(row)).not.toContain('plain-text-credential');
      expect(decryptCredential(t.config.secretKey, row.token_enc!)).toBe('plain-text-credential');
      expect(() => decryptCredential('another-secret-key-000000', row.token_enc!)).toThrow();
      // Same plaintext, different ciphertext (fresh IV).
      expect(encryptCredential(t.config.secretKey, 'x')).not.toBe(encryptCredential(t.config.secretKey, 'x'));
    });

    it.each([
      [{ type: 'tracker_a', config: {} }, '/config/account'],
      [{ type: 'tracker_a', config: { account: 'acme', url: 'https://x.example.com' } }, '/config/url'],
      [{ type: 'tracker_b', config: { url: 'https://b.example.com', email: 'a@b.cd' } }, '/token'],
      [
        { type: 'tracker_b', config: { url: 'ftp://b.example.com', email: 'a@b.cd' }, token: 't' },
        '/config/url',
      ],
      [
        { type: 'tracker_b', config: { url: 'https://b.example.com', email: 'nope' }, token: 't' },
        '/config/email',
      ],
      [{ type: 'tracker_c', config: { organizationKey: ' ' } }, '/config/organizationKey'],
      [
        { type: 'custom', config: { newUrl: 'javascript:alert(1)', viewUrl: 'https://x.example.com' } },
        '/config/newUrl',
      ],
      [
        {
          type: 'custom',
          config: { newUrl: 'https://a.example.com', viewUrl: 'https://b.example.com' },
          token: 't',
        },
        '/token',
      ],
      [{ type: 'tracker_d', config: {} }, '/type'],
      [
        {
          type: 'custom',
          config: { newUrl: 'https://a.example.com', viewUrl: 'https://b.example.com' },
          extra: 1,
        },
        '/extra',
      ],
    ])('answers 400 naming the field for %o and stores nothing', async (body, path) => {
      const before = await t.db.selectFrom('integrations').select('id').execute();
      const res = await t.post('/integration', { name: name('Bad'), ...body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details.map((d: any) => d.path)).toContain(path);
      expect(await t.db.selectFrom('integrations').select('id').execute()).toHaveLength(before.length);
    });

    it('answers 409 when the name is taken', async () => {
      await create({ name: 'Twice', type: 'tracker_c', config: { organizationKey: 'K' } });
      const res = await t.post('/integration', {
        name: 'Twice',
        type: 'tracker_c',
        config: { organizationKey: 'K' },
      });
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(/Twice/);
    });

    it('is for admins: 403 for a user', async () => {
      const { key } = await userWithKey(t, 'user');
      const res = await t.post(
        '/integration',
        { name: 'x', type: 'tracker_c', config: { organizationKey: 'K' } },
        { key },
      );
      expect(res.status).toBe(403);
      expect((await t.get('/integration', { key })).status).toBe(403);
    });
  });

  describe('PATCH /integration/:id', () => {
    it('changes only the given fields and audits only the changed settings', async () => {
      const id = await trackerB();
      const before = await auditCount();
      const res = await t.patch(`/integration/${id}`, {
        config: { email: 'new@example.com', url: 'https://tracker-b.example.com' },
      });
      expect(res.status).toBe(200);
      expect(res.body.config).toEqual({ url: 'https://tracker-b.example.com', email: 'new@example.com' });
      expect(await auditCount()).toBe(before + 1);
      expect(await lastAudit()).toEqual({
        action: 'integration.updated',
        meta: {
          integration_id: id,
          integration_title: res.body.name,
          integration_type: 'tracker_b',
          email: 'new@example.com',
        },
      });
      const renamed = await t.patch(`/integration/${id}`, { name: 'Renamed B' });
      expect(renamed.body.name).toBe('Renamed B');
      expect((await lastAudit()).meta).toEqual({
        integration_id: id,
        integration_title: 'Renamed B',
        integration_type: 'tracker_b',
      });
    });

    it('replaces the credential without showing it and refuses to remove a required one', async () => {
      const id = await trackerB();
      const res = await t.patch(`/integration/${id}`, { token: 'rotated-token' });
      expect(res.status).toBe(200);
      expect(res.body.hasToken).toBe(true);
      expect(res.text).not.toContain('rotated-token');
      const row = await t.db
        .selectFrom('integrations')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(decryptCredential(t.config.secretKey, row.token_enc!)).toBe('rotated-token');
      const removal = await t.patch(`/integration/${id}`, { token: null });
      expect(removal.status).toBe(400);
      expect(removal.body.details[0].path).toBe('/token');
      const c = await create({
        name: name('Org'),
        type: 'tracker_c',
        config: { organizationKey: 'K' },
        token: 'x',
      });
      const cleared = await t.patch(`/integration/${c}`, { token: null });
      expect(cleared.body.hasToken).toBe(false);
    });

    it('answers 400 for a setting of another type, 400 for the type itself, 404 for an unknown id', async () => {
      const id = await trackerB();
      const res = await t.patch(`/integration/${id}`, { config: { account: 'x' } });
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('/config/account');
      expect((await t.patch(`/integration/${id}`, { type: 'custom' })).status).toBe(400);
      const missing = await t.patch('/integration/nope', { name: 'x' });
      expect(missing.status).toBe(404);
    });

    it('does not record an event when nothing changed', async () => {
      const id = await trackerB();
      const before = await auditCount();
      const res = await t.patch(`/integration/${id}`, { config: { email: 'bot@example.com' } });
      expect(res.status).toBe(200);
      expect(await auditCount()).toBe(before);
    });
  });

  describe('project links', () => {
    it('links, re-links with previous_ fields, lists and unlinks, auditing each', async () => {
      const p = await createProject(t);
      const a1 = await create({ name: name('Repo'), type: 'tracker_a', config: { account: 'acme' } });
      const a2 = await create({ name: name('Repo'), type: 'tracker_a', config: { account: 'other' } });
      const a1Name = (await t.get(`/integration/${a1}`)).body.name;
      const a2Name = (await t.get(`/integration/${a2}`)).body.name;
      const linked = await t.post(`/project/${p.code}/integration`, {
        integrationId: a1,
        config: { repo: 'web' },
      });
      expect(linked.status).toBe(200);
      expect(linked.body).toMatchObject({ integrationId: a1, type: 'tracker_a', config: { repo: 'web' } });
      const projectMeta = { project_id: p.id, project_code: p.code, project_title: p.title };
      expect(await lastAudit()).toEqual({
        action: 'integration.project_linked',
        meta: {
          integration_id: a1,
          integration_title: a1Name,
          integration_type: 'tracker_a',
          ...projectMeta,
          tracker_a_repo: 'web',
        },
      });
      const relinked = await t.post(`/project/${p.code}/integration`, {
        integrationId: a2,
        config: { repo: 'api' },
      });
      expect(relinked.status).toBe(200);
      expect(await lastAudit()).toEqual({
        action: 'integration.project_linked',
        meta: {
          integration_id: a2,
          integration_title: a2Name,
          integration_type: 'tracker_a',
          ...projectMeta,
          tracker_a_repo: 'api',
          previous_integration_id: a1,
          previous_integration_title: a1Name,
          previous_tracker_a_repo: 'web',
        },
      });
      const list = await t.get(`/project/${p.code}/integration`);
      expect(list.body.integrations).toEqual([
        expect.objectContaining({
          integrationId: a2,
          name: a2Name,
          type: 'tracker_a',
          config: { repo: 'api' },
        }),
      ]);
      expect((await t.get(`/integration/${a2}`)).body.linkedProjectCount).toBe(1);
      expect((await t.get(`/integration/${a1}`)).body.linkedProjectCount).toBe(0);

      expect((await t.del(`/project/${p.code}/integration/${a1}`)).status).toBe(404);
      const unlinked = await t.del(`/project/${p.code}/integration/${a2}`);
      expect(unlinked.status).toBe(200);
      expect(await lastAudit()).toEqual({
        action: 'integration.project_unlinked',
        meta: {
          integration_id: a2,
          integration_title: a2Name,
          integration_type: 'tracker_a',
          ...projectMeta,
          tracker_a_repo: 'api',
        },
      });
      expect((await t.get(`/project/${p.code}/integration`)).body.integrations).toEqual([]);
    });

    it('carries the tracker_b and tracker_c link fields in the events', async () => {
      const p = await createProject(t);
      const b = await trackerB();
      const c = await create({ name: name('Org'), type: 'tracker_c', config: { organizationKey: 'ENG' } });
      await t.post(`/project/${p.code}/integration`, {
        integrationId: b,
        config: { projectId: '10001', projectName: 'Web' },
      });
      expect((await lastAudit()).meta).toMatchObject({
        tracker_b_project_id: '10001',
        tracker_b_project_name: 'Web',
      });
      await t.post(`/project/${p.code}/integration`, {
        integrationId: c,
        config: { teamId: 't1', teamName: 'Core' },
      });
      expect((await lastAudit()).meta).toMatchObject({
        tracker_c_team_id: 't1',
        tracker_c_team_name: 'Core',
      });
      expect((await lastAudit()).meta).not.toHaveProperty('previous_integration_id');
      expect((await t.get(`/project/${p.code}/integration`)).body.integrations).toHaveLength(2);
    });

    it('answers 400 for missing or foreign link settings and an unknown integration', async () => {
      const p = await createProject(t);
      const a = await create({ name: name('Repo'), type: 'tracker_a', config: { account: 'acme' } });
      const missing = await t.post(`/project/${p.code}/integration`, { integrationId: a });
      expect(missing.status).toBe(400);
      expect(missing.body.details[0].path).toBe('/config/repo');
      const foreign = await t.post(`/project/${p.code}/integration`, {
        integrationId: a,
        config: { repo: 'r', teamId: 'x' },
      });
      expect(foreign.status).toBe(400);
      expect(foreign.body.details[0].path).toBe('/config/teamId');
      const unknown = await t.post(`/project/${p.code}/integration`, {
        integrationId: 'nope',
        config: { repo: 'r' },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details[0].path).toBe('/integrationId');
      expect((await t.get(`/project/${p.code}/integration`)).body.integrations).toEqual([]);
    });

    it('refuses to link an archived project (403) and a missing project (404)', async () => {
      const p = await createProject(t);
      const a = await create({ name: name('Repo'), type: 'tracker_a', config: { account: 'acme' } });
      await t.post(`/project/${p.code}/archive`);
      expect(
        (await t.post(`/project/${p.code}/integration`, { integrationId: a, config: { repo: 'r' } })).status,
      ).toBe(403);
      expect(
        (await t.post('/project/NOPE/integration', { integrationId: a, config: { repo: 'r' } })).status,
      ).toBe(404);
    });

    it('getLinkedIntegration gives the merged settings without the credential, and nothing for an unlinked one (D24)', async () => {
      const p = await createProject(t);
      const b = await trackerB({ token: 'never-shown' });
      const other = await trackerB();
      await t.post(`/project/${p.code}/integration`, {
        integrationId: b,
        config: { projectId: '7', projectName: 'Web' },
      });
      const linked = await getLinkedIntegration(t.db, t.tenantId, p.id, b);
      expect(linked).toEqual({
        id: b,
        name: expect.any(String),
        type: 'tracker_b',
        config: {
          url: 'https://tracker-b.example.com',
          email: 'bot@example.com',
          projectId: '7',
          projectName: 'Web',
        },
      });
      expect(JSON.stringify(linked)).not.toContain('never-shown');
      expect(await getLinkedIntegration(t.db, t.tenantId, p.id, other)).toBeUndefined();
      expect(await getLinkedIntegration(t.db, 'another-tenant', p.id, b)).toBeUndefined();
    });
  });

  describe('DELETE /integration/:id', () => {
    it('deletes it with its links and audits the linked project count', async () => {
      const p1 = await createProject(t);
      const p2 = await createProject(t);
      const c = await create({ name: 'Doomed', type: 'tracker_c', config: { organizationKey: 'K' } });
      for (const p of [p1, p2]) {
        await t.post(`/project/${p.code}/integration`, {
          integrationId: c,
          config: { teamId: 't', teamName: 'T' },
        });
      }
      const res = await t.del(`/integration/${c}`);
      expect(res.status).toBe(200);
      expect(await lastAudit()).toEqual({
        action: 'integration.deleted',
        meta: {
          integration_id: c,
          integration_title: 'Doomed',
          integration_type: 'tracker_c',
          linked_project_count: 2,
        },
      });
      expect((await t.get(`/integration/${c}`)).status).toBe(404);
      expect(
        await t.db
          .selectFrom('integration_projects')
          .select('project_id')
          .where('integration_id', '=', c)
          .execute(),
      ).toEqual([]);
      expect((await t.del(`/integration/${c}`)).status).toBe(404);
    });
  });
});

// A started server always has a secret key (src/secret-key.ts); an app built without one is a programming error.
describeEachDb(
  'integrations in an app built without the secret key',
  (t) => {
    it('stores no credential (an internal error, nothing the client can fix), and accepts integrations without one', async () => {
      const res = await t.post('/integration', {
        name: 'B',
        type: 'tracker_b',
        config: { url: 'https://b.example.com', email: 'a@b.cd' },
        token: 'secret',
      });
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('INTERNAL');
      expect(await t.db.selectFrom('integrations').select('id').execute()).toEqual([]);
      const ok = await t.post('/integration', {
        name: 'C',
        type: 'tracker_c',
        config: { organizationKey: 'K' },
      });
      expect(ok.status).toBe(201);
    });
  },
  { env: { CASEBOOK_SECRET_KEY: '' } },
);

describe('credentials', () => {
  it('round-trips and rejects tampering', () => {
    const key = 'k'.repeat(32);
    const sealed = encryptCredential(key, 'hello');
    expect(decryptCredential(key, sealed)).toBe('hello');
    const [v, iv, tag, data] = sealed.split(':');
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] ^= 1;
    expect(() => decryptCredential(key, [v, iv, tag, flipped.toString('base64url')].join(':'))).toThrow();
  });
});
