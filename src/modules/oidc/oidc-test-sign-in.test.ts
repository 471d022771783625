import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb, type ApiResponse, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows, userWithKey } from '../../../test/helpers/factories.js';
import { startIdp, type TestIdp } from '../../../test/helpers/oidc-idp.js';
import { createUser } from '../users/users.service.js';

const SECRET = 'client-secret-for-the-test-idp';

function cookiesOf(res: ApiResponse): Record<string, string> {
  const raw = res.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const out: Record<string, string> = {};
  for (const line of lines) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    out[pair!.slice(0, at)] = pair!.slice(at + 1);
  }
  return out;
}

describeEachDb(
  'Test sign-in of an OpenID Connect provider (/api/auth/oidc/{id}/test)',
  (t: TestEnv) => {
    let idp: TestIdp;
    let provider: { id: string; redirectUri: string };
    let projectId: string;

    /** An admin's test as the popup goes through it: the test route, the provider's forms, the callback. */
    async function testAs(login: string, key?: string) {
      const started = await t.request('GET', `/api/auth/oidc/${provider.id}/test`, { key });
      expect(started.status, started.text).toBe(302);
      const state = cookiesOf(started).oidc_state;
      const back = await idp.signIn(String(started.headers.location), login);
      const callback = await t.request('GET', `${back.pathname}${back.search}`, {
        key: null,
        headers: { cookie: `oidc_state=${state}` },
      });
      return callback;
    }

    const count = async (table: 'users' | 'sessions' | 'oidc_identities' | 'project_members') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    beforeAll(async () => {
      idp = await startIdp();
      const project = await t.post('/project', { code: 'TST', title: 'Test sign-in' });
      projectId = project.body.id;
      // Not enabled: a test runs before the provider is switched on.
      const made = await t.post('/oidc-provider', {
        name: 'Company SSO',
        issuer: idp.issuer,
        clientId: 'casebook',
        clientSecret: SECRET,
        justInTime: true,
        scopes: ['groups'],
        roleRules: [
          { group: 'qa-leads', role: 'admin' },
          { group: 'qa', role: 'user' },
        ],
        projectRules: [{ group: 'qa', projects: ['TST'] }],
      });
      expect(made.status, made.text).toBe(201);
      expect(made.body.enabled).toBe(false);
      expect(made.body.lastTest).toBeNull();
      provider = made.body;
      idp.configure([
        { client_id: 'casebook', client_secret: SECRET, redirect_uris: [provider.redirectUri] },
      ]);
      idp.users.set('alice', {
        email: 'alice@corp.example',
        email_verified: true,
        name: 'Alice Lead',
        groups: ['qa', 'qa-leads'],
      });
      idp.users.set('uma', { email: 'uma@corp.example', email_verified: false, name: 'Uma' });
      idp.users.set('olga', {
        email: 'owner@example.com',
        email_verified: true,
        name: 'Olga',
        groups: ['qa'],
      });
    });

    afterAll(async () => {
      await idp?.close();
    });

    it('runs the whole flow of a disabled provider, opens no session, makes no account, and keeps what it found', async () => {
      const before = {
        users: await count('users'),
        sessions: await count('sessions'),
        identities: await count('oidc_identities'),
        members: await count('project_members'),
      };
      const callback = await testAs('alice');
      expect(callback.status, callback.text).toBe(302);
      expect(callback.headers.location).toBe(`/admin/sign-in/test-result?provider=${provider.id}`);
      expect(cookiesOf(callback).session).toBeUndefined();
      expect(cookiesOf(callback).oidc_state).toBe('');
      expect({
        users: await count('users'),
        sessions: await count('sessions'),
        identities: await count('oidc_identities'),
        members: await count('project_members'),
      }).toEqual(before);
      const got = await t.get(`/oidc-provider/${provider.id}`);
      expect(got.body.enabled).toBe(false);
      expect(got.body.lastTest).toMatchObject({
        outcome: 'success',
        detail: null,
        claims: {
          sub: 'alice',
          email: 'alice@corp.example',
          emailVerified: true,
          name: 'Alice Lead',
          groups: ['qa', 'qa-leads'],
        },
        account: 'new',
        role: 'admin',
        roleRule: 'qa-leads',
        projectIds: [projectId],
      });
      const owner = await t.db
        .selectFrom('users')
        .select('id')
        .where('email_norm', '=', 'owner@example.com')
        .executeTakeFirstOrThrow();
      const [event] = await auditRows(t, 'oidc.test_sign_in', owner.id);
      expect(JSON.parse(event!.meta!)).toMatchObject({
        provider_id: provider.id,
        provider_name: 'Company SSO',
        outcome: 'success',
        email: 'alice@corp.example',
        role: 'admin',
        project_ids: [projectId],
      });
      expect(await auditRows(t, 'oidc.sign_in')).toEqual([]);
      expect(JSON.stringify(got.body)).not.toContain(SECRET);
    });

    it('shows the refusal a real sign-in would meet, with the claims that caused it', async () => {
      await testAs('uma');
      const got = await t.get(`/oidc-provider/${provider.id}`);
      expect(got.body.lastTest).toMatchObject({
        outcome: 'email_unverified',
        detail: 'the provider sent no verified e-mail address',
        claims: { sub: 'uma', email: 'uma@corp.example', emailVerified: false, groups: [] },
        account: null,
        role: null,
      });
    });

    it("names an existing account and keeps the owner's role (no rule moves the owner)", async () => {
      const roles = await t.db.selectFrom('users').select(['email_norm', 'role']).execute();
      await testAs('olga');
      const got = await t.get(`/oidc-provider/${provider.id}`);
      expect(got.body.lastTest).toMatchObject({
        outcome: 'success',
        account: 'existing',
        role: 'owner',
        roleRule: 'qa',
      });
      expect(await t.db.selectFrom('users').select(['email_norm', 'role']).execute()).toEqual(roles);
    });

    it('lets an admin test, and refuses anyone below admin (403) or without a sign-in (401), storing no state', async () => {
      const admin = await userWithKey(t, 'admin');
      expect((await testAs('alice', admin.key)).status).toBe(302);
      const rowsBefore = await t.db.selectFrom('oidc_sign_ins').select('id').execute();
      const user = await userWithKey(t, 'user');
      const refused = await t.request('GET', `/api/auth/oidc/${provider.id}/test`, { key: user.key });
      expect(refused.status).toBe(403);
      expect(cookiesOf(refused).oidc_state).toBeUndefined();
      const anonymous = await t.request('GET', `/api/auth/oidc/${provider.id}/test`, { key: null });
      expect(anonymous.status).toBe(401);
      expect(await t.db.selectFrom('oidc_sign_ins').select('id').execute()).toEqual(rowsBefore);
    });

    it("refuses a disabled provider's ordinary sign-in while its test works", async () => {
      const res = await t.request('GET', `/api/auth/oidc/${provider.id}/start`, { key: null });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/sign-in?error=provider_unavailable');
    });

    it('records a provider that cannot be reached as the outcome and sends the popup straight to it', async () => {
      const broken = await t.post('/oidc-provider', {
        name: 'Gone SSO',
        issuer: 'http://127.0.0.1:9/gone',
        clientId: 'x',
        clientSecret: SECRET,
      });
      expect(broken.status, broken.text).toBe(201);
      const res = await t.request('GET', `/api/auth/oidc/${broken.body.id}/test`);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`/admin/sign-in/test-result?provider=${broken.body.id}`);
      const got = await t.get(`/oidc-provider/${broken.body.id}`);
      expect(got.body.lastTest).toMatchObject({ outcome: 'provider_error', claims: null });
      expect(got.body.lastTest.detail).toMatch(/^discovery failed/);
    });

    it('answers 404 for a provider of no one', async () => {
      const res = await t.request('GET', '/api/auth/oidc/nope/test');
      expect(res.status).toBe(404);
    });

    it('does not make a person who is unknown to a pre-provisioned provider (no_account)', async () => {
      await t.patch(`/oidc-provider/${provider.id}`, { justInTime: false });
      await createUser(t.db, t.tenantId, { email: 'someone@corp.example', name: 'Someone', role: 'viewer' });
      await testAs('alice');
      const got = await t.get(`/oidc-provider/${provider.id}`);
      expect(got.body.lastTest).toMatchObject({ outcome: 'no_account', account: null, role: 'admin' });
    });
  },
  { env: { CASEBOOK_OUTBOUND_ALLOW: '127.0.0.1' } },
);
