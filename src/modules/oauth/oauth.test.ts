import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { sha256 } from '../../lib/crypto.js';
import { createUser } from '../users/users.service.js';
import { createTenant, setSuspended } from '../tenants/tenants.service.js';
import { RESET_LINKS_PER_ACCOUNT } from '../accounts/accounts.service.js';
import { emailBucket, hitWaitMs } from '../auth/throttle.service.js';

const SITE = 'http://casebook.test';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
let n = 0;

interface Answer {
  status: number;
  body: any;
  headers: Record<string, unknown>;
  text: string;
}

/**
 * A request as the qasphere CLI sends it (qas-cli src/api/oauth.ts): JSON content type on every request, its
 * user agent, the body exactly as written; no cookie, no Authorization header unless given.
 */
async function cli(
  t: TestEnv,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await t.app.inject({
    method,
    url,
    headers: { 'content-type': 'application/json', 'user-agent': 'qas-cli/0.9.0', ...headers },
    payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  let parsed: any;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed, headers: res.headers, text: res.body };
}

/** A form-encoded request, as an RFC client sends it. */
const form = (t: TestEnv, url: string, fields: string) =>
  cli(t, 'POST', url, fields, { 'content-type': 'application/x-www-form-urlencoded' });

/** A request of a browser signed in with the session cookie, on the service's own page. */
async function browser(
  t: TestEnv,
  method: 'GET' | 'POST',
  url: string,
  cookie: string,
  body?: unknown,
  ip?: string,
) {
  const res = await t.app.inject({
    method,
    url,
    headers: {
      ...(ip ? { 'x-forwarded-for': ip } : {}),
      cookie: `session=${cookie}`,
      origin: SITE,
      'user-agent': 'browser/1',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  let parsed: any;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed, headers: res.headers, text: res.body };
}

async function person(t: TestEnv, role: 'user' | 'viewer' = 'user') {
  const password = 'correct horse battery';
  const email = `device-${Date.now().toString(36)}-${n++}@example.com`;
  const user = await createUser(t.db, t.tenantId, { email, name: 'Device Person', role, password });
  return { user, password };
}

/** Signs in through the sign-in API as the page does; returns the session token (the cookie's value). */
async function signIn(t: TestEnv, email: string, password: string, extra: Record<string, string> = {}) {
  const res = await cli(t, 'POST', '/api/auth/login', { email, password, ...extra });
  expect(res.status, res.text).toBe(200);
  return res.body.token as string;
}

/** An OAuth error answer: the RFC's error and description, and D7's code beside them. */
const oauthError = (error: string) =>
  expect.objectContaining({ error, error_description: expect.any(String), code: 'VALIDATION_FAILED' });

const auditOf = (t: TestEnv, action: string, userId: number) =>
  t.db
    .selectFrom('audit_events')
    .select(['action', 'meta', 'user_id'])
    .where('action', '=', action)
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();

/** Moves the fake clock on; only Date is faked, so nothing real waits. */
const wait = (seconds: number) => vi.setSystemTime(new Date(Date.now() + seconds * 1000));

describeEachDb('qasphere auth login: the OAuth device authorisation grant (RFC 8628)', (t) => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2031-05-01T09:00:00Z'));
  });
  afterAll(() => vi.useRealTimers());

  const start = async () => {
    const res = await cli(t, 'POST', '/api/oauth/device/code', { client_id: 'qas-cli' });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const poll = (deviceCode: string) =>
    cli(t, 'POST', '/api/oauth/token', {
      grant_type: DEVICE_GRANT,
      client_id: 'qas-cli',
      device_code: deviceCode,
    });
  const refresh = (refreshToken: string) =>
    cli(t, 'POST', '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
  const me = (accessToken: string) =>
    cli(t, 'GET', '/api/public/v0/users/me', undefined, { authorization: `Bearer ${accessToken}` });

  /** A signed-in person approves the code through the page's API; the device then gets its tokens. */
  async function signedInDevice() {
    const { user, password } = await person(t);
    const session = await signIn(t, user.email, password);
    const code = await start();
    expect(
      (await browser(t, 'POST', '/api/oauth/device/approve', session, { user_code: code.user_code })).status,
    ).toBe(200);
    wait(code.interval);
    const tokens = await poll(code.device_code);
    expect(tokens.status, tokens.text).toBe(200);
    return { user, session, code, tokens: tokens.body };
  }

  describe('GET /api/check-tenant', () => {
    it('answers the default tenant by its name and by its id, in any case, with the public URL + /login', async () => {
      for (const name of ['Default', 'default', 'DEFAULT', ' Default ']) {
        const res = await cli(t, 'GET', `/api/check-tenant?name=${encodeURIComponent(name)}`);
        expect(res.status, name).toBe(200);
        expect(res.body).toEqual({ redirectUrl: 'http://casebook.test/login', suspended: false });
      }
    });

    it('answers 404 with the D7 body for an unknown team', async () => {
      const res = await cli(t, 'GET', '/api/check-tenant?name=acme');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'no team named "acme" on this service' });
    });

    it('says when the tenant is suspended', async () => {
      await setSuspended(t.db, t.tenantId, true);
      try {
        expect((await cli(t, 'GET', '/api/check-tenant?name=Default')).body).toEqual({
          redirectUrl: 'http://casebook.test/login',
          suspended: true,
        });
      } finally {
        await setSuspended(t.db, t.tenantId, false);
      }
    });
  });

  describe('the whole sign-in, as the CLI drives it', () => {
    it('starts, polls every interval, is approved on the page, gets tokens, calls the API and refreshes', async () => {
      const { user, password } = await person(t);

      // 1. Start.
      const code = await start();
      expect(code).toEqual({
        device_code: expect.any(String),
        user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
        verification_uri: 'http://casebook.test/device',
        verification_uri_complete: `http://casebook.test/device?user_code=${code.user_code}`,
        expires_in: 900,
        interval: 5,
      });
      const stored = await t.db
        .selectFrom('oauth_device_codes')
        .selectAll()
        .where('device_code_hash', '=', sha256(code.device_code))
        .executeTakeFirstOrThrow();
      // Only hashes are stored.
      expect(stored.user_code_hash).toBe(sha256(code.user_code.replace('-', '')));
      expect(JSON.stringify(stored)).not.toContain(code.device_code);
      expect(JSON.stringify(stored)).not.toContain(code.user_code.replace('-', ''));

      // 2. Poll every interval: pending.
      let interval = code.interval;
      for (let i = 0; i < 3; i++) {
        wait(interval);
        const res = await poll(code.device_code);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: 'authorization_pending',
          error_description: 'waiting for a person to approve the code',
          message: 'waiting for a person to approve the code',
          code: 'VALIDATION_FAILED',
        });
      }
      // Too fast: slow_down, and the interval grows by 5 seconds (the CLI adds 5 too).
      wait(1);
      const fast = await poll(code.device_code);
      expect(fast.status).toBe(400);
      expect(fast.body).toEqual(oauthError('slow_down'));
      interval += 5;
      wait(code.interval);
      expect((await poll(code.device_code)).body).toEqual(oauthError('slow_down'));
      interval += 5;
      wait(interval);
      expect((await poll(code.device_code)).body).toEqual(oauthError('authorization_pending'));

      // 3. The person opens verification_uri_complete (the web application's /device page, tested in
      // test/web/settings.test.ts): without a session the code's API refuses, signed in it shows the code.
      const anonymous = await cli(t, 'GET', `/api/oauth/device?user_code=${code.user_code}`);
      expect(anonymous.status).toBe(401);
      const session = await signIn(t, user.email, password);
      const view = await browser(t, 'GET', `/api/oauth/device?user_code=${code.user_code}`, session);
      expect(view.body).toEqual({
        userCode: code.user_code,
        clientId: 'qas-cli',
        clientName: 'QA Sphere CLI (qasphere)',
        status: 'pending',
        expiresAt: stored.expires_at,
      });
      const approved = await browser(t, 'POST', '/api/oauth/device/approve', session, {
        user_code: code.user_code,
      });
      expect(approved.status).toBe(200);
      expect(approved.body).toEqual({ message: 'Device approved: you can return to your device' });

      // 4. The next poll gets the tokens.
      wait(interval);
      const granted = await poll(code.device_code);
      expect(granted.status).toBe(200);
      expect(granted.headers['cache-control']).toBe('no-store');
      expect(granted.body).toEqual({
        access_token: expect.stringMatching(/^default\.[a-z0-9]+\.[\w-]+$/),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: expect.any(String),
        refresh_token_expires_in: 90 * 24 * 3600,
      });
      const tokens = granted.body;
      const authorizationId = tokens.access_token.split('.')[1];
      // Single use: the device code gives tokens once.
      wait(interval);
      expect((await poll(code.device_code)).body).toEqual(oauthError('invalid_grant'));

      // 5. The access token is an API key of the person.
      const who = await me(tokens.access_token);
      expect(who.status).toBe(200);
      expect(who.body.user).toMatchObject({ id: user.id, email: user.email });
      const key = await t.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', authorizationId)
        .executeTakeFirstOrThrow();
      expect(key).toMatchObject({ user_id: user.id, kind: 'device', client_id: 'qas-cli', revoked_at: null });
      expect(key.secret_hash).toBe(sha256(tokens.access_token.split('.')[2]));
      const refreshRow = await t.db
        .selectFrom('oauth_refresh_tokens')
        .selectAll()
        .where('authorization_id', '=', authorizationId)
        .executeTakeFirstOrThrow();
      expect(refreshRow.token_hash).toBe(sha256(tokens.refresh_token));
      expect(await auditOf(t, 'oauth.authorization_created', user.id)).toEqual([
        {
          action: 'oauth.authorization_created',
          user_id: user.id,
          meta: JSON.stringify({
            grant_type: DEVICE_GRANT,
            client_id: 'qas-cli',
            authorization_id: authorizationId,
          }),
        },
      ]);

      // 6. Listed with the person's API keys, marked as a device sign-in with the client's name.
      const listed = await cli(t, 'GET', '/api/public/v0/users/me/api-keys', undefined, {
        authorization: `Bearer ${tokens.access_token}`,
      });
      expect(listed.body.apiKeys).toEqual([
        {
          id: authorizationId,
          name: 'QA Sphere CLI (qasphere)',
          userId: user.id,
          userEmail: user.email,
          restricted: false,
          createdAt: expect.any(String),
          expiresAt: new Date(Date.parse(key.created_at) + 3600_000).toISOString(),
          // Step 5 used it.
          lastUsedAt: expect.any(String),
          kind: 'device',
          clientId: 'qas-cli',
        },
      ]);

      // 7. Near the access token's end the CLI refreshes: JSON body, no client_id. Both tokens rotate.
      wait(3600 - 4 * 60);
      const renewed = await refresh(tokens.refresh_token);
      expect(renewed.status, renewed.text).toBe(200);
      expect(renewed.body).toEqual({
        access_token: expect.stringMatching(new RegExp(`^default\\.${authorizationId}\\.`)),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: expect.any(String),
        refresh_token_expires_in: 90 * 24 * 3600,
      });
      expect(renewed.body.access_token).not.toBe(tokens.access_token);
      expect(renewed.body.refresh_token).not.toBe(tokens.refresh_token);
      expect((await me(tokens.access_token)).status).toBe(401);
      expect((await me(renewed.body.access_token)).status).toBe(200);
      // An access token ends after its hour.
      wait(3601);
      expect((await me(renewed.body.access_token)).body).toEqual({
        code: 'UNAUTHORIZED',
        message: 'API key expired',
      });
      const again = await refresh(renewed.body.refresh_token);
      expect(again.status).toBe(200);
      expect((await me(again.body.access_token)).status).toBe(200);

      // 8. A refresh token used twice means two holders: the whole sign-in is revoked.
      const reused = await refresh(tokens.refresh_token);
      expect(reused.status).toBe(400);
      expect(reused.body).toEqual({
        error: 'invalid_grant',
        error_description: 'this refresh token was used already: the sign-in is revoked',
        message: 'this refresh token was used already: the sign-in is revoked',
        code: 'VALIDATION_FAILED',
      });
      expect((await me(again.body.access_token)).body).toEqual({
        code: 'UNAUTHORIZED',
        message: 'API key revoked',
      });
      expect((await refresh(again.body.refresh_token)).body).toEqual(oauthError('invalid_grant'));
      expect(await auditOf(t, 'oauth.authorization_revoked', user.id)).toEqual([
        {
          action: 'oauth.authorization_revoked',
          user_id: user.id,
          meta: JSON.stringify({ client_id: 'qas-cli', authorization_id: authorizationId }),
        },
      ]);
    });

    it('answers access_denied when the person denies, and the page and the API say so', async () => {
      const { user, password } = await person(t);
      const session = await signIn(t, user.email, password);
      const code = await start();
      const denied = await browser(t, 'POST', '/api/oauth/device/deny', session, {
        user_code: code.user_code,
      });
      expect(denied.body).toEqual({ message: 'Sign-in denied: the device gets no access' });
      wait(code.interval);
      const res = await poll(code.device_code);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'access_denied',
        error_description: 'the sign-in was denied',
        message: 'the sign-in was denied',
        code: 'VALIDATION_FAILED',
      });
      const page = await browser(t, 'GET', `/api/oauth/device?user_code=${code.user_code}`, session);
      expect(page.status).toBe(200);
      expect(page.body.status).toBe('denied');
      const late = await browser(t, 'POST', '/api/oauth/device/approve', session, {
        user_code: code.user_code,
      });
      expect(late.status).toBe(409);
      expect(late.body).toEqual({ code: 'CONFLICT', message: 'This code was denied already' });
      expect(await t.db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute()).toEqual(
        [],
      );
    });

    it('answers expired_token after 15 minutes; the page and the API say the code expired', async () => {
      const { user, password } = await person(t);
      const code = await start();
      wait(15 * 60);
      const res = await poll(code.device_code);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(oauthError('expired_token'));
      const session = await signIn(t, user.email, password);
      const page = await browser(t, 'GET', `/api/oauth/device?user_code=${code.user_code}`, session);
      expect(page.status).toBe(200);
      expect(page.body.status).toBe('expired');
      const late = await browser(t, 'POST', '/api/oauth/device/approve', session, {
        user_code: code.user_code,
      });
      expect(late.status).toBe(400);
      expect(late.body).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'This code has expired: start the sign-in on your device again',
      });
    });

    it('tells a bad code apart on the page and in the API', async () => {
      const { user, password } = await person(t);
      const session = await signIn(t, user.email, password);
      for (const bad of ['BCDF-GHJK', 'not-a-code', '<script>x</script>']) {
        const page = await browser(
          t,
          'GET',
          `/api/oauth/device?user_code=${encodeURIComponent(bad)}`,
          session,
        );
        expect(page.status, bad).toBe(404);
        expect(page.body).toEqual({
          code: 'NOT_FOUND',
          message: 'This code is not valid: check it against the one your device shows',
        });
        const api = await browser(t, 'POST', '/api/oauth/device/approve', session, { user_code: bad });
        expect(api.status).toBe(404);
        expect(api.body).toEqual({
          code: 'NOT_FOUND',
          message: 'This code is not valid: check it against the one your device shows',
        });
      }
    });

    it('makes lookups wait (429 with Retry-After) after 10 wrong codes, even for a good one', async () => {
      const { user, password } = await person(t);
      const session = await signIn(t, user.email, password);
      const ip = '10.66.0.1';
      for (let i = 0; i < 10; i++) {
        const miss = await browser(
          t,
          'GET',
          `/api/oauth/device?user_code=BCDF-GHJ${'KLMNPQRSTV'[i]}`,
          session,
          undefined,
          ip,
        );
        expect(miss.status).toBe(404);
      }
      const code = await start();
      const held = await browser(
        t,
        'GET',
        `/api/oauth/device?user_code=${code.user_code}`,
        session,
        undefined,
        ip,
      );
      expect(held.status).toBe(429);
      expect(held.body).toEqual({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/^too many wrong device codes; try again in \d+ seconds$/),
      });
      expect(Number(held.headers['retry-after'])).toBeGreaterThan(800);
      const approve = await browser(
        t,
        'POST',
        '/api/oauth/device/approve',
        session,
        { user_code: code.user_code },
        ip,
      );
      expect(approve.status).toBe(429);
      // Another person elsewhere is not held up.
      const other = await person(t);
      const theirs = await signIn(t, other.user.email, other.password);
      expect(
        (
          await browser(
            t,
            'GET',
            `/api/oauth/device?user_code=${code.user_code}`,
            theirs,
            undefined,
            '10.66.0.2',
          )
        ).status,
      ).toBe(200);
    });

    it("leaves other throttles' counts alone: a wrong code 20 minutes on keeps an account's 3 reset links an hour", async () => {
      const { user, password } = await person(t);
      const session = await signIn(t, user.email, password);
      for (let i = 0; i < 3; i++) {
        const asked = await cli(t, 'POST', '/api/auth/password-reset/request', { email: user.email });
        expect(asked.status).toBe(200);
      }
      const links = emailBucket('reset', user.email);
      expect(await hitWaitMs(t.db, t.tenantId, links, RESET_LINKS_PER_ACCOUNT)).toBeGreaterThan(0);
      wait(20 * 60);
      const miss = await browser(
        t,
        'GET',
        '/api/oauth/device?user_code=BCDF-GHJK',
        session,
        undefined,
        '10.67.0.1',
      );
      expect(miss.status).toBe(404);
      // The hour is not over: the account still has had its links.
      expect(await hitWaitMs(t.db, t.tenantId, links, RESET_LINKS_PER_ACCOUNT)).toBeGreaterThan(30 * 60_000);
    });

    it('accepts the code typed in lower case and without the dash', async () => {
      const { user, password } = await person(t);
      const session = await signIn(t, user.email, password);
      const code = await start();
      const typed = code.user_code.replace('-', '').toLowerCase();
      expect(
        (await browser(t, 'POST', '/api/oauth/device/approve', session, { user_code: typed })).status,
      ).toBe(200);
      wait(code.interval);
      expect((await poll(code.device_code)).status).toBe(200);
    });

    it('signs a person with two-factor sign-in in through the page, with the code', async () => {
      const { user, password } = await person(t);
      // Two-factor sign-in is turned on by the person signed in to the page (a key may not).
      const page = await signIn(t, user.email, password);
      const setup = await browser(t, 'POST', '/api/public/v0/users/me/2fa/setup', page, { password });
      const totp = () =>
        new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30 }).generate();
      expect(
        (await browser(t, 'POST', '/api/public/v0/users/me/2fa/enable', page, { totp: totp() })).status,
      ).toBe(200);
      wait(30);

      const code = await start();
      const withoutCode = await cli(t, 'POST', '/api/auth/login', { email: user.email, password });
      expect(withoutCode.status).toBe(401);
      expect(withoutCode.body.message).toBe('two-factor code required: send "totp" or "recoveryCode"');
      const session = await signIn(t, user.email, password, { totp: totp() });
      expect(
        (await browser(t, 'POST', '/api/oauth/device/approve', session, { user_code: code.user_code }))
          .status,
      ).toBe(200);
      wait(code.interval);
      const tokens = await poll(code.device_code);
      expect(tokens.status).toBe(200);
      expect((await me(tokens.body.access_token)).body.user.email).toBe(user.email);
    });
  });

  describe('form-encoded bodies (RFC 6749)', () => {
    it('starts, polls and refreshes with application/x-www-form-urlencoded', async () => {
      const { user, password } = await person(t);
      const session = await signIn(t, user.email, password);
      const started = await form(t, '/api/oauth/device/code', 'client_id=qas-cli&scope=');
      expect(started.status, started.text).toBe(200);
      const code = started.body;
      wait(code.interval);
      const waiting = await form(
        t,
        '/api/oauth/token',
        `grant_type=${encodeURIComponent(DEVICE_GRANT)}&client_id=qas-cli&device_code=${code.device_code}`,
      );
      expect(waiting.body).toEqual(oauthError('authorization_pending'));
      await browser(t, 'POST', '/api/oauth/device/approve', session, { user_code: code.user_code });
      wait(code.interval);
      const granted = await form(
        t,
        '/api/oauth/token',
        `grant_type=${encodeURIComponent(DEVICE_GRANT)}&client_id=qas-cli&device_code=${code.device_code}`,
      );
      expect(granted.status).toBe(200);
      const renewed = await form(
        t,
        '/api/oauth/token',
        `grant_type=refresh_token&client_id=qas-cli&refresh_token=${granted.body.refresh_token}`,
      );
      expect(renewed.status, renewed.text).toBe(200);
      expect((await me(renewed.body.access_token)).status).toBe(200);
    });

    it('answers invalid_request to a repeated parameter', async () => {
      const res = await form(t, '/api/oauth/device/code', 'client_id=qas-cli&client_id=other');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_request',
        error_description: 'parameter "client_id" is repeated',
        message: 'parameter "client_id" is repeated',
        code: 'VALIDATION_FAILED',
      });
    });

    it('keeps the rest of the API JSON-only', async () => {
      const res = await t.request('POST', '/project', {
        body: 'code=FORM&title=Form',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
    });
  });

  describe('errors in both shapes', () => {
    it('answers each bad request with the RFC error and the D7 message and code', async () => {
      const cases: [unknown, string][] = [
        [{ client_id: 'someone-else' }, 'invalid_client'],
        [{}, 'invalid_request'],
        [{ client_id: 'qas-cli', extra: 1 }, 'invalid_request'],
        ['{not json', 'invalid_request'],
      ];
      for (const [body, error] of cases) {
        const res = await cli(t, 'POST', '/api/oauth/device/code', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toEqual(oauthError(error));
        expect(res.body.message).toBe(res.body.error_description);
      }
      const token: [unknown, string][] = [
        [{ grant_type: 'password', username: 'x' }, 'invalid_request'],
        [{ grant_type: 'client_credentials' }, 'unsupported_grant_type'],
        [{ grant_type: DEVICE_GRANT, client_id: 'qas-cli', device_code: 'nope' }, 'invalid_grant'],
        [{ grant_type: DEVICE_GRANT, device_code: 'nope' }, 'invalid_request'],
        [{ grant_type: 'refresh_token', refresh_token: 'nope' }, 'invalid_grant'],
        [{ grant_type: 'refresh_token' }, 'invalid_request'],
      ];
      for (const [body, error] of token) {
        const res = await cli(t, 'POST', '/api/oauth/token', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toEqual(oauthError(error));
      }
    });

    it('lets only a person signed in on the page approve, not a key, nor another site', async () => {
      const { user, password } = await person(t);
      const session = await signIn(t, user.email, password);
      const code = await start();
      const res = await t.post('/api/oauth/device/approve', { user_code: code.user_code });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'a device sign-in is approved by a person signed in to the web page, not with a key',
      );
      const cross = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/device/approve',
        headers: {
          'content-type': 'application/json',
          origin: 'https://evil.example',
          cookie: `session=${session}`,
        },
        payload: JSON.stringify({ user_code: code.user_code }),
      });
      expect(cross.statusCode).toBe(403);
      expect(
        (await browser(t, 'GET', `/api/oauth/device?user_code=${code.user_code}`, session)).body.status,
      ).toBe('pending');
    });
  });

  describe('the device sign-in among the API keys', () => {
    it('is revoked with the API-key endpoint: its tokens stop and oauth.authorization_revoked is recorded', async () => {
      const { user, tokens } = await signedInDevice();
      const id = tokens.access_token.split('.')[1];
      const list = await cli(t, 'GET', '/api/public/v0/users/me/api-keys', undefined, {
        authorization: `Bearer ${tokens.access_token}`,
      });
      expect(list.body.apiKeys).toEqual([
        expect.objectContaining({ id, kind: 'device', clientId: 'qas-cli' }),
      ]);
      const del = await t.app.inject({
        method: 'DELETE',
        url: `/api/public/v0/users/me/api-keys/${id}`,
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(del.statusCode).toBe(200);
      expect((await me(tokens.access_token)).status).toBe(401);
      expect((await refresh(tokens.refresh_token)).body).toEqual(oauthError('invalid_grant'));
      expect(await auditOf(t, 'oauth.authorization_revoked', user.id)).toEqual([
        {
          action: 'oauth.authorization_revoked',
          user_id: user.id,
          meta: JSON.stringify({ client_id: 'qas-cli', authorization_id: id }),
        },
      ]);
    });

    it('keeps a sign-in in use alive past 90 days (sliding), and ends one left unused for 90 days', async () => {
      const { tokens } = await signedInDevice();
      let current = tokens;
      for (let i = 0; i < 3; i++) {
        wait(60 * 24 * 3600);
        const res = await refresh(current.refresh_token);
        expect(res.status, `refresh ${i}`).toBe(200);
        current = res.body;
      }
      wait(90 * 24 * 3600 + 1);
      expect((await refresh(current.refresh_token)).body).toEqual(oauthError('invalid_grant'));
    });

    it('answers invalid_grant when refreshed with another client_id than its own', async () => {
      const { tokens } = await signedInDevice();
      const res = await cli(t, 'POST', '/api/oauth/token', {
        grant_type: 'refresh_token',
        client_id: 'other',
        refresh_token: tokens.refresh_token,
      });
      expect(res.body).toEqual(oauthError('invalid_grant'));
      expect((await refresh(tokens.refresh_token)).status).toBe(200);
    });
  });

  it('lists the new routes in the OpenAPI document', async () => {
    const doc = await t.get('/api/public/v0/openapi.json', { key: null });
    for (const path of [
      '/api/check-tenant',
      '/api/oauth/device/code',
      '/api/oauth/token',
      '/api/oauth/device',
      '/api/oauth/device/approve',
      '/api/oauth/device/deny',
    ]) {
      expect(Object.keys(doc.body.paths), path).toContain(path);
    }
  });
});

describeEachDb(
  'qasphere auth login without CASEBOOK_PUBLIC_URL',
  (t) => {
    it('hands out the address the request came to: a CLI on another machine cannot reach localhost', async () => {
      const host = { host: 'casebook.lan:3000' };
      const tenant = await cli(t, 'GET', '/api/check-tenant?name=Default', undefined, host);
      expect(tenant.body).toEqual({ redirectUrl: 'http://casebook.lan:3000/login', suspended: false });
      const code = await cli(t, 'POST', '/api/oauth/device/code', { client_id: 'qas-cli' }, host);
      expect(code.body.verification_uri).toBe('http://casebook.lan:3000/device');
      expect(code.body.verification_uri_complete).toBe(
        `http://casebook.lan:3000/device?user_code=${code.body.user_code}`,
      );
    });
  },
  { env: { CASEBOOK_PUBLIC_URL: '' } },
);

describeEachDb(
  'qasphere auth login on a multi-tenant service',
  (t) => {
    it("answers check-tenant with the tenant's own host, by its id or its name", async () => {
      await createTenant(t.db, { id: 'acme', name: 'Acme Corp', host: 'acme.example.com' });
      for (const name of ['acme', 'Acme Corp']) {
        const res = await cli(t, 'GET', `/api/check-tenant?name=${encodeURIComponent(name)}`, undefined, {
          host: 'login.example.com',
        });
        expect(res.status, name).toBe(200);
        expect(res.body).toEqual({ redirectUrl: 'http://acme.example.com/login', suspended: false });
      }
      const code = await cli(
        t,
        'POST',
        '/api/oauth/device/code',
        { client_id: 'qas-cli' },
        { host: 'acme.example.com' },
      );
      expect(code.status).toBe(200);
      expect(code.body.verification_uri).toBe('http://acme.example.com/device');
      const stored = await t.db
        .selectFrom('oauth_device_codes')
        .select('tenant_id')
        .where('device_code_hash', '=', sha256(code.body.device_code))
        .executeTakeFirstOrThrow();
      expect(stored.tenant_id).toBe('acme');
    });
  },
  { env: { CASEBOOK_MULTI_TENANT: 'true' } },
);
