import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';
import { createUser } from '../users/users.service.js';
import { createApiKey, createDeviceKey } from '../api-keys/api-keys.service.js';
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
  const apiKey = (await createApiKey(t.db, t.tenantId, { userId: who.id, name: 'ci' })).key;
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

  describe('an invitation grants no more than its inviter holds when it is redeemed', () => {
    const VOID =
      'this invitation is void: whoever sent it can no longer grant this role; ask an admin for a new one';

    /** An admin's invitation, and what happens to the admin afterwards; then the link is tried. */
    async function tryAfter(role: Role, change: (adminId: number) => Promise<unknown>) {
      const admin = await userWithKey(t, 'admin');
      const email = uniqueEmail('invitee');
      const invited = await t.post('/users/invitations', { email, role }, { key: admin.key });
      expect(invited.status).toBe(201);
      const token = invited.body.link.split('/').pop() as string;
      await change(admin.user.id);
      const preview = await t.post('/api/auth/invitation', { token }, { key: null });
      const register = await t.post(
        '/api/auth/register',
        { token, name: 'Invitee', password: 'a good password' },
        { key: null },
      );
      const listed = (await t.get('/users/invitations')).body.invitations.map(
        (i: { email: string }) => i.email,
      );
      const user = await t.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
      return { preview, register, listed: listed.includes(email), created: user !== undefined };
    }

    it('is void once the inviter is deactivated: 404 on the page, 400 on sign-up, no user, not listed', async () => {
      const got = await tryAfter('user', (id) => t.post(`/users/${id}/deactivate`));
      expect(got.preview.status).toBe(404);
      expect(got.preview.body).toEqual({ code: 'NOT_FOUND', message: VOID });
      expect(got.register.status).toBe(400);
      expect(got.register.body).toEqual({
        code: 'VALIDATION_FAILED',
        message: VOID,
        details: [{ path: '/token', message: VOID }],
      });
      expect(got.created).toBe(false);
      expect(got.listed).toBe(false);
    });

    it('is void once the inviter loses the role that could grant it', async () => {
      // An admin invited an admin, and is now a user: the invitation would grant more than they hold.
      const demoted = await tryAfter('admin', (id) => t.post(`/users/${id}/role`, { role: 'user' }));
      expect(demoted.register.status).toBe(400);
      expect(demoted.created).toBe(false);
      // An admin invited a viewer and is now a user: only admins invite, so it is void too.
      const noLongerAdmin = await tryAfter('viewer', (id) => t.post(`/users/${id}/role`, { role: 'user' }));
      expect(noLongerAdmin.preview.status).toBe(404);
      expect(noLongerAdmin.register.status).toBe(400);
      expect(noLongerAdmin.created).toBe(false);
    });

    it('still works while the inviter can grant it', async () => {
      const got = await tryAfter('user', async () => undefined);
      expect(got.preview.status).toBe(200);
      expect(got.register.status).toBe(201);
      expect(got.created).toBe(true);
    });
  });
});
