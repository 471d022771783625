import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';

describeEachDb('users', (t) => {
  describe('GET /users', () => {
    it('lists every user of the tenant with exactly id, email, name and role', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const runner = await userWithKey(t, 'test-runner');
      const res = await t.get('/users', { key: viewer.key });
      expect(res.status).toBe(200);
      expect(res.body.users[0]).toEqual({
        id: t.ownerId,
        email: 'owner@example.com',
        name: 'Owner',
        role: 'owner',
      });
      expect(res.body.users).toContainEqual({
        id: viewer.user.id,
        email: viewer.user.email,
        name: viewer.user.name,
        role: 'viewer',
      });
      expect(res.body.users).toContainEqual({
        id: runner.user.id,
        email: runner.user.email,
        name: runner.user.name,
        role: 'test-runner',
      });
      for (const u of res.body.users) expect(Object.keys(u).sort()).toEqual(['email', 'id', 'name', 'role']);
    });

    it('answers 401 without a key and with a malformed key', async () => {
      expect((await t.get('/users', { key: null })).status).toBe(401);
      const bad = await t.get('/users', { key: 'default.nope.nope' });
      expect(bad.status).toBe(401);
      expect(bad.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('GET /users/me', () => {
    it('answers the caller with avatar null when none is set', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const res = await t.get('/users/me', { key: viewer.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        user: {
          id: viewer.user.id,
          email: viewer.user.email,
          name: viewer.user.name,
          avatar: null,
          role: 'viewer',
        },
      });
    });

    it('answers the avatar URL when the user has one, and the owner for the owner key', async () => {
      await t.db
        .updateTable('users')
        .set({ avatar: 'https://example.com/a.png' })
        .where('id', '=', t.ownerId)
        .execute();
      const res = await t.get('/users/me');
      expect(res.body).toEqual({
        user: {
          id: t.ownerId,
          email: 'owner@example.com',
          name: 'Owner',
          avatar: 'https://example.com/a.png',
          role: 'owner',
        },
      });
    });

    it('answers 401 without a key', async () => {
      const res = await t.get('/users/me', { key: null });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });
});
