import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeEachDb, type RequestOptions, type TestEnv } from '../../../test/helpers/test-app.js';
import { userWithKey as keyedUser } from '../../../test/helpers/factories.js';
import { hashPassword, sha256 } from '../../lib/crypto.js';
import type { Role } from '../../auth/roles.js';
import { setPasswordHash } from '../users/users.service.js';
import { createDeviceKey } from './api-keys.service.js';

/** Signs in with a password through the sign-in API; the options send the session cookie (no key). */
async function signIn(t: TestEnv, email: string, password: string): Promise<RequestOptions> {
  const res = await t.post('/api/auth/login', { email, password }, { key: null });
  expect(res.status, res.text).toBe(200);
  return { key: null, headers: { cookie: `session=${res.body.token}` } };
}

/** A user with an API key, signed in to the web page too: keys are made with `session` (a key may not make one). */
async function userWithKey(t: TestEnv, role: Exclude<Role, 'owner'>, options: { keyName?: string } = {}) {
  const made = await keyedUser(t, role, options);
  const password = 'a password long enough';
  await setPasswordHash(t.db, t.tenantId, made.user.id, await hashPassword(password));
  return { ...made, session: await signIn(t, made.user.email, password) };
}

const KEY_FIELDS = ['createdAt', 'id', 'kind', 'name', 'restricted', 'userEmail', 'userId'];

describeEachDb('API keys through the API (D2)', (t) => {
  describe('one’s own keys: /users/me/api-keys', () => {
    it('creates a key shown once that works at once, and stores only the hash of its secret', async () => {
      const me = await userWithKey(t, 'viewer');
      const res = await t.post('/users/me/api-keys', { name: 'laptop' }, me.session);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['id', 'key']);
      const [tenant, keyId, secret] = (res.body.key as string).split('.');
      expect(tenant).toBe(t.tenantId);
      expect(keyId).toBe(res.body.id);
      expect(Buffer.from(secret, 'base64url').length).toBeGreaterThanOrEqual(32);
      const row = await t.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', keyId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ user_id: me.user.id, name: 'laptop', secret_hash: sha256(secret) });
      expect(JSON.stringify(row)).not.toContain(secret);
      const whoami = await t.get('/users/me', { key: res.body.key });
      expect(whoami.status).toBe(200);
      expect(whoami.body.user.id).toBe(me.user.id);
    });

    it('lists only one’s own keys, without secrets or hashes', async () => {
      const me = await userWithKey(t, 'user');
      await userWithKey(t, 'user');
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      await t.post('/users/me/api-keys', { name: 'SIEM-LOG-ONLY export', expiresAt: expires }, me.session);
      const res = await t.get('/users/me/api-keys', { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body.apiKeys).toHaveLength(2);
      for (const k of res.body.apiKeys) {
        expect(k.userId).toBe(me.user.id);
        expect(
          Object.keys(k).every((f) => [...KEY_FIELDS, 'expiresAt', 'lastUsedAt', 'revokedAt'].includes(f)),
        ).toBe(true);
      }
      const siem = res.body.apiKeys.find((k: any) => k.name === 'SIEM-LOG-ONLY export');
      expect(siem).toEqual({
        id: expect.any(String),
        name: 'SIEM-LOG-ONLY export',
        userId: me.user.id,
        userEmail: me.user.email,
        restricted: true,
        createdAt: expect.any(String),
        expiresAt: expires,
        kind: 'key',
      });
      expect(JSON.stringify(res.body)).not.toMatch(/secret|hash/i);
    });

    it('revokes one’s own key (it stops at once) and answers 404 for another user’s key', async () => {
      const me = await userWithKey(t, 'user');
      const other = await userWithKey(t, 'user');
      const spare = (await t.post('/users/me/api-keys', { name: 'spare' }, me.session)).body;
      const foreign = await t.del(`/users/me/api-keys/${other.keyId}`, { key: me.key });
      expect(foreign.status).toBe(404);
      expect((await t.get('/project', { key: other.key })).status).toBe(200);
      const res = await t.del(`/users/me/api-keys/${spare.id}`, { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'API key revoked' });
      const after = await t.get('/project', { key: spare.key });
      expect(after.status).toBe(401);
      expect(after.body.message).toBe('API key revoked');
      const listed = (await t.get('/users/me/api-keys', { key: me.key })).body.apiKeys.find(
        (k: any) => k.id === spare.id,
      );
      expect(listed.revokedAt).toEqual(expect.any(String));
    });

    it('answers 400 for an expiry in the past or not a date, a blank name or an unknown field', async () => {
      const me = await userWithKey(t, 'user');
      for (const body of [
        { name: 'old', expiresAt: '2001-01-01T00:00:00Z' },
        { name: 'bad', expiresAt: 'tomorrow-ish' },
        { name: '   ' },
        { name: 'x', userId: me.user.id },
      ]) {
        const res = await t.post('/users/me/api-keys', body, me.session);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      expect((await t.get('/users/me/api-keys', { key: me.key })).body.apiKeys).toHaveLength(1);
    });

    it('stops accepting a key once it has expired', async () => {
      const me = await userWithKey(t, 'user');
      const soon = new Date(Date.now() + 60_000).toISOString();
      const made = (await t.post('/users/me/api-keys', { name: 'short-lived', expiresAt: soon }, me.session))
        .body;
      expect((await t.get('/project', { key: made.key })).status).toBe(200);
      await t.db
        .updateTable('api_keys')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', made.id)
        .execute();
      const res = await t.get('/project', { key: made.key });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('API key expired');
    });

    it('answers 403 to SIEM-LOG-ONLY keys (D5)', async () => {
      const siem = await userWithKey(t, 'admin', { keyName: 'SIEM-LOG-ONLY reader' });
      expect((await t.get('/users/me/api-keys', { key: siem.key })).status).toBe(403);
      expect((await t.post('/users/me/api-keys', { name: 'escape' }, { key: siem.key })).status).toBe(403);
    });
  });

  describe('keys are made signed in (docs/api-decisions.md#keys-are-made-signed-in)', () => {
    it('answers 403 to an API key or a device token making a key, for oneself or (admin) for another', async () => {
      const admin = await userWithKey(t, 'admin');
      const ci = await userWithKey(t, 'test-runner');
      const device = await createDeviceKey(t.db, t.tenantId, {
        userId: admin.user.id,
        clientId: 'qas-cli',
        clientName: 'QA Sphere CLI',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      const message =
        'API keys are made by a person signed in to the web page: sign in to make one; API keys and device tokens may not';
      for (const key of [admin.key, device.key, t.ownerKey]) {
        const own = await t.post('/users/me/api-keys', { name: 'minted' }, { key });
        expect(own.status).toBe(403);
        expect(own.body).toEqual({ code: 'FORBIDDEN', message });
        const other = await t.post('/api-keys', { userId: ci.user.id, name: 'minted' }, { key });
        expect(other.status).toBe(403);
        expect(other.body).toEqual({ code: 'FORBIDDEN', message });
      }
      const minted = await t.db.selectFrom('api_keys').select('id').where('name', '=', 'minted').execute();
      expect(minted).toEqual([]);
      // Signed in, the same requests make keys; and a key still lists and revokes them.
      expect((await t.post('/users/me/api-keys', { name: 'made' }, admin.session)).status).toBe(201);
      const made = await t.post('/api-keys', { userId: ci.user.id, name: 'made' }, admin.session);
      expect(made.status).toBe(201);
      expect((await t.get('/users/me/api-keys', { key: admin.key })).status).toBe(200);
      expect((await t.del(`/api-keys/${made.body.id}`, { key: admin.key })).status).toBe(200);
    });
  });

  describe('admin: /api-keys', () => {
    it('lets an admin create a key for a lower user (e.g. a CI account), acting as that user', async () => {
      const admin = await userWithKey(t, 'admin');
      const ci = await userWithKey(t, 'test-runner');
      const res = await t.post('/api-keys', { userId: ci.user.id, name: 'ci pipeline' }, admin.session);
      expect(res.status).toBe(201);
      const whoami = await t.get('/users/me', { key: res.body.key });
      expect(whoami.body.user).toMatchObject({ id: ci.user.id, role: 'test-runner' });
    });

    it('answers 403 to keys for the owner or an equal admin, 400 for an unknown user, 403 to non-admins', async () => {
      const admin = await userWithKey(t, 'admin');
      const peer = await userWithKey(t, 'admin');
      const forOwner = await t.post('/api-keys', { userId: t.ownerId, name: 'take over' }, admin.session);
      expect(forOwner.status).toBe(403);
      expect(forOwner.body.message).toBe(
        "you can't create API keys for the owner; only the owner can transfer ownership",
      );
      expect((await t.post('/api-keys', { userId: peer.user.id, name: 'x' }, admin.session)).status).toBe(
        403,
      );
      const unknown = await t.post('/api-keys', { userId: 999999, name: 'x' }, admin.session);
      expect(unknown.status).toBe(400);
      expect(unknown.body.details).toEqual([{ path: '/userId', message: 'user 999999 not found' }]);
      const user = await userWithKey(t, 'user');
      expect((await t.post('/api-keys', { userId: user.user.id, name: 'x' }, user.session)).status).toBe(403);
      expect((await t.get('/api-keys', { key: user.key })).status).toBe(403);
      // The owner may make keys for an admin.
      const owner = await signIn(t, 'owner@example.com', 'owner-password');
      expect((await t.post('/api-keys', { userId: peer.user.id, name: 'by owner' }, owner)).status).toBe(201);
    });

    it('lists every key of the tenant, or one user’s, without secrets', async () => {
      const a = await userWithKey(t, 'user');
      const b = await userWithKey(t, 'viewer');
      const all = await t.get('/api-keys');
      expect(all.status).toBe(200);
      const ids = all.body.apiKeys.map((k: any) => k.id);
      expect(ids).toEqual(expect.arrayContaining([a.keyId, b.keyId]));
      const one = await t.get('/api-keys', { query: { userId: a.user.id } });
      expect(one.body.apiKeys.map((k: any) => k.id)).toEqual([a.keyId]);
      expect(Object.keys(one.body.apiKeys[0]).sort()).toEqual(KEY_FIELDS);
    });

    it("revokes a lower user's key, and answers 403 to an admin revoking the owner's key", async () => {
      const admin = await userWithKey(t, 'admin');
      const target = await userWithKey(t, 'user');
      const res = await t.del(`/api-keys/${target.keyId}`, { key: admin.key });
      expect(res.status).toBe(200);
      expect((await t.get('/project', { key: target.key })).status).toBe(401);
      const ownerKeyId = t.ownerKey.split('.')[1];
      expect((await t.del(`/api-keys/${ownerKeyId}`, { key: admin.key })).status).toBe(403);
      expect((await t.get('/project')).status).toBe(200);
      expect((await t.del('/api-keys/nosuchkey', { key: admin.key })).status).toBe(404);
    });
  });

  describe('last use', () => {
    afterEach(() => vi.restoreAllMocks());

    const storedLastUse = async (keyId: string) =>
      (
        await t.db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', keyId)
          .executeTakeFirstOrThrow()
      ).last_used_at;

    it('shows when a key was last used, written once a minute at most however many requests it makes', async () => {
      const me = await userWithKey(t, 'user');
      const made = await t.post('/users/me/api-keys', { name: 'ci' }, me.session);
      const listed = async () =>
        (await t.get('/users/me/api-keys', { key: me.key })).body.apiKeys.find(
          (k: any) => k.id === made.body.id,
        );
      expect(await listed()).not.toHaveProperty('lastUsedAt');

      const before = Date.now();
      expect((await t.get('/project', { key: made.body.key })).status).toBe(200);
      const first = (await listed()).lastUsedAt;
      expect(Date.parse(first)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(first)).toBeLessThanOrEqual(Date.now());
      expect(await storedLastUse(made.body.id)).toBe(first);

      // More requests within the minute write nothing: the stored time stays the first one.
      for (let i = 0; i < 3; i++) expect((await t.get('/project', { key: made.body.key })).status).toBe(200);
      await Promise.all([1, 2, 3].map(() => t.get('/project', { key: made.body.key })));
      expect(await storedLastUse(made.body.id)).toBe(first);

      // A minute on, the next request moves it.
      const later = Date.now() + 61_000;
      vi.spyOn(Date, 'now').mockReturnValue(later);
      expect((await t.get('/project', { key: made.body.key })).status).toBe(200);
      expect(await storedLastUse(made.body.id)).toBe(new Date(later).toISOString());
    });

    it('shows when a device sign-in was last used, in the admin listing too', async () => {
      const me = await userWithKey(t, 'user');
      const device = await createDeviceKey(t.db, t.tenantId, {
        userId: me.user.id,
        clientId: 'qas-cli',
        clientName: 'QA Sphere CLI',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect((await t.get('/project', { key: device.key })).status).toBe(200);
      const all = await t.get('/api-keys', { query: { userId: me.user.id } });
      expect(all.status).toBe(200);
      const row = all.body.apiKeys.find((k: any) => k.id === device.id);
      expect(row).toMatchObject({ kind: 'device', clientId: 'qas-cli', lastUsedAt: expect.any(String) });
      expect(row.lastUsedAt).toBe(await storedLastUse(device.id));
    });
  });

  it('lists the key routes in the OpenAPI document', async () => {
    const doc = await t.get('/api/public/v0/openapi.json', { key: null });
    for (const path of [
      '/api/public/v0/users/me/api-keys',
      '/api/public/v0/api-keys',
      '/api/public/v0/api-keys/{keyId}',
    ]) {
      expect(Object.keys(doc.body.paths), path).toContain(path);
    }
  });
});
