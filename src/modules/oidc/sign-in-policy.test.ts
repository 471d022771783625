import { beforeAll, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows, userWithKey } from '../../../test/helpers/factories.js';
import { createApiKey } from '../api-keys/api-keys.service.js';
import { createUser } from '../users/users.service.js';

/** "Sign in through the provider only" with a break-glass owner: the tenant's password sign-in policy. */
describeEachDb('Password sign-in: everyone or owners only (/sign-in-settings)', (t: TestEnv) => {
  let providerId: string;
  let adminKey: string;
  let testerKey: string;

  const login = (email: string, password: string) =>
    t.request('POST', '/api/auth/login', { key: null, body: { email, password } });

  beforeAll(async () => {
    const made = await t.post('/oidc-provider', {
      name: 'Company SSO',
      issuer: 'https://sso.example.com',
      clientId: 'casebook',
      clientSecret: 'secret-secret',
    });
    expect(made.status, made.text).toBe(201);
    providerId = made.body.id;
    adminKey = (await userWithKey(t, 'admin')).key;
    const tester = await createUser(t.db, t.tenantId, {
      email: 'tess@example.com',
      name: 'Tess',
      role: 'test-runner',
      password: 'tess-password-1',
    });
    testerKey = (await createApiKey(t.db, t.tenantId, { userId: tester.id, name: 'ci' })).key;
  });

  it('is everyone by default, read by admins, and said to the sign-in page', async () => {
    expect((await t.get('/sign-in-settings', { key: adminKey })).body).toEqual({
      passwordSignIn: 'everyone',
    });
    const page = await t.get('/api/auth/oidc/providers', { key: null });
    expect(page.body.passwordSignIn).toBe('everyone');
  });

  it('refuses owners-only while no provider is enabled, at the field, changing nothing', async () => {
    const res = await t.request('PUT', '/sign-in-settings', { body: { passwordSignIn: 'owners' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: '/passwordSignIn', message: expect.stringContaining('enable') },
    ]);
    expect((await t.get('/sign-in-settings')).body.passwordSignIn).toBe('everyone');
  });

  it('lets only the owner change it (403 for an admin)', async () => {
    await t.patch(`/oidc-provider/${providerId}`, { enabled: true });
    const res = await t.request('PUT', '/sign-in-settings', {
      key: adminKey,
      body: { passwordSignIn: 'owners' },
    });
    expect(res.status).toBe(403);
  });

  it('with owners only: refuses a non-owner password in words, keeps the owner, API keys work; audited', async () => {
    expect((await login('tess@example.com', 'tess-password-1')).status).toBe(200);
    const set = await t.request('PUT', '/sign-in-settings', { body: { passwordSignIn: 'owners' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ passwordSignIn: 'owners' });
    expect((await t.get('/api/auth/oidc/providers', { key: null })).body.passwordSignIn).toBe('owners');
    const refused = await login('tess@example.com', 'tess-password-1');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('password sign-in is turned off here');
    expect(refused.headers['set-cookie']).toBeUndefined();
    // A wrong password still reads as any wrong password: the policy tells nothing about the address.
    expect((await login('tess@example.com', 'wrong-password-1')).status).toBe(401);
    const owner = await login('owner@example.com', 'owner-password');
    expect(owner.status, owner.text).toBe(200);
    expect((await t.get('/project', { key: testerKey })).status).toBe(200);
    const [event] = await auditRows(t, 'sign_in.password_policy');
    expect(JSON.parse(event!.meta!)).toEqual({ password_sign_in: 'owners', previous: 'everyone' });
  });

  it('back to everyone: the password works again', async () => {
    const set = await t.request('PUT', '/sign-in-settings', { body: { passwordSignIn: 'everyone' } });
    expect(set.status).toBe(200);
    expect((await login('tess@example.com', 'tess-password-1')).status).toBe(200);
  });
});
