import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { buildApp } from '../../src/app.js';
import { sha256 } from '../../src/lib/crypto.js';

/**
 * Keys, passwords, session tokens and tracker credentials never reach the log, and the database keeps
 * only their hashes (or, for credentials the service must use again, their ciphertext) (D2, D4).
 */
describeEachDb('secrets in logs and storage', (t) => {
  let app: FastifyInstance;
  let log = '';
  const secrets: Record<string, string> = {};
  let sessionStoredAsHash = false;

  /** Requests against an app over the same database that logs everything, at trace level. */
  const call = async (
    method: string,
    url: string,
    options: { key?: string; cookie?: string; body?: unknown } = {},
  ) => {
    const headers: Record<string, string> = { 'user-agent': 'secrets-test' };
    if (options.key) headers.authorization = `ApiKey ${options.key}`;
    if (options.cookie) {
      headers.cookie = `session=${options.cookie}`;
      headers.origin = 'http://casebook.test';
    }
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.inject({
      method: method as any,
      url,
      headers,
      payload: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return {
      status: res.statusCode,
      body: res.body ? JSON.parse(res.body) : undefined,
      headers: res.headers,
    };
  };

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk) => (log += chunk.toString()));
    app = await buildApp({ config: { ...t.config, logLevel: 'trace' }, db: t.db, logStream: stream });
    const api = '/api/public/v0';
    secrets.ownerKey = t.ownerKey;
    secrets.ownerPassword = 'owner-password';

    const login = await call('POST', '/api/auth/login', {
      body: { email: 'owner@example.com', password: 'owner-password' },
    });
    expect(login.status).toBe(200);
    secrets.sessionToken = login.body.token;
    // Looked up now, before anything else can end the session.
    sessionStoredAsHash =
      (await t.db
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', sha256(secrets.sessionToken))
        .executeTakeFirst()) !== undefined;
    expect((await call('GET', `${api}/users/me`, { cookie: secrets.sessionToken })).status).toBe(200);

    secrets.wrongPassword = 'wrong-password-xyz-123';
    const failed = await call('POST', '/api/auth/login', {
      body: { email: 'owner@example.com', password: secrets.wrongPassword },
    });
    expect(failed.status).toBe(401);

    const key = await call('POST', `${api}/users/me/api-keys`, {
      cookie: secrets.sessionToken,
      body: { name: 'logged' },
    });
    expect(key.status).toBe(201);
    secrets.newKey = key.body.key;
    expect((await call('GET', `${api}/project`, { key: secrets.newKey })).status).toBe(200);
    expect((await call('GET', `${api}/project`, { key: `${secrets.newKey}tampered` })).status).toBe(401);

    secrets.newPassword = 'brand-new-password-9';
    const changed = await call('POST', `${api}/users/me/password`, {
      cookie: secrets.sessionToken,
      body: { currentPassword: 'owner-password', newPassword: secrets.newPassword },
    });
    expect(changed.status).toBe(200);

    secrets.trackerToken = 'tracker-secret-token-abc-987';
    const integration = await call('POST', `${api}/integration`, {
      key: t.ownerKey,
      body: {
        name: 'Logged tracker',
        type: 'tracker_b',
        config: { url: 'https://tb.example.com', email: 'a@b.cd' },
        token: secrets.trackerToken,
      },
    });
    expect(integration.status).toBe(201);

    const setup = await call('POST', `${api}/users/me/2fa/setup`, {
      cookie: secrets.sessionToken,
      body: { password: secrets.newPassword },
    });
    expect(setup.status).toBe(200);
    secrets.totpSecret = setup.body.secret;

    const invite = await call('POST', `${api}/users/invitations`, {
      key: t.ownerKey,
      body: { email: 'invitee@example.com', role: 'viewer' },
    });
    expect(invite.status).toBe(201);
    const inviteToken =
      new URL(invite.body.link).searchParams.get('token') ?? invite.body.link.split('/').pop();
    secrets.inviteToken = inviteToken;
    secrets.registeredPassword = 'registered-pass-42';
    const registered = await call('POST', '/api/auth/register', {
      body: { token: inviteToken, name: 'Invitee', password: secrets.registeredPassword },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);

    // A shared report link: its token is answered once, then kept as a hash and read in the API's address.
    const project = await call('POST', `${api}/project`, {
      key: t.ownerKey,
      body: { code: 'SEC', title: 'S' },
    });
    expect(project.status).toBe(201);
    const share = await call('POST', `${api}/project/SEC/report/share`, {
      key: t.ownerKey,
      body: { report: 'dashboard' },
    });
    expect(share.status).toBe(201);
    secrets.reportShareToken = share.body.token;
    expect((await call('GET', `/api/shared-report/${secrets.reportShareToken}`)).status).toBe(200);

    // Tokens in addresses: the pages of invitation, reset and shared links, and device codes in queries.
    secrets.resetToken = 'reset-token-in-a-page-address-0042';
    secrets.sharedToken = 'shared-report-token-in-an-address-77';
    secrets.userCode = 'QRST-VWXZ';
    secrets.deviceCode = 'device-code-in-a-query-string-5151';
    for (const url of [
      `/invite/${secrets.inviteToken}`,
      `/Invite/${secrets.inviteToken}`,
      `/reset-password/${secrets.resetToken}?from=mail`,
      `/shared/${secrets.sharedToken}/print`,
      `/device?user_code=${secrets.userCode}`,
      `/api/oauth/device?user_code=${secrets.userCode}`,
      `/api/oauth/token?device_code=${secrets.deviceCode}&client_id=qas-cli`,
    ]) {
      await call('GET', url, { cookie: secrets.sessionToken });
    }
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it('logs requests (so the check below reads a real log)', () => {
    expect(log).toMatch(/request completed/);
    expect(log).toMatch(/\/api\/auth\/login/);
  });

  it('logs addresses that carry tokens with the token replaced', () => {
    const urls = log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((l) => l.msg === 'request completed')
      .map((l) => l.req.url as string);
    expect(urls).toEqual(
      expect.arrayContaining([
        '/invite/****',
        '/Invite/****',
        '/reset-password/****?from=mail',
        '/shared/****',
        '/api/shared-report/****',
        '/device?user_code=****',
        '/api/oauth/device?user_code=****',
        '/api/oauth/token?device_code=****&client_id=qas-cli',
      ]),
    );
  });

  it('never writes a key, password, session token, TOTP secret or tracker credential to the log', () => {
    const found = Object.entries(secrets)
      .filter(([, value]) => log.includes(value) || log.includes(value.split('.').pop()!))
      .map(([name]) => name);
    expect(found).toEqual([]);
  });

  it('stores none of them in clear in any table', async () => {
    let dump = '';
    for (const table of await t.db.introspection.getTables()) {
      for (const row of await t.db
        .selectFrom(table.name as any)
        .selectAll()
        .execute())
        dump += `${JSON.stringify(row)}\n`;
    }
    const found = Object.entries(secrets)
      .filter(([, value]) => dump.includes(value) || dump.includes(value.split('.').pop()!))
      .map(([name]) => name);
    expect(found).toEqual([]);
  });

  it('keeps API keys and session tokens as sha256 hashes and passwords as scrypt hashes', async () => {
    const [, keyId, secret] = secrets.newKey.split('.');
    const key = await t.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(key.secret_hash).toBe(sha256(secret));
    expect(sessionStoredAsHash).toBe(true);
    for (const user of await t.db.selectFrom('users').select(['email', 'password_hash']).execute()) {
      if (user.password_hash !== null) expect(user.password_hash, user.email).toMatch(/^scrypt\$/);
    }
    const integration = await t.db.selectFrom('integrations').select('token_enc').executeTakeFirstOrThrow();
    expect(integration.token_enc).toMatch(/^v1:/);
  });
});
