import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';
import { buildApp } from '../../app.js';
import { sha256 } from '../../lib/crypto.js';
import { createUser } from '../users/users.service.js';
import { createApiKey } from '../api-keys/api-keys.service.js';
import type { Role } from '../../auth/roles.js';
import { createPasswordResetLink } from './accounts.service.js';

const ORIGIN = 'http://casebook.test';
let n = 0;
const uniqueEmail = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}@example.com`;

async function userWithPassword(t: TestEnv, role: Role = 'user', password = 'correct horse battery') {
  const user = await createUser(t.db, t.tenantId, {
    email: uniqueEmail(role),
    name: 'Person',
    role,
    password,
  });
  return { ...user, password };
}

function login(t: TestEnv, body: Record<string, unknown>, ip = '10.0.0.1') {
  return t.post('/api/auth/login', body, {
    key: null,
    headers: { 'x-forwarded-for': ip, 'user-agent': 'test/1' },
  });
}

function withCookie(t: TestEnv, method: string, url: string, token: string, body?: unknown) {
  return t.request(method, url, {
    key: null,
    body,
    headers: {
      cookie: `session=${token}`,
      origin: ORIGIN,
      'x-forwarded-for': '10.0.0.1',
      'user-agent': 'test/1',
    },
  });
}

async function auditRows(t: TestEnv, action: string) {
  const rows = await t.db
    .selectFrom('audit_events')
    .selectAll()
    .where('action', '=', action)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, meta: r.meta === null ? null : JSON.parse(r.meta) }));
}

const tokenOf = (link: string) => link.split('/').pop()!;

describeEachDb('accounts', (t) => {
  describe('invitations', () => {
    it('answers 201 with a one-time link, stores only the token hash and records invite_user', async () => {
      const email = uniqueEmail('Invitee');
      const before = (await auditRows(t, 'invite_user')).length;
      const res = await t.post('/users/invitations', { email, role: 'test-runner' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        email,
        role: 'test-runner',
        invitedBy: t.ownerId,
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
        allProjects: false,
        projects: [],
        emailed: false,
        link: expect.stringMatching(/^http:\/\/casebook\.test\/invite\/[\w-]{40,}$/),
      });
      expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(7 * 24 * 3600_000);
      const token = tokenOf(res.body.link);
      const row = await t.db
        .selectFrom('invitations')
        .selectAll()
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(row.token_hash).toBe(sha256(token));
      expect(JSON.stringify(row)).not.toContain(token);
      const events = await auditRows(t, 'invite_user');
      expect(events).toHaveLength(before + 1);
      expect(events.at(-1)).toMatchObject({
        user_id: t.ownerId,
        meta: { invited_email: email, invited_role: 'test-runner' },
      });
      expect(Object.keys(events.at(-1)!.meta).sort()).toEqual(['invited_email', 'invited_role']);
      const list = await t.get('/users/invitations');
      expect(list.status).toBe(200);
      expect(list.body.invitations).toContainEqual({
        id: res.body.id,
        email,
        role: 'test-runner',
        invitedBy: t.ownerId,
        createdAt: res.body.createdAt,
        expiresAt: res.body.expiresAt,
        allProjects: false,
        projects: [],
      });
    });

    it('answers 409 for the e-mail of an existing user or of a pending invitation, 400 for owner or a bad e-mail', async () => {
      const existing = await userWithPassword(t);
      const taken = await t.post('/users/invitations', { email: existing.email.toUpperCase(), role: 'user' });
      expect(taken.status).toBe(409);
      expect(taken.body.message).toBe(`a user with e-mail ${existing.email} exists`);
      const email = uniqueEmail('twice');
      expect((await t.post('/users/invitations', { email, role: 'user' })).status).toBe(201);
      const again = await t.post('/users/invitations', { email, role: 'viewer' });
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(`an invitation for ${email} is pending; cancel it to send a new one`);
      const owner = await t.post('/users/invitations', { email: uniqueEmail('o'), role: 'owner' });
      expect(owner.status).toBe(400);
      expect(owner.body.details).toEqual([
        { path: '/role', message: expect.stringContaining('exactly one owner') },
      ]);
      expect((await t.post('/users/invitations', { email: 'not-an-email', role: 'user' })).status).toBe(400);
      expect((await t.post('/users/invitations', { email: uniqueEmail('r'), role: 'boss' })).status).toBe(
        400,
      );
    });

    it('answers 403 to non-admins', async () => {
      const { key } = await userWithKey(t, 'user');
      const res = await t.post('/users/invitations', { email: uniqueEmail('x'), role: 'viewer' }, { key });
      expect(res.status).toBe(403);
      expect((await t.get('/users/invitations', { key })).status).toBe(403);
    });

    it('shows what an invitation link is for, and registers the invited user once (register)', async () => {
      const email = uniqueEmail('newbie');
      const { link } = (await t.post('/users/invitations', { email, role: 'viewer' })).body;
      const token = tokenOf(link);
      const preview = await t.post('/api/auth/invitation', { token }, { key: null });
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({ email, role: 'viewer', expiresAt: expect.any(String) });

      const from = { 'x-forwarded-for': '10.3.3.3', 'user-agent': 'reg/1' };
      const res = await t.post(
        '/api/auth/register',
        { token, name: 'New Bie', password: 'a good password' },
        { key: null, headers: from },
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number), email });
      const user = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(user).toMatchObject({ email, name: 'New Bie', role: 'viewer', deactivated_at: null });
      expect(user.password_hash).toMatch(/^scrypt\$/);
      const events = (await auditRows(t, 'register')).filter((e) => e.user_id === res.body.id);
      expect(events).toEqual([expect.objectContaining({ ip: '10.3.3.3', user_agent: 'reg/1', meta: null })]);
      expect((await login(t, { email, password: 'a good password' })).status).toBe(200);

      const again = await t.post(
        '/api/auth/register',
        { token, name: 'Other', password: 'a good password' },
        { key: null },
      );
      expect(again.status).toBe(400);
      expect(again.body).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'this invitation link is invalid, expired or already used',
        details: [{ path: '/token', message: 'this invitation link is invalid, expired or already used' }],
      });
      expect((await t.post('/api/auth/invitation', { token }, { key: null })).status).toBe(404);
      expect((await t.get('/users/invitations')).body.invitations.map((i: any) => i.email)).not.toContain(
        email,
      );
    });

    it('answers 400 to a short password or an expired link, and creates no user', async () => {
      const email = uniqueEmail('late');
      const { id, link } = (await t.post('/users/invitations', { email, role: 'user' })).body;
      const short = await t.post(
        '/api/auth/register',
        { token: tokenOf(link), name: 'Late', password: 'short' },
        { key: null },
      );
      expect(short.status).toBe(400);
      expect(short.body.details).toEqual([
        { path: '/password', message: 'password must be 8-1024 characters' },
      ]);
      await t.db
        .updateTable('invitations')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', id)
        .execute();
      const late = await t.post(
        '/api/auth/register',
        { token: tokenOf(link), name: 'Late', password: 'long enough' },
        { key: null },
      );
      expect(late.status).toBe(400);
      expect(await t.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
    });

    it('cancels an invitation (cancel_invite): its link stops working; 409 a second time, 404 unknown', async () => {
      const email = uniqueEmail('cancel');
      const { id, link } = (await t.post('/users/invitations', { email, role: 'admin' })).body;
      const res = await t.del(`/users/invitations/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Invitation cancelled' });
      const events = await auditRows(t, 'cancel_invite');
      expect(events.at(-1)).toMatchObject({
        user_id: t.ownerId,
        meta: { invited_email: email, invited_role: 'admin' },
      });
      expect(Object.keys(events.at(-1)!.meta).sort()).toEqual(['invited_email', 'invited_role']);
      const register = await t.post(
        '/api/auth/register',
        { token: tokenOf(link), name: 'X', password: 'long enough' },
        { key: null },
      );
      expect(register.status).toBe(400);
      const again = await t.del(`/users/invitations/${id}`);
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(`invitation ${id} was already cancelled`);
      expect((await t.del('/users/invitations/nosuchinvite')).status).toBe(404);
      expect((await auditRows(t, 'cancel_invite')).length).toBe(events.length);
    });

    it('lets an admin invite up to admin but not above their own role', async () => {
      const { key } = await userWithKey(t, 'admin');
      expect(
        (await t.post('/users/invitations', { email: uniqueEmail('a'), role: 'admin' }, { key })).status,
      ).toBe(201);
      const owner = await t.post('/users/invitations', { email: uniqueEmail('a'), role: 'owner' }, { key });
      expect(owner.status).toBe(400);
    });
  });

  describe('roles', () => {
    it('lets an admin change the role of a lower user, and answers with the user', async () => {
      const { key } = await userWithKey(t, 'admin');
      const target = await userWithPassword(t, 'viewer');
      const res = await t.post(`/users/${target.id}/role`, { role: 'admin' }, { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        user: { id: target.id, email: target.email, name: 'Person', role: 'admin', active: true },
      });
      expect(
        (await t.db.selectFrom('users').select('role').where('id', '=', target.id).executeTakeFirstOrThrow())
          .role,
      ).toBe('admin');
    });

    it('answers 403 to changing the owner, oneself, an equal admin, and 400 to making an owner', async () => {
      const admin = await userWithKey(t, 'admin');
      const other = await userWithKey(t, 'admin');
      const owner = await t.post(`/users/${t.ownerId}/role`, { role: 'user' }, { key: admin.key });
      expect(owner.status).toBe(403);
      expect(owner.body.message).toBe(
        "you can't change the role of the owner; only the owner can transfer ownership",
      );
      const self = await t.post(`/users/${admin.user.id}/role`, { role: 'user' }, { key: admin.key });
      expect(self.status).toBe(403);
      const peer = await t.post(`/users/${other.user.id}/role`, { role: 'user' }, { key: admin.key });
      expect(peer.status).toBe(403);
      expect(peer.body.message).toBe(
        "you can't change the role of a user whose role (admin) is not below yours (admin)",
      );
      const makeOwner = await t.post(`/users/${other.user.id}/role`, { role: 'owner' });
      expect(makeOwner.status).toBe(400);
      expect(makeOwner.body.message).toBe('ownership is only transferred: POST /users/transfer-ownership');
      // The owner may change an admin's role.
      expect((await t.post(`/users/${other.user.id}/role`, { role: 'user' })).body.user.role).toBe('user');
    });

    it('answers 403 to non-admins and 404 for an unknown user', async () => {
      const { key } = await userWithKey(t, 'user');
      const victim = await userWithPassword(t, 'viewer');
      expect((await t.post(`/users/${victim.id}/role`, { role: 'user' }, { key })).status).toBe(403);
      expect((await t.post('/users/999999/role', { role: 'user' })).status).toBe(404);
      expect((await t.post('/users/abc/role', { role: 'user' })).status).toBe(400);
    });
  });

  describe('GET /users/accounts', () => {
    it('lists every user with whether they are active, to admins only', async () => {
      const gone = await userWithPassword(t, 'viewer');
      await t.post(`/users/${gone.id}/deactivate`);
      const res = await t.get('/users/accounts');
      expect(res.status).toBe(200);
      expect(res.body.users[0]).toEqual({
        id: t.ownerId,
        email: 'owner@example.com',
        name: 'Owner',
        role: 'owner',
        active: true,
      });
      expect(res.body.users).toContainEqual({
        id: gone.id,
        email: gone.email,
        name: 'Person',
        role: 'viewer',
        active: false,
      });
      const { key } = await userWithKey(t, 'user');
      expect((await t.get('/users/accounts', { key })).status).toBe(403);
    });
  });

  describe('POST /users/:userId/password-reset (admin)', () => {
    it('answers the one-time link once (no mail), which sets the password; records issue_password_reset', async () => {
      const admin = await userWithKey(t, 'admin');
      const user = await userWithPassword(t, 'test-runner');
      const before = (await auditRows(t, 'issue_password_reset')).length;
      const res = await t.post(`/users/${user.id}/password-reset`, undefined, { key: admin.key });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        user: { id: user.id, email: user.email, name: 'Person', role: 'test-runner', active: true },
        expiresAt: expect.any(String),
        emailed: false,
        link: expect.stringMatching(/^http:\/\/casebook\.test\/reset-password\/[\w-]{40,}$/),
      });
      expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
      const token = tokenOf(res.body.link);
      const rows = await t.db
        .selectFrom('password_resets')
        .selectAll()
        .where('user_id', '=', user.id)
        .execute();
      expect(rows.map((r) => r.token_hash)).toEqual([sha256(token)]);
      const events = await auditRows(t, 'issue_password_reset');
      expect(events).toHaveLength(before + 1);
      expect(events.at(-1)).toMatchObject({
        user_id: admin.user.id,
        meta: { user_id: user.id, user_email: user.email },
      });
      expect(Object.keys(events.at(-1)!.meta).sort()).toEqual(['user_email', 'user_id']);
      const reset = await t.post(
        '/api/auth/password-reset',
        { token, password: 'set by the link 1' },
        { key: null },
      );
      expect(reset.status).toBe(200);
      expect((await login(t, { email: user.email, password: 'set by the link 1' }, '10.9.0.1')).status).toBe(
        200,
      );
    });

    it('voids an issued link when the user changes role or is deactivated (reactivation does not revive it)', async () => {
      const linkFor = async (userId: number) => {
        const res = await t.post(`/users/${userId}/password-reset`);
        expect(res.status).toBe(201);
        return tokenOf(res.body.link);
      };
      const useLink = (token: string) =>
        t.post('/api/auth/password-reset', { token, password: 'set by an old link' }, { key: null });
      const promoted = await userWithPassword(t, 'test-runner');
      const beforePromotion = await linkFor(promoted.id);
      expect((await t.post(`/users/${promoted.id}/role`, { role: 'admin' })).status).toBe(200);
      expect((await useLink(beforePromotion)).status).toBe(400);

      const paused = await userWithPassword(t, 'test-runner');
      const beforePause = await linkFor(paused.id);
      expect((await t.post(`/users/${paused.id}/deactivate`)).status).toBe(200);
      expect((await t.post(`/users/${paused.id}/reactivate`)).status).toBe(200);
      expect((await useLink(beforePause)).status).toBe(400);
      // A link issued after the change works.
      expect((await useLink(await linkFor(paused.id))).status).toBe(200);
    });

    it('answers 403 to non-admins, for oneself, the owner or an equal admin; 404 unknown; 409 deactivated', async () => {
      const member = await userWithKey(t, 'user');
      const admin = await userWithKey(t, 'admin');
      const peer = await userWithKey(t, 'admin');
      const viewer = await userWithPassword(t, 'viewer');
      const count = async () =>
        (await t.db.selectFrom('password_resets').select('token_hash').execute()).length;
      const before = await count();
      const asMember = await t.post(`/users/${viewer.id}/password-reset`, undefined, { key: member.key });
      expect(asMember.status).toBe(403);
      const self = await t.post(`/users/${admin.user.id}/password-reset`, undefined, { key: admin.key });
      expect(self.status).toBe(403);
      expect(self.body.message).toBe("you can't send a password reset link to yourself");
      const owner = await t.post(`/users/${t.ownerId}/password-reset`, undefined, { key: admin.key });
      expect(owner.status).toBe(403);
      const equal = await t.post(`/users/${peer.user.id}/password-reset`, undefined, { key: admin.key });
      expect(equal.status).toBe(403);
      expect((await t.post('/users/999999/password-reset')).status).toBe(404);
      await t.post(`/users/${viewer.id}/deactivate`);
      const gone = await t.post(`/users/${viewer.id}/password-reset`);
      expect(gone.status).toBe(409);
      expect(gone.body.message).toBe(
        `${viewer.email} is deactivated; reactivate the account before sending a reset link`,
      );
      expect(await count()).toBe(before);
      // The owner may send one to an admin.
      expect((await t.post(`/users/${peer.user.id}/password-reset`)).status).toBe(201);
    });
  });

  describe('deactivation', () => {
    it("stops the user's sign-in, sessions and API keys at once, and reactivation brings keys back", async () => {
      const user = await userWithPassword(t, 'test-runner');
      const { key } = await createApiKey(t.db, t.tenantId, { userId: user.id, name: 'ci' });
      const token = (await login(t, { email: user.email, password: user.password })).body.token as string;
      expect((await t.get('/project', { key })).status).toBe(200);

      const res = await t.post(`/users/${user.id}/deactivate`);
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ id: user.id, active: false });
      const byKey = await t.get('/project', { key });
      expect(byKey.status).toBe(401);
      expect(byKey.body.message).toBe('user deactivated');
      expect((await withCookie(t, 'GET', '/project', token)).status).toBe(401);
      expect(await t.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute()).toEqual(
        [],
      );
      expect((await login(t, { email: user.email, password: user.password }, '10.8.0.1')).status).toBe(401);

      const back = await t.post(`/users/${user.id}/reactivate`);
      expect(back.status).toBe(200);
      expect(back.body.user.active).toBe(true);
      expect((await t.get('/project', { key })).status).toBe(200);
    });

    it('answers 403 to deactivating the owner or oneself', async () => {
      const admin = await userWithKey(t, 'admin');
      const res = await t.post(`/users/${t.ownerId}/deactivate`, undefined, { key: admin.key });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("you can't deactivate the owner; only the owner can transfer ownership");
      expect((await t.post(`/users/${t.ownerId}/deactivate`)).status).toBe(403);
      expect((await t.get('/project')).status).toBe(200);
    });
  });

  describe('POST /users/me/password', () => {
    it('changes the password (password_change), ends the other sessions and keeps this one', async () => {
      const user = await userWithPassword(t);
      const other = (await login(t, { email: user.email, password: user.password })).body.token;
      const mine = (await login(t, { email: user.email, password: user.password })).body.token;
      const res = await withCookie(t, 'POST', '/users/me/password', mine, {
        currentPassword: user.password,
        newPassword: 'a brand new secret',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Password changed' });
      expect((await withCookie(t, 'GET', '/project', mine)).status).toBe(200);
      expect((await withCookie(t, 'GET', '/project', other)).status).toBe(401);
      expect((await login(t, { email: user.email, password: user.password }, '10.9.0.1')).status).toBe(401);
      expect((await login(t, { email: user.email, password: 'a brand new secret' }, '10.9.0.1')).status).toBe(
        200,
      );
      const events = (await auditRows(t, 'password_change')).filter((e) => e.user_id === user.id);
      expect(events).toEqual([expect.objectContaining({ ip: '10.0.0.1', user_agent: 'test/1', meta: null })]);
    });

    it('answers 400 for a wrong current password or a short new one, and keeps the old password', async () => {
      const user = await userWithPassword(t);
      const token = (await login(t, { email: user.email, password: user.password })).body.token;
      const wrong = await withCookie(t, 'POST', '/users/me/password', token, {
        currentPassword: 'not it at all',
        newPassword: 'a brand new secret',
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.details).toEqual([
        { path: '/currentPassword', message: 'the current password is not correct' },
      ]);
      const short = await withCookie(t, 'POST', '/users/me/password', token, {
        currentPassword: user.password,
        newPassword: 'short',
      });
      expect(short.status).toBe(400);
      expect(short.body.details[0].path).toBe('/newPassword');
      expect((await login(t, { email: user.email, password: user.password }, '10.9.1.1')).status).toBe(200);
      expect((await auditRows(t, 'password_change')).filter((e) => e.user_id === user.id)).toEqual([]);
    });
  });

  describe('password reset', () => {
    it('answers the same whether or not the account exists; without mail it issues nothing and logs no link', async () => {
      const user = await userWithPassword(t);
      const lines: string[] = [];
      const stream = new PassThrough();
      stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
      const app = await buildApp({ config: { ...t.config, logLevel: 'info' }, db: t.db, logStream: stream });
      try {
        const ask = (email: string) =>
          app.inject({ method: 'POST', url: '/api/auth/password-reset/request', payload: { email } });
        const known = await ask(user.email);
        const unknown = await ask('nobody-here@example.com');
        expect(known.statusCode).toBe(200);
        expect(unknown.statusCode).toBe(200);
        expect(known.json()).toEqual({ message: 'If the account exists, a reset link has been issued' });
        expect(unknown.json()).toEqual(known.json());
      } finally {
        // Closing waits for the work done after the answers.
        await app.close();
      }
      const logged = lines.map((l) => JSON.parse(l));
      expect(logged.filter((l) => l.userId === user.id)).toEqual([
        expect.objectContaining({ msg: expect.stringContaining('no mail is configured') }),
      ]);
      expect(lines.join('\n')).not.toMatch(/reset-password\//);
      expect(
        await t.db.selectFrom('password_resets').selectAll().where('user_id', '=', user.id).execute(),
      ).toEqual([]);
    });

    it('answers 429 with Retry-After to an address that asked 10 times in 15 minutes, whatever the e-mail', async () => {
      const ask = (email: string) =>
        t.post(
          '/api/auth/password-reset/request',
          { email },
          { key: null, headers: { 'x-forwarded-for': '10.77.0.1' } },
        );
      for (let i = 0; i < 10; i++) expect((await ask(`someone-${i}@example.com`)).status).toBe(200);
      const held = await ask('someone-else@example.com');
      expect(held.status).toBe(429);
      expect(held.body).toEqual({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(
          /^too many password reset requests from this address; try again in \d+ seconds$/,
        ),
      });
      expect(Number(held.headers['retry-after'])).toBeGreaterThan(800);
      const elsewhere = await t.post(
        '/api/auth/password-reset/request',
        { email: 'someone-else@example.com' },
        { key: null, headers: { 'x-forwarded-for': '10.77.0.2' } },
      );
      expect(elsewhere.status).toBe(200);
    });

    it('sets the new password with the link once (password_reset) and ends every session', async () => {
      const user = await userWithPassword(t);
      const token = (await login(t, { email: user.email, password: user.password })).body.token;
      const link = await createPasswordResetLink(
        t.db,
        { tenantId: t.tenantId, ip: '', userAgent: 'cli' },
        user.email,
        t.config.publicUrl,
      );
      const body = { token: tokenOf(link), password: 'reset to this one' };
      const res = await t.post('/api/auth/password-reset', body, {
        key: null,
        headers: { 'x-forwarded-for': '10.6.6.6', 'user-agent': 'reset/1' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Password reset' });
      expect((await withCookie(t, 'GET', '/project', token)).status).toBe(401);
      expect((await login(t, { email: user.email, password: 'reset to this one' }, '10.6.0.1')).status).toBe(
        200,
      );
      const events = (await auditRows(t, 'password_reset')).filter((e) => e.user_id === user.id);
      expect(events).toEqual([
        expect.objectContaining({ ip: '10.6.6.6', user_agent: 'reset/1', meta: null }),
      ]);
      const again = await t.post(
        '/api/auth/password-reset',
        { ...body, password: 'and once more' },
        { key: null },
      );
      expect(again.status).toBe(400);
      expect(again.body.message).toBe('this reset link is invalid, expired or already used');
    });

    it('answers 400 to an expired link or a short password and keeps the old password', async () => {
      const user = await userWithPassword(t);
      const link = await createPasswordResetLink(
        t.db,
        { tenantId: t.tenantId, ip: '', userAgent: 'cli' },
        user.email,
        t.config.publicUrl,
      );
      const short = await t.post(
        '/api/auth/password-reset',
        { token: tokenOf(link), password: 'short' },
        { key: null },
      );
      expect(short.status).toBe(400);
      await t.db
        .updateTable('password_resets')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('user_id', '=', user.id)
        .execute();
      const late = await t.post(
        '/api/auth/password-reset',
        { token: tokenOf(link), password: 'long enough now' },
        { key: null },
      );
      expect(late.status).toBe(400);
      expect((await login(t, { email: user.email, password: user.password }, '10.6.1.1')).status).toBe(200);
    });
  });

  describe('POST /users/me/email', () => {
    it('changes the e-mail with the password and records email_change with old and new', async () => {
      const user = await userWithPassword(t);
      const session = (await login(t, { email: user.email, password: user.password })).body.token;
      const next = uniqueEmail('moved');
      const res = await withCookie(t, 'POST', '/users/me/email', session, {
        email: next,
        password: user.password,
      });
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ id: user.id, email: next });
      const events = (await auditRows(t, 'email_change')).filter((e) => e.user_id === user.id);
      expect(events).toHaveLength(1);
      expect(events[0].meta).toEqual({ old: user.email, new: next });
      expect((await login(t, { email: next, password: user.password }, '10.10.0.1')).status).toBe(200);
    });

    it('answers 409 for a taken e-mail and 400 for a wrong password, changing nothing', async () => {
      const user = await userWithPassword(t);
      const other = await userWithPassword(t);
      const session = (await login(t, { email: user.email, password: user.password })).body.token;
      const taken = await withCookie(t, 'POST', '/users/me/email', session, {
        email: other.email,
        password: user.password,
      });
      expect(taken.status).toBe(409);
      const wrong = await withCookie(t, 'POST', '/users/me/email', session, {
        email: uniqueEmail('x'),
        password: 'wrong password',
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.details).toEqual([
        { path: '/password', message: 'the current password is not correct' },
      ]);
      const row = await t.db
        .selectFrom('users')
        .select('email')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.email).toBe(user.email);
      expect((await auditRows(t, 'email_change')).filter((e) => e.user_id === user.id)).toEqual([]);
    });
  });

  describe('display name', () => {
    it("changes one's own name, trimmed, and answers the account", async () => {
      const user = await userWithPassword(t);
      const { key } = await createApiKey(t.db, t.tenantId, { userId: user.id, name: 'mine' });
      const res = await t.request('PATCH', '/users/me', { key, body: { name: '  Ada Lovelace ' } });
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ id: user.id, name: 'Ada Lovelace', email: user.email });
      const row = await t.db
        .selectFrom('users')
        .select('name')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('Ada Lovelace');
    });

    it('answers 400 naming the field for a blank name and changes nothing', async () => {
      const user = await userWithPassword(t);
      const { key } = await createApiKey(t.db, t.tenantId, { userId: user.id, name: 'mine' });
      const res = await t.request('PATCH', '/users/me', { key, body: { name: '   ' } });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: '/name', message: 'name must be 1-255 characters' }]);
      const row = await t.db
        .selectFrom('users')
        .select('name')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('Person');
    });
  });
});

describeEachDb('ownership transfer', (t) => {
  it('answers 403 to admins; the owner hands ownership over and becomes an admin', async () => {
    const admin = await userWithKey(t, 'admin');
    const denied = await t.post('/users/transfer-ownership', { userId: admin.user.id }, { key: admin.key });
    expect(denied.status).toBe(403);
    expect((await t.post('/users/transfer-ownership', { userId: t.ownerId })).status).toBe(400);
    expect((await t.post('/users/transfer-ownership', { userId: 999999 })).status).toBe(400);

    const res = await t.post('/users/transfer-ownership', { userId: admin.user.id });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: admin.user.id, role: 'owner' });
    const roles = await t.db
      .selectFrom('users')
      .select(['id', 'role'])
      .where('role', 'in', ['owner', 'admin'])
      .execute();
    expect(roles.filter((r) => r.role === 'owner')).toEqual([{ id: admin.user.id, role: 'owner' }]);
    expect(roles).toContainEqual({ id: t.ownerId, role: 'admin' });
    // The former owner is now an admin below the new owner.
    expect((await t.post(`/users/${admin.user.id}/deactivate`)).status).toBe(403);
    expect((await t.post(`/users/${t.ownerId}/role`, { role: 'user' }, { key: admin.key })).status).toBe(200);
  });
});
