import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createUser } from '../users/users.service.js';
import { createDeviceKey } from '../api-keys/api-keys.service.js';
import type { Role } from '../../auth/roles.js';
import { createPasswordResetLink } from './accounts.service.js';

// Accounts an attacker cannot turn against their owner: what only a signed-in person may change, and what a
// password change or reset ends.

const ORIGIN = 'http://casebook.test';
let n = 0;
const uniqueEmail = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}@example.com`;

async function person(t: TestEnv, role: Role = 'user') {
  const password = 'correct horse battery';
  const user = await createUser(t.db, t.tenantId, { email: uniqueEmail('trust'), name: 'P', role, password });
  return { ...user, password };
}

const login = (t: TestEnv, body: Record<string, unknown>, ip = '10.30.0.1') =>
  t.post('/api/auth/login', body, { key: null, headers: { 'x-forwarded-for': ip, 'user-agent': 'test/1' } });

const withCookie = (t: TestEnv, method: string, url: string, token: string, body?: unknown) =>
  t.request(method, url, {
    key: null,
    body,
    headers: {
      cookie: `session=${token}`,
      origin: ORIGIN,
      'x-forwarded-for': '10.30.0.1',
      'user-agent': 'test/1',
    },
  });

/** A signed-in session, a device sign-in (the CLI's token) and an API key of one person. */
async function signedInEverywhere(t: TestEnv, who: { id: number; email: string; password: string }) {
  const session = (await login(t, { email: who.email, password: who.password })).body.token as string;
  const device = (
    await createDeviceKey(t.db, t.tenantId, {
      userId: who.id,
      clientId: 'qas-cli',
      clientName: 'QA Sphere CLI (qasphere)',
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    })
  ).key;
  const apiKey = (await t.post('/api-keys', { userId: who.id, name: 'ci' })).body.key as string;
  return { session, device, apiKey };
}

const auditOf = async (t: TestEnv, action: string, userId: number) =>
  (
    await t.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', action)
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute()
  ).map((r) => (r.meta === null ? null : JSON.parse(r.meta)));

describeEachDb('accounts an attacker cannot turn against their owner', (t) => {
  describe('changes to how an account signs in need the session cookie', () => {
    const CHANGES: [string, (p: { password: string }) => Record<string, unknown>][] = [
      ['/users/me/password', (p) => ({ currentPassword: p.password, newPassword: 'taken over now' })],
      ['/users/me/email', (p) => ({ email: uniqueEmail('thief'), password: p.password })],
      ['/users/me/2fa/setup', (p) => ({ password: p.password })],
      ['/users/me/2fa/enable', () => ({ totp: '123456' })],
      ['/users/me/2fa/disable', (p) => ({ password: p.password, totp: '123456' })],
      ['/users/me/2fa/recovery-codes', (p) => ({ password: p.password, totp: '123456' })],
    ];

    it('answers 403 to an API key and to a device token on every such route, and changes nothing', async () => {
      const who = await person(t);
      const { device, apiKey } = await signedInEverywhere(t, who);
      for (const key of [apiKey, device]) {
        for (const [path, body] of CHANGES) {
          const res = await t.post(path, body(who), { key });
          expect(res.status, path).toBe(403);
          expect(res.body).toEqual({
            code: 'FORBIDDEN',
            message:
              'this changes how the account signs in: sign in to the web page to do it; API keys and device tokens may not',
          });
        }
      }
      const row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', who.id)
        .executeTakeFirstOrThrow();
      expect(row.email).toBe(who.email);
      expect((await login(t, { email: who.email, password: who.password })).status).toBe(200);
      expect(await t.db.selectFrom('two_factor').selectAll().where('user_id', '=', who.id).execute()).toEqual(
        [],
      );
      // Reading whether two-factor is on is no change: a key may.
      expect((await t.get('/users/me/2fa', { key: apiKey })).status).toBe(200);
    });
  });

  describe('what a password change or reset ends', () => {
    it('a reset ends every session and device sign-in (API keys stay) and the audit log says so', async () => {
      const who = await person(t);
      const { session, device, apiKey } = await signedInEverywhere(t, who);
      const link = await createPasswordResetLink(
        t.db,
        { tenantId: t.tenantId, ip: '', userAgent: 'cli' },
        who.email,
        t.config.publicUrl,
      );
      const reset = await t.post(
        '/api/auth/password-reset',
        { token: link.split('/').pop(), password: 'a fresh start here' },
        { key: null },
      );
      expect(reset.status).toBe(200);
      expect((await withCookie(t, 'GET', '/project', session)).status).toBe(401);
      expect((await t.get('/project', { key: device })).status).toBe(401);
      expect((await t.get('/project', { key: apiKey })).status).toBe(200);
      expect(await auditOf(t, 'password_reset', who.id)).toEqual([null]);
      expect(await auditOf(t, 'auth.sign_ins_ended', who.id)).toEqual([
        { reason: 'password_reset', sessions_ended: 1, device_sign_ins_ended: 1 },
      ]);
    });

    it('a change ends the other sessions and every device sign-in, keeps this session, and the audit log says so', async () => {
      const who = await person(t);
      const { session: other, device } = await signedInEverywhere(t, who);
      const mine = (await login(t, { email: who.email, password: who.password })).body.token as string;
      const res = await withCookie(t, 'POST', '/users/me/password', mine, {
        currentPassword: who.password,
        newPassword: 'another good one',
      });
      expect(res.status).toBe(200);
      expect((await withCookie(t, 'GET', '/project', mine)).status).toBe(200);
      expect((await withCookie(t, 'GET', '/project', other)).status).toBe(401);
      expect((await t.get('/project', { key: device })).status).toBe(401);
      expect(await auditOf(t, 'password_change', who.id)).toEqual([null]);
      expect(await auditOf(t, 'auth.sign_ins_ended', who.id)).toEqual([
        { reason: 'password_change', sessions_ended: 1, device_sign_ins_ended: 1 },
      ]);
    });
  });
});
