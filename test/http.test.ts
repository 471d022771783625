import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { buildApp } from '../src/app.js';
import { sha256 } from '../src/lib/crypto.js';
import { createApiKey, revokeApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { createTenant, setSuspended } from '../src/modules/tenants/tenants.service.js';
import { createUser } from '../src/modules/users/users.service.js';
import { createProject, userWithKey } from './helpers/factories.js';
import { describeEachDb, type TestEnv } from './helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A second app over the test database, so a test can add routes (before the first request) or read the log. */
async function extraApp(t: TestEnv, options: { logLevel?: 'info'; log?: string[] } = {}) {
  const logStream = new Writable({
    write(chunk, _enc, done) {
      options.log?.push(chunk.toString());
      done();
    },
  });
  return buildApp({
    config: { ...t.config, logLevel: options.logLevel ?? t.config.logLevel },
    db: t.db,
    logStream,
  });
}

const send = (app: FastifyInstance, method: string, url: string, key: string | null, body?: unknown) =>
  app.inject({
    method: method as 'GET',
    url,
    headers: {
      ...(key ? { authorization: `ApiKey ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });

describeEachDb('HTTP layer', (t) => {
  const getProjects = (authorization?: string) =>
    t.request('GET', '/project', {
      key: null,
      headers: authorization === undefined ? {} : { authorization },
    });

  describe('authentication (401)', () => {
    it.each([
      ['no Authorization header', undefined, /missing Authorization header/],
      ['an empty header', '', /missing Authorization header/],
      ['a header without a key', 'ApiKey', /malformed Authorization header/],
      ['an unknown scheme', 'Basic dXNlcjpwYXNz', /malformed Authorization header/],
      ['a key with extra words', 'ApiKey a.b.c d', /malformed Authorization header/],
      ['a malformed key', 'ApiKey not-a-key', /malformed API key/],
      ['a key with an empty part', 'ApiKey default..secret', /malformed API key/],
      ['an unknown key id', 'ApiKey default.nosuchkey.secret', /invalid API key/],
    ])('answers 401 with a JSON message for %s', async (_name, header, message) => {
      const res = await getProjects(header);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringMatching(message) });
    });

    it('answers 401 for the right key id with a wrong secret', async () => {
      const [tenant, keyId, secret] = t.ownerKey.split('.');
      const res = await getProjects(`ApiKey ${tenant}.${keyId}.${secret.slice(0, -1)}x`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: 'invalid API key' });
    });

    it('answers 401 for a revoked key, from the next request on', async () => {
      const { key, keyId } = await userWithKey(t, 'user');
      expect((await getProjects(`ApiKey ${key}`)).status).toBe(200);
      await revokeApiKey(t.db, t.tenantId, keyId);
      const res = await getProjects(`ApiKey ${key}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: 'API key revoked' });
    });

    it('answers 401 for an expired key', async () => {
      const { user } = await userWithKey(t, 'user');
      const { id, key } = await createApiKey(t.db, t.tenantId, {
        userId: user.id,
        name: 'short-lived',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect((await getProjects(`ApiKey ${key}`)).status).toBe(200);
      await t.db
        .updateTable('api_keys')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', id)
        .execute();
      const res = await getProjects(`ApiKey ${key}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: 'API key expired' });
    });

    it('answers 401 for a valid key of another tenant (D2)', async () => {
      await createTenant(t.db, { id: 'other-co', name: 'Other Co' });
      const stranger = await createUser(t.db, 'other-co', {
        email: 'stranger@example.com',
        name: 'Stranger',
        role: 'admin',
      });
      const { key } = await createApiKey(t.db, 'other-co', { userId: stranger.id, name: 'theirs' });
      const res = await getProjects(`ApiKey ${key}`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      // The same key forged to claim the default tenant is no better.
      const [, keyId, secret] = key.split('.');
      expect((await getProjects(`ApiKey default.${keyId}.${secret}`)).status).toBe(401);
    });

    it.each(['ApiKey', 'apikey', 'APIKEY', 'Bearer', 'bearer', 'BeArEr'])(
      'accepts the scheme %s',
      async (scheme) => {
        const res = await getProjects(`${scheme} ${t.ownerKey}`);
        expect(res.status).toBe(200);
        expect(Array.isArray(res.body.projects)).toBe(true);
      },
    );
  });

  describe('authorisation (403)', () => {
    it('answers 403 to a SIEM-LOG-ONLY key anywhere but the audit log (D5), even for an admin', async () => {
      const { key } = await userWithKey(t, 'admin', { keyName: 'SIEM-LOG-ONLY splunk' });
      const res = await t.get('/project', { key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        code: 'FORBIDDEN',
        message: 'keys named SIEM-LOG-ONLY may only read the audit log',
      });
    });

    it('answers 403 naming the needed role when the role is too low (D3)', async () => {
      const { key } = await userWithKey(t, 'user');
      const res = await t.post('/project', { code: 'LOW', title: 'Too low' }, { key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        code: 'FORBIDDEN',
        message: 'this needs the role admin or higher; you are user',
      });
    });

    it('answers 403 on every authenticated request of a suspended tenant, and 200 again once resumed (D6)', async () => {
      await setSuspended(t.db, t.tenantId, true);
      try {
        const res = await t.get('/project');
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: 'FORBIDDEN', message: 'this tenant is suspended' });
        // Authentication comes first: a bad key is still a 401.
        expect((await getProjects('ApiKey default.nosuchkey.secret')).status).toBe(401);
      } finally {
        await setSuspended(t.db, t.tenantId, false);
      }
      expect((await t.get('/project')).status).toBe(200);
    });
  });

  describe('error bodies (D7) and request parsing (D8)', () => {
    it('answers 404 JSON for an unknown route and for an unknown method on a known route', async () => {
      const route = await t.get('/api/public/v0/no-such-thing?x=1');
      expect(route.status).toBe(404);
      expect(route.headers['content-type']).toMatch(/^application\/json/);
      expect(route.body).toEqual({
        code: 'NOT_FOUND',
        message: 'Route GET /api/public/v0/no-such-thing not found',
      });
      const method = await t.request('PUT', '/project');
      expect(method.status).toBe(404);
      expect(method.body).toEqual({
        code: 'NOT_FOUND',
        message: 'Route PUT /api/public/v0/project not found',
      });
      const outside = await t.request('GET', '/nothing-here', { key: null });
      expect(outside.status).toBe(404);
      expect(outside.body.code).toBe('NOT_FOUND');
    });

    it('answers 400 for malformed JSON, creating nothing', async () => {
      const res = await t.post('/project', '{"code": "BAD", "title": ');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.message).toMatch(/JSON/);
      expect((await t.get('/project/BAD')).status).toBe(404);
    });

    it('answers 415 for a body that is not JSON', async () => {
      const res = await t.post('/project', 'code=TXT&title=x', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(typeof res.body.message).toBe('string');
      const plain = await t.post('/project', '{"code":"TXT","title":"x"}', {
        headers: { 'content-type': 'text/plain' },
      });
      expect(plain.status).toBe(415);
      expect((await t.get('/project/TXT')).status).toBe(404);
    });

    it('accepts a JSON content type with an empty body on a body-less request', async () => {
      const res = await t.request('GET', '/project', { headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(200);
      const p = await createProject(t);
      const folders = await t.request('GET', `/project/${p.code}/tcase/folders`, {
        headers: { 'content-type': 'application/json' },
      });
      expect(folders.status).toBe(200);
    });

    it('answers 400, not a crash, for an empty JSON body where a body is required', async () => {
      const res = await t.request('POST', '/project', { headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.message).toMatch(/body/);
    });

    it('coerces query strings to the declared types but never coerces body fields', async () => {
      const p = await createProject(t);
      await t.post(`/project/${p.code}/tcase/folder/bulk`, {
        folders: Array.from({ length: 7 }, (_, i) => ({ path: [`Q${i}`] })),
      });
      const query = await t.get(`/project/${p.code}/tcase/folders?limit=5&offset=1`);
      expect(query.status).toBe(200);
      expect(query.body).toMatchObject({ total: 7, offset: 1, limit: 5 });
      expect(query.body.data).toHaveLength(5);

      const app = await extraApp(t);
      app.post(
        '/api/public/v0/numbers',
        {
          config: { access: { minRole: 'viewer' } },
          schema: { body: Type.Object({ n: Type.Integer() }, { additionalProperties: false }) },
        },
        async (req) => req.body,
      );
      try {
        const ok = await send(app, 'POST', '/api/public/v0/numbers', t.ownerKey, { n: 5 });
        expect(ok.statusCode).toBe(200);
        expect(ok.json()).toEqual({ n: 5 });
        const str = await send(app, 'POST', '/api/public/v0/numbers', t.ownerKey, { n: '5' });
        expect(str.statusCode).toBe(400);
        expect(str.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/n' }] });
      } finally {
        await app.close();
      }
      // The same holds on real routes: a number where a string belongs is a 400.
      const title = await t.post('/project', { code: 'NUM', title: 5 });
      expect(title.status).toBe(400);
      expect(title.body.details[0].path).toBe('/title');
    });

    it('echoes a sent x-request-id and generates one otherwise', async () => {
      const echoed = await t.get('/project', { headers: { 'x-request-id': 'trace-abc.123' } });
      expect(echoed.headers['x-request-id']).toBe('trace-abc.123');
      const generated = await t.get('/project');
      expect(generated.headers['x-request-id']).toMatch(UUID);
      const unsafe = await t.get('/project', { headers: { 'x-request-id': 'bad id\twith spaces' } });
      expect(unsafe.headers['x-request-id']).toMatch(UUID);
      const onError = await t.get('/project', { key: null, headers: { 'x-request-id': 'err-1' } });
      expect(onError.status).toBe(401);
      expect(onError.headers['x-request-id']).toBe('err-1');
    });

    it('hides the message of a 500, answers the request id, and logs the error with that id', async () => {
      const log: string[] = [];
      const app = await extraApp(t, { logLevel: 'info', log });
      app.get('/api/public/v0/boom', async () => {
        throw new Error('secret internal detail: table xyz');
      });
      try {
        const res = await app.inject({
          method: 'GET',
          url: '/api/public/v0/boom',
          headers: { authorization: `ApiKey ${t.ownerKey}`, 'x-request-id': 'boom-1' },
        });
        expect(res.statusCode).toBe(500);
        expect(res.json()).toEqual({
          code: 'INTERNAL',
          message: 'Internal server error',
          requestId: 'boom-1',
        });
        expect(res.body).not.toContain('secret internal detail');
        const entry = log.map((l) => JSON.parse(l)).find((e) => e.msg === 'unhandled error');
        expect(entry).toMatchObject({
          reqId: 'boom-1',
          err: { message: 'secret internal detail: table xyz' },
        });
        // The request's one line carries the same id, so the error is found from either.
        const completed = log.map((l) => JSON.parse(l)).filter((e) => e.reqId === 'boom-1');
        expect(completed.map((e) => [e.msg, e.res?.statusCode])).toEqual([
          ['unhandled error', undefined],
          ['request completed', 500],
        ]);
      } finally {
        await app.close();
      }
    });
    it('logs each request once, when answered, with level name, method, route, status, time, request id, tenant and user; probes not at info', async () => {
      const log: string[] = [];
      const app = await extraApp(t, { logLevel: 'info', log });
      try {
        const missing = await app.inject({
          method: 'GET',
          url: '/api/public/v0/project/NOPE',
          headers: { authorization: `ApiKey ${t.ownerKey}`, 'x-request-id': 'log-1' },
        });
        expect(missing.statusCode).toBe(404);
        const nowhere = await app.inject({
          method: 'POST',
          url: '/api/no-such-address?page=2',
          headers: { 'x-request-id': 'log-2' },
        });
        expect(nowhere.statusCode).toBe(404);
        expect((await send(app, 'GET', '/api/public/v0/project', t.ownerKey)).statusCode).toBe(200);
        expect((await send(app, 'GET', '/healthz', null)).statusCode).toBe(200);
        expect((await send(app, 'GET', '/readyz', null)).statusCode).toBe(200);
      } finally {
        await app.close();
      }
      const entries = log
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const requests = entries.filter((e) => e.reqId !== undefined);
      expect(
        requests.map((e) => ({
          level: e.level,
          msg: e.msg,
          reqId: e.reqId,
          method: e.req.method,
          url: e.req.url,
          route: e.route,
          status: e.res.statusCode,
          tenant: e.tenant,
          user: e.user,
        })),
      ).toEqual([
        {
          level: 'info',
          msg: 'request completed',
          reqId: 'log-1',
          method: 'GET',
          url: '/api/public/v0/project/NOPE',
          route: '/api/public/v0/project/:project',
          status: 404,
          tenant: 'default',
          user: t.ownerId,
        },
        {
          level: 'info',
          msg: 'request completed',
          reqId: 'log-2',
          method: 'POST',
          url: '/api/no-such-address?page=2',
          route: undefined,
          status: 404,
          tenant: undefined,
          user: undefined,
        },
        {
          level: 'info',
          msg: 'request completed',
          reqId: expect.stringMatching(UUID),
          method: 'GET',
          url: '/api/public/v0/project',
          route: '/api/public/v0/project',
          status: 200,
          tenant: 'default',
          user: t.ownerId,
        },
      ]);
      for (const e of requests) expect(e.responseTime).toBeGreaterThanOrEqual(0);
      expect(entries.filter((e) => e.msg === 'incoming request')).toEqual([]);
    });
  });

  describe('service endpoints', () => {
    it('answers /healthz and /readyz with 200 and no key', async () => {
      const health = await t.request('GET', '/healthz', { key: null });
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
      const ready = await t.request('GET', '/readyz', { key: null });
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready' });
    });

    it('serves an OpenAPI 3 document listing the public routes, each with a summary and tags', async () => {
      const res = await t.request('GET', '/api/public/v0/openapi.json', { key: null });
      expect(res.status).toBe(200);
      expect(res.body.openapi).toMatch(/^3\./);
      const paths = res.body.paths as Record<string, Record<string, { summary?: string; tags?: string[] }>>;
      expect(Object.keys(paths)).toEqual(
        expect.arrayContaining([
          '/api/public/v0/project',
          '/api/public/v0/project/{project}',
          '/api/public/v0/project/{project}/tcase/folders',
          '/api/public/v0/project/{project}/tcase/folder/bulk',
        ]),
      );
      expect(paths['/api/public/v0/project'].post.summary).toBeTruthy();
      expect(paths['/api/public/v0/project/{project}/tcase/folder/bulk'].post.tags).toEqual(['folders']);
      expect(Object.keys(paths)).not.toContain('/healthz');
    });

    it('serves the interactive API docs as HTML at /docs', async () => {
      const res = await t.request('GET', '/docs', { key: null });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toMatch(/<html/i);
    });
  });

  describe('secrets', () => {
    it('never writes an API key or its secret to the log', async () => {
      const log: string[] = [];
      const app = await extraApp(t, { logLevel: 'info', log });
      const { key } = await userWithKey(t, 'admin');
      const secret = key.split('.')[2];
      try {
        await send(app, 'GET', '/api/public/v0/project', key);
        await app.inject({
          method: 'GET',
          url: '/api/public/v0/project',
          headers: { authorization: `Bearer ${key}` },
        });
        await send(app, 'POST', '/api/public/v0/project', key, { code: 'LOGS', title: 'Logged' });
        // Failures are logged too.
        await send(app, 'GET', '/api/public/v0/project', `${key}x`);
        await send(app, 'GET', '/api/public/v0/project/NOPE', key);
      } finally {
        await app.close();
      }
      const text = log.join('');
      expect(text).toContain('request completed');
      expect(text).not.toContain(secret);
      expect(text).not.toContain(key);
    });

    it('stores only the sha256 of a key secret and an scrypt hash of a password', async () => {
      const { key, keyId } = await userWithKey(t, 'user');
      const secret = key.split('.')[2];
      const row = await t.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', keyId)
        .executeTakeFirstOrThrow();
      expect(row.secret_hash).toBe(sha256(secret));
      expect(JSON.stringify(row)).not.toContain(secret);
      const owner = await t.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', t.ownerId)
        .executeTakeFirstOrThrow();
      expect(owner.password_hash).toMatch(/^scrypt\$/);
      expect(owner.password_hash).not.toContain('owner-password');
    });
  });
});

describeEachDb(
  'HTTP layer with a small body limit',
  (t) => {
    it('answers 413 for a body over CASEBOOK_BODY_LIMIT and accepts one under it', async () => {
      const big = await t.post('/project', { code: 'BIG', title: 'x'.repeat(3000) });
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
      expect(typeof big.body.message).toBe('string');
      expect((await t.get('/project/BIG')).status).toBe(404);
      expect((await t.post('/project', { code: 'SMALL', title: 'small' })).status).toBe(201);
    });
  },
  { env: { CASEBOOK_BODY_LIMIT: '2048' } },
);
