import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows, userWithKey } from '../../../test/helpers/factories.js';
import { sha256 } from '../../lib/crypto.js';
import { createUser } from '../users/users.service.js';
import { setSuspended } from '../tenants/tenants.service.js';
import type { Role } from '../../auth/roles.js';

const ORIGIN = 'http://casebook.test';
let n = 0;

/** A user with a password, who can sign in. */
async function userWithPassword(t: TestEnv, role: Role = 'user', password = 'correct horse battery') {
  const email = `signin-${Date.now().toString(36)}-${n++}@example.com`;
  const user = await createUser(t.db, t.tenantId, { email, name: 'Signer', role, password });
  return { ...user, password };
}

/** Signs in from the given address (X-Forwarded-For: the app trusts its proxy) and user agent. */
function login(t: TestEnv, body: Record<string, unknown>, from: { ip?: string; ua?: string } = {}) {
  return t.post('/api/auth/login', body, {
    key: null,
    headers: { 'x-forwarded-for': from.ip ?? '10.0.0.1', 'user-agent': from.ua ?? 'test-browser/1' },
  });
}

/** A request authenticated only by the session cookie. */
function withCookie(
  t: TestEnv,
  method: string,
  url: string,
  token: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  return t.request(method, url, {
    key: null,
    body: options.body,
    headers: {
      cookie: `session=${token}`,
      'x-forwarded-for': '10.0.0.1',
      'user-agent': 'test-browser/1',
      ...options.headers,
    },
  });
}

const setCookieOf = (headers: Record<string, unknown>): string => {
  const raw = headers['set-cookie'];
  return (Array.isArray(raw) ? raw : [raw]).join('\n');
};

describeEachDb('sign-in (D4)', (t) => {
  describe('POST /api/auth/login', () => {
    it('answers 200 with a token, sets an HttpOnly SameSite=Lax session cookie and stores only its hash', async () => {
      const user = await userWithPassword(t);
      const res = await login(t, { email: user.email.toUpperCase(), password: user.password });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['token']);
      const token = res.body.token as string;
      expect(token.length).toBeGreaterThanOrEqual(40);
      const cookie = setCookieOf(res.headers);
      expect(cookie).toContain(`session=${token}`);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).toMatch(new RegExp(`Max-Age=${t.config.sessionTtlHours * 3600}`));
      expect(cookie).not.toMatch(/Secure/i); // the public URL is http
      const rows = await t.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0].id).toBe(sha256(token));
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(rows[0]).toMatchObject({ ip: '10.0.0.1', user_agent: 'test-browser/1', tenant_id: t.tenantId });
      const ttl = Date.parse(rows[0].expires_at) - Date.parse(rows[0].created_at);
      expect(ttl).toBe(t.config.sessionTtlHours * 3600_000);
    });

    it('records a login event with no meta, the address and the user agent', async () => {
      const user = await userWithPassword(t);
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.9.9.9', ua: 'UA/9' }))
          .status,
      ).toBe(200);
      const events = await auditRows(t, 'login', user.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ action: 'login', ip: '10.9.9.9', user_agent: 'UA/9', meta: null });
    });

    it('answers 401 with the same message for an unknown e-mail and a wrong password, and opens no session', async () => {
      const user = await userWithPassword(t);
      const unknown = await login(
        t,
        { email: 'nobody@example.com', password: user.password },
        { ip: '10.1.0.1' },
      );
      const wrong = await login(t, { email: user.email, password: 'not the password' }, { ip: '10.1.0.1' });
      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(unknown.body).toEqual({ code: 'UNAUTHORIZED', message: 'invalid e-mail or password' });
      expect(wrong.body).toEqual(unknown.body);
      expect(unknown.headers['set-cookie']).toBeUndefined();
      expect(await t.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute()).toEqual(
        [],
      );
      expect(await auditRows(t, 'login', user.id)).toEqual([]);
    });

    it('answers 401 for a deactivated user even with the right password', async () => {
      const user = await userWithPassword(t);
      await t.db
        .updateTable('users')
        .set({ deactivated_at: new Date().toISOString() })
        .where('id', '=', user.id)
        .execute();
      const res = await login(t, { email: user.email, password: user.password }, { ip: '10.1.0.2' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: 'this account is deactivated' });
    });

    it('answers 400 for a missing password or an unknown field', async () => {
      expect((await login(t, { email: 'a@example.com' })).status).toBe(400);
      const res = await login(t, { email: 'a@example.com', password: 'x', remember: true });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: '/remember', message: 'unknown field "remember"' }]);
    });

    it('sweeps expired sessions of the tenant away at sign-in', async () => {
      const stale = await userWithPassword(t);
      const past = new Date(Date.now() - 60_000).toISOString();
      await t.db
        .insertInto('sessions')
        .values({
          id: sha256('stale-token'),
          tenant_id: t.tenantId,
          user_id: stale.id,
          ip: '10.0.0.9',
          user_agent: 'old',
          created_at: past,
          expires_at: past,
          last_seen_at: past,
        })
        .execute();
      const user = await userWithPassword(t);
      expect(
        (await login(t, { email: user.email, password: user.password }, { ip: '10.1.0.9' })).status,
      ).toBe(200);
      expect(await t.db.selectFrom('sessions').selectAll().where('user_id', '=', stale.id).execute()).toEqual(
        [],
      );
    });

    it('answers 403 when the tenant is suspended', async () => {
      const user = await userWithPassword(t);
      await setSuspended(t.db, t.tenantId, true);
      try {
        const res = await login(t, { email: user.email, password: user.password }, { ip: '10.1.0.3' });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      } finally {
        await setSuspended(t.db, t.tenantId, false);
      }
    });
  });

  describe('the session cookie', () => {
    it('authenticates reads without an Authorization header', async () => {
      const user = await userWithPassword(t, 'admin');
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      const res = await withCookie(t, 'GET', '/users/me', token);
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ id: user.id, email: user.email, role: 'admin' });
    });

    it('answers 401 for an unknown, an expired or a deactivated user’s session', async () => {
      expect((await withCookie(t, 'GET', '/project', 'not-a-session')).body).toEqual({
        code: 'UNAUTHORIZED',
        message: 'invalid or expired session: sign in again',
      });
      const user = await userWithPassword(t);
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      await t.db
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', sha256(token))
        .execute();
      expect((await withCookie(t, 'GET', '/project', token)).status).toBe(401);
      // An expired session is removed when it is next presented.
      expect(await t.db.selectFrom('sessions').selectAll().where('id', '=', sha256(token)).execute()).toEqual(
        [],
      );

      const other = await userWithPassword(t);
      const second = (await login(t, { email: other.email, password: other.password })).body.token;
      await t.db
        .updateTable('users')
        .set({ deactivated_at: new Date().toISOString() })
        .where('id', '=', other.id)
        .execute();
      const res = await withCookie(t, 'GET', '/project', second);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('user deactivated');
    });

    it('keeps the API-key path first: with an Authorization header the cookie is ignored', async () => {
      const user = await userWithPassword(t, 'admin');
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      const res = await t.get('/project', {
        key: 'default.nokey.nosecret',
        headers: { cookie: `session=${token}` },
      });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('invalid API key');
    });

    it('applies the role rules of D3 to sessions', async () => {
      const user = await userWithPassword(t, 'viewer');
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      const res = await withCookie(t, 'POST', '/project', token, {
        body: { code: 'VW1', title: 'Viewer project' },
        headers: { origin: ORIGIN },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('this needs the role admin or higher; you are viewer');
    });

    it('answers 403 for a session of a suspended tenant', async () => {
      const user = await userWithPassword(t);
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      await setSuspended(t.db, t.tenantId, true);
      try {
        const res = await withCookie(t, 'GET', '/project', token);
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('this tenant is suspended');
      } finally {
        await setSuspended(t.db, t.tenantId, false);
      }
    });
  });

  describe('D4: the Origin rule for cookie-authenticated writes', () => {
    const REFUSED = {
      code: 'FORBIDDEN',
      message:
        'writes signed in with the session cookie must come from the service itself (Origin or Referer)',
    };

    it('answers 403 to a write that names another origin, or Origin: null, and changes nothing', async () => {
      const user = await userWithPassword(t, 'admin');
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      const variants: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        // Origin wins over Referer: a foreign Origin is refused even beside our own Referer.
        { origin: 'https://evil.example', referer: `${ORIGIN}/project` },
        { referer: 'https://evil.example/casebook.test/page' },
        { referer: 'not a url' },
        { origin: 'http://casebook.test.evil.example' },
        // The request's own address counts only with its own scheme and port.
        { origin: 'https://casebook.test' },
        { origin: 'http://localhost:8080', host: 'localhost:3000' },
        { origin: 'http://evil.example', host: 'casebook.example' },
      ];
      for (const headers of variants) {
        const res = await withCookie(t, 'POST', '/project', token, {
          body: { code: 'CSRF', title: 'Cross-site' },
          headers,
        });
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(res.body).toEqual(REFUSED);
      }
      expect((await t.get('/project/CSRF')).status).toBe(404);
    });

    it('accepts a write whose Origin, or else Referer, is the public URL', async () => {
      const user = await userWithPassword(t, 'admin');
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      const byOrigin = await withCookie(t, 'POST', '/project', token, {
        body: { code: 'ORG1', title: 'By origin' },
        headers: { origin: ORIGIN },
      });
      expect(byOrigin.status).toBe(201);
      const byReferer = await withCookie(t, 'POST', '/project', token, {
        body: { code: 'REF1', title: 'By referer' },
        headers: { referer: `${ORIGIN}/project/ORG1` },
      });
      expect(byReferer.status).toBe(201);
    });

    it('accepts a write from the address the request was sent to, though the public URL names another', async () => {
      const user = await userWithPassword(t, 'admin');
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      // The person opened the service at its loopback address or at a host name (sent as Host; the test stays
      // on loopback), while CASEBOOK_PUBLIC_URL says http://casebook.test.
      const cases: [string, Record<string, string>][] = [
        ['LOOP', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }],
        ['NAME', { host: 'casebook.example.org', origin: 'http://casebook.example.org' }],
        ['PORT', { host: 'Casebook.Example.org:80', origin: 'http://casebook.example.org' }],
        ['REFR', { host: 'localhost:3000', referer: 'http://localhost:3000/project/LOOP' }],
        // Behind a trusted proxy (the tests trust theirs) the scheme is the one the proxy was reached with.
        ['PROX', { host: 'qa.example.org', 'x-forwarded-proto': 'https', origin: 'https://qa.example.org' }],
      ];
      for (const [code, headers] of cases) {
        const res = await withCookie(t, 'POST', '/project', token, { body: { code, title: code }, headers });
        expect(res.status, JSON.stringify(headers)).toBe(201);
      }
      expect((await t.get('/project/NAME')).status).toBe(200);
    });

    it('accepts a write that carries neither Origin nor Referer: a program, not a page', async () => {
      const user = await userWithPassword(t, 'admin');
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      expect(
        (await withCookie(t, 'POST', '/project', token, { body: { code: 'GONE', title: 'Gone' } })).status,
      ).toBe(201);
      // The upload CLI's own tests, exactly: DELETE with only the cookie.
      const res = await t.app.inject({
        method: 'DELETE',
        url: '/api/project/GONE',
        headers: { cookie: `session=${token}` },
      });
      expect(res.statusCode).toBe(200);
      expect((await t.get('/project/GONE')).status).toBe(404);
    });

    it('does not ask API-key writes for an Origin', async () => {
      expect((await t.post('/project', { code: 'KEY1', title: 'By key' })).status).toBe(201);
    });
  });

  describe('a session seen from a new address or user agent', () => {
    it('records auth.ip_or_user_agent_changed once per change and follows the session', async () => {
      const user = await userWithPassword(t);
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      expect((await withCookie(t, 'GET', '/project', token)).status).toBe(200);
      expect(await auditRows(t, 'auth.ip_or_user_agent_changed', user.id)).toEqual([]);

      const moved = { 'x-forwarded-for': '10.7.7.7', 'user-agent': 'test-browser/1' };
      expect((await withCookie(t, 'GET', '/project', token, { headers: moved })).status).toBe(200);
      expect((await withCookie(t, 'GET', '/project', token, { headers: moved })).status).toBe(200);
      let events = await auditRows(t, 'auth.ip_or_user_agent_changed', user.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ ip: '10.7.7.7', user_agent: 'test-browser/1', meta: null });
      const row = await t.db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', sha256(token))
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ ip: '10.7.7.7', user_agent: 'test-browser/1' });

      const newAgent = { 'x-forwarded-for': '10.7.7.7', 'user-agent': 'other-browser/2' };
      expect((await withCookie(t, 'GET', '/project', token, { headers: newAgent })).status).toBe(200);
      events = await auditRows(t, 'auth.ip_or_user_agent_changed', user.id);
      expect(events).toHaveLength(2);
      expect(events[1]).toMatchObject({ ip: '10.7.7.7', user_agent: 'other-browser/2', meta: null });
    });
  });

  describe('POST /api/auth/logout', () => {
    it('ends the session, clears the cookie and records logout', async () => {
      const user = await userWithPassword(t);
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      const res = await withCookie(t, 'POST', '/api/auth/logout', token, { headers: { origin: ORIGIN } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Signed out' });
      const cookie = setCookieOf(res.headers);
      expect(cookie).toMatch(/^session=;/);
      expect(cookie).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
      expect(await t.db.selectFrom('sessions').selectAll().where('id', '=', sha256(token)).execute()).toEqual(
        [],
      );
      expect((await withCookie(t, 'GET', '/project', token)).status).toBe(401);
      const events = await auditRows(t, 'logout', user.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ ip: '10.0.0.1', user_agent: 'test-browser/1', meta: null });
    });

    it('answers 403 to a cross-site sign-out and 401 without a session', async () => {
      const user = await userWithPassword(t);
      const { token } = (await login(t, { email: user.email, password: user.password })).body;
      expect(
        (
          await withCookie(t, 'POST', '/api/auth/logout', token, {
            headers: { origin: 'https://evil.example' },
          })
        ).status,
      ).toBe(403);
      expect((await t.post('/api/auth/logout', undefined, { key: null })).status).toBe(401);
    });

    it('answers 400 to an API key: keys are revoked, not signed out', async () => {
      const { key } = await userWithKey(t, 'user');
      const res = await t.post('/api/auth/logout', undefined, { key });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('sign-out ends a browser session; API keys are revoked instead');
    });
  });

  it('lists the sign-in routes in the OpenAPI document', async () => {
    const doc = await t.get('/api/public/v0/openapi.json', { key: null });
    for (const path of [
      '/api/auth/login',
      '/api/auth/logout',
      '/api/auth/register',
      '/api/auth/password-reset',
    ]) {
      expect(Object.keys(doc.body.paths), path).toContain(path);
    }
  });
});

describeEachDb('the session cookie over HTTPS behind a trusted proxy', (t) => {
  it('is Secure when the request came over HTTPS (X-Forwarded-Proto), though the public URL is http', async () => {
    const user = await userWithPassword(t);
    const viaTls = await t.post(
      '/api/auth/login',
      { email: user.email, password: user.password },
      { key: null, headers: { 'x-forwarded-for': '10.40.0.1', 'x-forwarded-proto': 'https' } },
    );
    expect(viaTls.status).toBe(200);
    expect(setCookieOf(viaTls.headers)).toMatch(/; Secure/i);
    const plain = await login(t, { email: user.email, password: user.password }, { ip: '10.40.0.1' });
    expect(setCookieOf(plain.headers)).not.toMatch(/Secure/i);
    // No HSTS while the public URL is http.
    expect(plain.headers['strict-transport-security']).toBeUndefined();
  });
});

describeEachDb(
  'the session cookie behind an untrusted proxy',
  (t) => {
    it('ignores X-Forwarded-Proto from a proxy that is not trusted', async () => {
      const user = await userWithPassword(t);
      const res = await t.post(
        '/api/auth/login',
        { email: user.email, password: user.password },
        { key: null, headers: { 'x-forwarded-proto': 'https' } },
      );
      expect(res.status).toBe(200);
      expect(setCookieOf(res.headers)).not.toMatch(/Secure/i);
    });
  },
  { env: { CASEBOOK_TRUST_PROXY: 'false' } },
);

describeEachDb(
  'sign-in behind https',
  (t) => {
    it('marks the session cookie Secure when the public URL is https', async () => {
      const user = await userWithPassword(t);
      const res = await login(t, { email: user.email, password: user.password });
      expect(res.status).toBe(200);
      expect(setCookieOf(res.headers)).toMatch(/; Secure/i);
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
      expect((await t.get('/project')).headers['strict-transport-security']).toBe('max-age=31536000');
      const write = await withCookie(t, 'POST', '/project', res.body.token, {
        body: { code: 'SEC', title: 'Secure' },
        headers: { origin: 'http://casebook.test' },
      });
      // http://… is not the https service's origin.
      expect(write.status).toBe(403);
    });
  },
  { env: { CASEBOOK_PUBLIC_URL: 'https://casebook.test' } },
);
