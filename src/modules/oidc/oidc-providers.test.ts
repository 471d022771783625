import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { auditRows, userWithKey } from '../../../test/helpers/factories.js';

const SECRET = 'the-client-secret-value';
const body = (over: Record<string, unknown> = {}) => ({
  name: 'Keycloak',
  issuer: 'https://sso.example.com/realms/qa',
  clientId: 'casebook',
  clientSecret: SECRET,
  ...over,
});

describeEachDb('OpenID Connect providers (/oidc-provider, admin)', (t) => {
  const count = async () =>
    Number(
      (
        await t.db
          .selectFrom('oidc_providers')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe('POST /oidc-provider', () => {
    it('answers 201 with the provider, its redirect URI and defaults, never the secret; audits oidc.provider_create', async () => {
      const project = await t.post('/project', { code: 'OIDCP', title: 'Providers' });
      const res = await t.post(
        '/oidc-provider',
        body({
          name: 'Keycloak QA',
          roleRules: [{ group: 'qa-leads', role: 'admin' }],
          projectRules: [{ group: 'qa', projects: ['OIDCP'] }],
        }),
      );
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({
        name: 'Keycloak QA',
        issuer: 'https://sso.example.com/realms/qa',
        clientId: 'casebook',
        hasClientSecret: true,
        enabled: false,
        justInTime: false,
        defaultRole: 'test-runner',
        scopes: [],
        nameClaim: 'name',
        groupsClaim: 'groups',
        roleRules: [{ group: 'qa-leads', role: 'admin' }],
        projectRules: [{ group: 'qa', projectIds: [project.body.id] }],
        redirectUri: `http://casebook.test/api/auth/oidc/${res.body.id}/callback`,
      });
      expect(res.text).not.toContain(SECRET);
      const [event] = await auditRows(t, 'oidc.provider_create');
      expect(JSON.parse(event!.meta!)).toMatchObject({
        provider_id: res.body.id,
        provider_name: 'Keycloak QA',
      });
      expect(event!.meta).not.toContain(SECRET);
    });

    it('answers 400 in the error body and stores nothing for a bad issuer, an owner rule, an unknown project or field', async () => {
      const before = await count();
      const cases: [Record<string, unknown>, string][] = [
        [body({ issuer: 'not a url' }), '/issuer'],
        [body({ issuer: 'ftp://sso.example.com' }), '/issuer'],
        [body({ issuer: 'http://sso.example.com' }), '/issuer'],
        [body({ issuer: 'https://sso.example.com/?tenant=1' }), '/issuer'],
        [body({ issuer: 'https://127.0.0.1/' }), '/issuer'],
        [body({ name: '   ' }), '/name'],
        [body({ roleRules: [{ group: 'x', role: 'owner' }] }), '/roleRules/0/role'],
        [body({ projectRules: [{ group: 'x', projects: ['NOPE'] }] }), '/projectRules/0/projects/0'],
        [body({ clientSecret: undefined }), ''],
        [body({ surprise: true }), ''],
      ];
      for (const [input, path] of cases) {
        const res = await t.post('/oidc-provider', input);
        expect(res.status, JSON.stringify(input)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        if (path) expect(JSON.stringify(res.body.details), JSON.stringify(input)).toContain(path);
      }
      expect(await count()).toBe(before);
    });

    it('answers 409 for a name taken in any letter case', async () => {
      expect((await t.post('/oidc-provider', body({ name: 'Okta' }))).status).toBe(201);
      const res = await t.post('/oidc-provider', body({ name: 'OKTA' }));
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
    });
  });

  describe('PATCH /oidc-provider/:id', () => {
    it('answers 400 naming /clientSecret when the issuer changes without it, and changes nothing', async () => {
      const made = await t.post('/oidc-provider', body({ name: 'Entra' }));
      const before = await t.db
        .selectFrom('oidc_providers')
        .selectAll()
        .where('id', '=', made.body.id)
        .executeTakeFirst();
      const res = await t.patch(`/oidc-provider/${made.body.id}`, {
        issuer: 'https://login.microsoftonline.com/t/v2.0',
        enabled: true,
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { path: '/clientSecret', message: expect.stringContaining('issuer changes') },
      ]);
      const after = await t.db
        .selectFrom('oidc_providers')
        .selectAll()
        .where('id', '=', made.body.id)
        .executeTakeFirst();
      expect(after).toEqual(before);
    });

    it('answers 200 with a new issuer and secret together, keeps the secret on other changes, audits what changed', async () => {
      const made = await t.post('/oidc-provider', body({ name: 'Google' }));
      const row = () =>
        t.db
          .selectFrom('oidc_providers')
          .selectAll()
          .where('id', '=', made.body.id)
          .executeTakeFirstOrThrow();
      const sealed = (await row()).client_secret_enc;
      const moved = await t.patch(`/oidc-provider/${made.body.id}`, {
        issuer: 'https://accounts.google.com',
        clientSecret: 'another-secret',
      });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body.issuer).toBe('https://accounts.google.com');
      expect((await row()).client_secret_enc).not.toBe(sealed);
      const resealed = (await row()).client_secret_enc;
      const renamed = await t.patch(`/oidc-provider/${made.body.id}`, {
        name: 'Google Workspace',
        justInTime: true,
      });
      expect(renamed.body).toMatchObject({ name: 'Google Workspace', justInTime: true });
      expect((await row()).client_secret_enc).toBe(resealed);
      const updates = (await auditRows(t, 'oidc.provider_update')).map((e) => JSON.parse(e.meta!));
      expect(updates.at(-2)).toEqual({
        provider_id: made.body.id,
        provider_name: 'Google',
        issuer: 'https://accounts.google.com',
        client_secret_changed: true,
      });
      expect(updates.at(-1)).toMatchObject({ name: 'Google Workspace', just_in_time: 1 });
    });

    it('answers 404 for a provider that is not there', async () => {
      expect((await t.patch('/oidc-provider/nope', { enabled: true })).status).toBe(404);
    });
  });

  describe('DELETE /oidc-provider/:id', () => {
    it('answers 200, then 404; audits oidc.provider_delete', async () => {
      const made = await t.post('/oidc-provider', body({ name: 'Gone' }));
      const res = await t.del(`/oidc-provider/${made.body.id}`);
      expect(res.status).toBe(200);
      expect((await t.get(`/oidc-provider/${made.body.id}`)).status).toBe(404);
      expect((await t.del(`/oidc-provider/${made.body.id}`)).status).toBe(404);
      const [event] = await auditRows(t, 'oidc.provider_delete');
      expect(JSON.parse(event!.meta!)).toMatchObject({ provider_id: made.body.id, provider_name: 'Gone' });
    });
  });

  describe('who may', () => {
    it('answers 403 to a user below admin on every route and 200 to an admin', async () => {
      const made = await t.post('/oidc-provider', body({ name: 'Roles' }));
      const user = await userWithKey(t, 'user');
      for (const [method, path] of [
        ['GET', '/oidc-provider'],
        ['POST', '/oidc-provider'],
        ['GET', `/oidc-provider/${made.body.id}`],
        ['PATCH', `/oidc-provider/${made.body.id}`],
        ['DELETE', `/oidc-provider/${made.body.id}`],
      ] as const) {
        const res = await t.request(method, path, {
          key: user.key,
          body:
            method === 'POST' ? body({ name: 'Mine' }) : method === 'PATCH' ? { enabled: true } : undefined,
        });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
      const admin = await userWithKey(t, 'admin');
      const list = await t.get('/oidc-provider', { key: admin.key });
      expect(list.status).toBe(200);
      expect(list.body.providers.map((p: { name: string }) => p.name)).toContain('Roles');
      expect(list.text).not.toContain(SECRET);
      expect((await t.get('/oidc-provider', { key: null })).status).toBe(401);
    });
  });
});
