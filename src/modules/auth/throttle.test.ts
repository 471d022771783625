import { describe, expect, it, vi } from 'vitest';
import { auditRows } from '../../../test/helpers/factories.js';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createUser } from '../users/users.service.js';

// The sign-in throttle (docs/api-decisions.md#sign-in-throttle): growing delays per address and per account, and
// guesses from anywhere cannot lock the owner out. Its second-factor side: two-factor.test.ts.

let n = 0;

async function userWithPassword(t: TestEnv, password = 'correct horse battery') {
  const email = `throttle-${Date.now().toString(36)}-${n++}@example.com`;
  const user = await createUser(t.db, t.tenantId, { email, name: 'Signer', role: 'user', password });
  return { ...user, password };
}

/** Signs in from the given address (X-Forwarded-For: the app trusts its proxy). */
function login(t: TestEnv, body: Record<string, unknown>, from: { ip?: string } = {}) {
  return t.post('/api/auth/login', body, {
    key: null,
    headers: { 'x-forwarded-for': from.ip ?? '10.0.0.1', 'user-agent': 'test-browser/1' },
  });
}

describeEachDb('sign-in throttle', (t) => {
  describe('throttling', () => {
    it('delays an account guessed at from many addresses: 429 with a growing Retry-After, even for the right password', async () => {
      const user = await userWithPassword(t);
      for (let i = 0; i < 5; i++) {
        const res = await login(t, { email: user.email, password: `wrong-${i}` }, { ip: `10.2.0.${i}` });
        expect(res.status).toBe(401);
      }
      const res = await login(t, { email: user.email, password: user.password }, { ip: '10.2.1.1' });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/^too many failed sign-in attempts; try again in \d+ seconds$/),
      });
      // The first delay is 15 seconds, not a 15-minute lock-out.
      const first = Number(res.headers['retry-after']);
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(15);
      expect(await auditRows(t, 'login', user.id)).toEqual([]);
      // Once it has passed, one more failure doubles it.
      const earlier = new Date(Date.now() - 20_000).toISOString();
      await t.db
        .updateTable('sign_in_failures')
        .set({ created_at: earlier })
        .where('email_norm', '=', user.email)
        .execute();
      expect((await login(t, { email: user.email, password: 'wrong' }, { ip: '10.2.0.9' })).status).toBe(401);
      const second = await login(t, { email: user.email, password: user.password }, { ip: '10.2.1.1' });
      expect(second.status).toBe(429);
      expect(Number(second.headers['retry-after'])).toBeGreaterThan(15);
      expect(Number(second.headers['retry-after'])).toBeLessThanOrEqual(30);
    });

    it('lets the owner in from an address they signed in from, however many failures others cause on the account', async () => {
      const user = await userWithPassword(t);
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.2.5.5' })).status,
      ).toBe(200);
      // An attacker spreads 30 guesses over many addresses: the account's delay is at its cap.
      for (let i = 0; i < 30; i++) {
        await login(t, { email: user.email, password: `guess-${i}` }, { ip: `10.2.6.${i}` });
      }
      const stranger = await login(t, { email: user.email, password: user.password }, { ip: '10.2.7.7' });
      expect(stranger.status).toBe(429);
      expect(Number(stranger.headers['retry-after'])).toBeLessThanOrEqual(300);
      const owner = await login(t, { email: user.email, password: user.password }, { ip: '10.2.5.5' });
      expect(owner.status).toBe(200);
      // The owner's sign-in does not hand the attacker fresh free guesses.
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.2.7.7' })).status,
      ).toBe(429);
    });

    it('delays the guessing address itself: 10 free failures across accounts, then 429, while other addresses sign in', async () => {
      for (let i = 0; i < 10; i++) {
        const res = await login(t, { email: `guess-${i}@example.com`, password: 'x' }, { ip: '10.4.4.4' });
        expect(res.status).toBe(401);
      }
      const user = await userWithPassword(t);
      const blocked = await login(t, { email: user.email, password: user.password }, { ip: '10.4.4.4' });
      expect(blocked.status).toBe(429);
      expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.4.4.5' })).status,
      ).toBe(200);
    });

    it('answers the right password exactly as a wrong one while an account without 2FA waits, a code sent or not', async () => {
      // Only Date is faked and it stands still: both accounts are in the same state when asked, to the millisecond.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(new Date('2031-06-01T09:00:00Z'));
        const right = await userWithPassword(t);
        const wrong = await userWithPassword(t);
        for (const [k, user] of [right, wrong].entries()) {
          for (let i = 0; i < 5; i++)
            await login(t, { email: user.email, password: `guess-${i}` }, { ip: `10.12.${k}.${i}` });
        }
        vi.setSystemTime(new Date('2031-06-01T09:00:05Z'));
        const failuresOf = async (email: string) =>
          (await t.db.selectFrom('sign_in_failures').select('id').where('email_norm', '=', email).execute())
            .length;
        for (const totp of ['123456', undefined]) {
          const a = await login(
            t,
            { email: right.email, password: right.password, ...(totp ? { totp } : {}) },
            { ip: '10.12.9.1' },
          );
          const b = await login(
            t,
            { email: wrong.email, password: 'not it', ...(totp ? { totp } : {}) },
            { ip: '10.12.9.2' },
          );
          expect(a.status).toBe(429);
          expect({ status: a.status, body: a.body, retryAfter: a.headers['retry-after'] }).toEqual({
            status: b.status,
            body: b.body,
            retryAfter: b.headers['retry-after'],
          });
          expect(await failuresOf(right.email)).toBe(await failuresOf(wrong.email));
        }
        expect(await auditRows(t, 'login', right.id)).toEqual([]);
      } finally {
        vi.useRealTimers();
      }
    });

    it('counts an IPv6 /64 as one address: its addresses share the delay, and a sign-in proves the whole /64', async () => {
      for (let i = 0; i < 10; i++) {
        const res = await login(
          t,
          { email: `guess6-${i}@example.com`, password: 'x' },
          { ip: `2001:db8:5:6::${(i + 1).toString(16)}` },
        );
        expect(res.status).toBe(401);
      }
      const user = await userWithPassword(t);
      const body = { email: user.email, password: user.password };
      const blocked = await login(t, body, { ip: '2001:db8:5:6:ffff:1:2:3' });
      expect(blocked.status).toBe(429);
      expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
      expect((await login(t, body, { ip: '2001:db8:5:7::1' })).status).toBe(200);
      // The account waits for strangers; another address of the /64 the owner signed in from is not one.
      for (let i = 0; i < 5; i++)
        await login(t, { email: user.email, password: 'wrong' }, { ip: `10.13.0.${i}` });
      expect((await login(t, body, { ip: '10.13.1.1' })).status).toBe(429);
      expect((await login(t, body, { ip: '2001:db8:5:7:aaaa::9' })).status).toBe(200);
    });

    it('lets the account in again once the failures are older than 15 minutes', async () => {
      const user = await userWithPassword(t);
      for (let i = 0; i < 5; i++)
        await login(t, { email: user.email, password: 'wrong' }, { ip: '10.3.0.1' });
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.3.0.1' })).status,
      ).toBe(429);
      const old = new Date(Date.now() - 16 * 60_000).toISOString();
      await t.db
        .updateTable('sign_in_failures')
        .set({ created_at: old })
        .where('email_norm', '=', user.email)
        .execute();
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.3.0.1' })).status,
      ).toBe(200);
    });

    it('forgives the account its failures after a successful sign-in', async () => {
      const user = await userWithPassword(t);
      for (let i = 0; i < 4; i++)
        await login(t, { email: user.email, password: 'wrong' }, { ip: '10.5.0.1' });
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.5.0.1' })).status,
      ).toBe(200);
      for (let i = 0; i < 4; i++)
        await login(t, { email: user.email, password: 'wrong' }, { ip: '10.5.0.1' });
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.5.0.1' })).status,
      ).toBe(200);
    });
  });
});
