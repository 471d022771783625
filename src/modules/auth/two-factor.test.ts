import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { auditRows } from '../../../test/helpers/factories.js';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { sha256 } from '../../lib/crypto.js';
import { createUser } from '../users/users.service.js';

let n = 0;

const login = (t: TestEnv, body: Record<string, unknown>, ip = '10.20.0.1') =>
  t.post('/api/auth/login', body, { key: null, headers: { 'x-forwarded-for': ip } });

/** A person signed in to the web page: changes to how an account signs in take the session cookie, not a key. */
async function personSignedIn(t: TestEnv, ip = '10.20.0.1') {
  const password = 'correct horse battery';
  const email = `tfa-${Date.now().toString(36)}-${n++}@example.com`;
  const user = await createUser(t.db, t.tenantId, { email, name: 'Two Factor', role: 'user', password });
  const token = (await login(t, { email, password }, ip)).body.token as string;
  const me = { key: null, headers: { cookie: `session=${token}`, 'x-forwarded-for': ip } };
  return { user, password, me };
}

/** A signed-in person with two-factor sign-in on; the clock has moved past the step that turned it on. */
async function personWithTwoFactor(t: TestEnv, ip: string) {
  const person = await personSignedIn(t, ip);
  const { secret } = (await t.post('/users/me/2fa/setup', { password: person.password }, person.me)).body;
  const enabled = await t.post('/users/me/2fa/enable', { totp: codeFor(secret) }, person.me);
  expect(enabled.status).toBe(200);
  vi.setSystemTime(new Date(Date.now() + 30_000));
  return { ...person, secret: secret as string };
}

const codeFor = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();

/** A six-digit code that is surely not the current one. */
const wrongCode = (secret: string) =>
  String((Number(codeFor(secret)) + 500_000) % 1_000_000).padStart(6, '0');

describeEachDb('two-factor sign-in', (t) => {
  // Only Date is faked: TOTP codes follow the clock, and the tests move it on by whole 30-second steps.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2031-03-01T10:00:05Z'));
  });
  afterAll(() => vi.useRealTimers());
  const nextStep = () => vi.setSystemTime(new Date(Date.now() + 30_000));

  it('sets up with the password, turns on with a code (2fa_enable) and stores the secret sealed and the codes hashed', async () => {
    const { user, password, me } = await personSignedIn(t);
    expect((await t.get('/users/me/2fa', me)).body).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    const wrong = await t.post('/users/me/2fa/setup', { password: 'not my password' }, me);
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([
      { path: '/password', message: 'the current password is not correct' },
    ]);

    const setup = await t.post('/users/me/2fa/setup', { password }, me);
    expect(setup.status).toBe(200);
    const { secret, otpauthUrl } = setup.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(otpauthUrl).toContain('issuer=Casebook');
    const pending = await t.db
      .selectFrom('two_factor')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(pending.enabled_at).toBeNull();
    expect(pending.secret_enc).not.toContain(secret);
    expect(pending.secret_enc).toMatch(/^v1:/);
    // A pending set-up does not change sign-in yet.
    expect((await login(t, { email: user.email, password })).status).toBe(200);

    const bad = await t.post('/users/me/2fa/enable', { totp: wrongCode(secret) }, me);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: '/totp', message: 'the code does not match the new secret' }]);

    const on = await t.post('/users/me/2fa/enable', { totp: codeFor(secret) }, me);
    expect(on.status).toBe(200);
    const codes = on.body.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(new Set(codes).size).toBe(10);
    const stored = await t.db
      .selectFrom('recovery_codes')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(stored.map((r) => r.code_hash).sort()).toEqual(
      codes.map((c) => sha256(c.replace('-', ''))).sort(),
    );
    expect(JSON.stringify(stored)).not.toContain(codes[0]);
    expect(await auditRows(t, '2fa_enable', user.id)).toEqual([expect.objectContaining({ meta: null })]);
    expect((await t.get('/users/me/2fa', me)).body).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    expect((await t.post('/users/me/2fa/setup', { password }, me)).status).toBe(409);
  });

  it('then requires a code at sign-in: each TOTP code works once, each recovery code once', async () => {
    const { user, password, me } = await personSignedIn(t);
    const { secret } = (await t.post('/users/me/2fa/setup', { password }, me)).body;
    const enableCode = codeFor(secret);
    const { recoveryCodes } = (await t.post('/users/me/2fa/enable', { totp: enableCode }, me)).body;

    const missing = await login(t, { email: user.email, password });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      code: 'UNAUTHORIZED',
      message: 'two-factor code required: send "totp" or "recoveryCode"',
      details: [{ path: '/totp', message: 'two-factor code required: send "totp" or "recoveryCode"' }],
    });
    const wrong = await login(t, { email: user.email, password, totp: wrongCode(secret) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('invalid two-factor code');
    expect(wrong.body.details).toEqual([{ path: '/totp', message: 'invalid two-factor code' }]);
    // The code that turned it on was spent.
    expect((await login(t, { email: user.email, password, totp: enableCode })).status).toBe(401);

    nextStep();
    const fresh = codeFor(secret);
    const ok = await login(t, { email: user.email, password, totp: fresh });
    expect(ok.status).toBe(200);
    expect(ok.body.token).toEqual(expect.any(String));
    expect((await login(t, { email: user.email, password, totp: fresh })).status).toBe(401);

    const recovery = recoveryCodes[3].toUpperCase();
    expect((await login(t, { email: user.email, password, recoveryCode: recovery })).status).toBe(200);
    expect((await login(t, { email: user.email, password, recoveryCode: recovery })).status).toBe(401);
    expect((await t.get('/users/me/2fa', me)).body).toEqual({ enabled: true, recoveryCodesLeft: 9 });
    // A wrong password is still the plain 401, code or not.
    const badPassword = await login(t, { email: user.email, password: 'nope nope', totp: codeFor(secret) });
    expect(badPassword.body.message).toBe('invalid e-mail or password');
  });

  it('turns off with the password and a code (2fa_disable); sign-in needs no code again', async () => {
    const { user, password, me } = await personSignedIn(t);
    const { secret } = (await t.post('/users/me/2fa/setup', { password }, me)).body;
    await t.post('/users/me/2fa/enable', { totp: codeFor(secret) }, me);
    nextStep();
    const noCode = await t.post('/users/me/2fa/disable', { password }, me);
    expect(noCode.status).toBe(400);
    expect(noCode.body.details[0].path).toBe('/totp');
    const wrongPassword = await t.post(
      '/users/me/2fa/disable',
      { password: 'wrong one', totp: codeFor(secret) },
      me,
    );
    expect(wrongPassword.status).toBe(400);
    expect(await auditRows(t, '2fa_disable', user.id)).toEqual([]);

    const off = await t.post('/users/me/2fa/disable', { password, totp: codeFor(secret) }, me);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ message: 'Two-factor sign-in turned off' });
    expect(await auditRows(t, '2fa_disable', user.id)).toEqual([expect.objectContaining({ meta: null })]);
    expect(await t.db.selectFrom('two_factor').selectAll().where('user_id', '=', user.id).execute()).toEqual(
      [],
    );
    expect(
      await t.db.selectFrom('recovery_codes').selectAll().where('user_id', '=', user.id).execute(),
    ).toEqual([]);
    expect((await login(t, { email: user.email, password })).status).toBe(200);
    expect((await t.post('/users/me/2fa/disable', { password, totp: codeFor(secret) }, me)).status).toBe(409);
  });

  it('replaces the recovery codes with the password and a code; the old ones stop working', async () => {
    const { user, password, me } = await personSignedIn(t);
    const { secret } = (await t.post('/users/me/2fa/setup', { password }, me)).body;
    const old = (await t.post('/users/me/2fa/enable', { totp: codeFor(secret) }, me)).body.recoveryCodes;
    nextStep();
    const res = await t.post('/users/me/2fa/recovery-codes', { password, totp: codeFor(secret) }, me);
    expect(res.status).toBe(200);
    expect(res.body.recoveryCodes).toHaveLength(10);
    expect((await login(t, { email: user.email, password, recoveryCode: old[0] })).status).toBe(401);
    expect(
      (await login(t, { email: user.email, password, recoveryCode: res.body.recoveryCodes[0] })).status,
    ).toBe(200);
  });

  it('counts a wrong code when turning two-factor off or replacing recovery codes toward the sign-in throttle', async () => {
    const { password, me, secret } = await personWithTwoFactor(t, '10.20.9.9');
    for (let i = 0; i < 10; i++) {
      const path = i % 2 === 0 ? '/users/me/2fa/disable' : '/users/me/2fa/recovery-codes';
      const wrong = await t.post(path, { password, totp: wrongCode(secret) }, me);
      expect(wrong.status).toBe(400);
      expect(wrong.body.details).toEqual([{ path: '/totp', message: 'the two-factor code is not correct' }]);
    }
    // The eleventh try waits, even with the right code, and changes nothing.
    const held = await t.post('/users/me/2fa/disable', { password, totp: codeFor(secret) }, me);
    expect(held.status).toBe(429);
    expect(held.body.code).toBe('RATE_LIMITED');
    expect(held.headers['retry-after']).toMatch(/^\d+$/);
    expect((await t.get('/users/me/2fa', me)).body.enabled).toBe(true);
  });

  it('lets the right password and code in from a new address while guesses delay the account; a wrong code gets the same 429', async () => {
    const { user, password, secret } = await personWithTwoFactor(t, '10.21.0.1');
    for (let i = 0; i < 12; i++) {
      const guess = await login(t, { email: user.email, password: `guess ${i}` }, `10.21.1.${i}`);
      expect([401, 429]).toContain(guess.status);
    }
    const fresh = '10.21.2.2';
    const noCode = await login(t, { email: user.email, password }, fresh);
    expect(noCode.status).toBe(429);
    const wrong = await login(t, { email: user.email, password, totp: wrongCode(secret) }, fresh);
    expect(wrong.status).toBe(429);
    expect(Object.keys(wrong.body).sort()).toEqual(['code', 'message']);
    const guessedWithCode = await login(
      t,
      { email: user.email, password: 'guess 99', totp: codeFor(secret) },
      fresh,
    );
    expect(guessedWithCode.status).toBe(429);
    const owner = await login(t, { email: user.email, password, totp: codeFor(secret) }, fresh);
    expect(owner.status).toBe(200);
    expect(owner.body.token).toEqual(expect.any(String));
  });
});

// A started server always has a secret key (src/secret-key.ts); an app built without one is a programming error.
describeEachDb(
  'two-factor sign-in in an app built without the secret key',
  (t) => {
    it('stores no TOTP secret: an internal error, nothing the client can fix', async () => {
      const { password, me } = await personSignedIn(t);
      const res = await t.post('/users/me/2fa/setup', { password }, me);
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('INTERNAL');
      expect(await t.db.selectFrom('two_factor').select('user_id').execute()).toEqual([]);
    });
  },
  { env: { CASEBOOK_SECRET_KEY: '' } },
);
