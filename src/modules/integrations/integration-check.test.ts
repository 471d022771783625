import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { userWithKey } from '../../../test/helpers/factories.js';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.js';
import { checkConnection } from './integration-check.js';

describeEachDb(
  'integrations: test connection',
  (t) => {
    let tracker: Receiver;
    let n = 0;
    const create = async (type: string, config: Record<string, string>, token?: string) => {
      const res = await t.post('/integration', {
        name: `${type} ${++n}`,
        type,
        config,
        ...(token === undefined ? {} : { token }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const test = (id: string) => t.post(`/integration/${id}/test`);
    beforeAll(async () => {
      tracker = await startReceiver();
    });
    afterAll(async () => tracker.close());
    beforeEach(() => {
      tracker.requests.length = 0;
    });

    it('asks a repository tracker who the stored token belongs to and answers connected with the login', async () => {
      const id = await create('tracker_a', { account: 'acme', apiUrl: `${tracker.url}/api/v3` }, 'ghp_tok_1');
      tracker.respond = () => ({ status: 200, body: JSON.stringify({ login: 'casebook-bot' }) });
      const res = await test(id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        ok: true,
        status: 200,
        message: 'connected: the tracker knows the credential as casebook-bot',
        durationMs: expect.any(Number),
      });
      expect(tracker.requests).toHaveLength(1);
      expect(tracker.requests[0]).toMatchObject({ method: 'GET', url: '/api/v3/user' });
      expect(tracker.requests[0].headers.authorization).toBe('Bearer ghp_tok_1');
    });

    it("answers a site tracker's refusal with its status and its own message, the credential masked", async () => {
      const id = await create(
        'tracker_b',
        { url: `${tracker.url}/jira`, email: 'bot@example.com' },
        'tb-secret-token',
      );
      tracker.respond = (req) => ({
        status: 401,
        body: JSON.stringify({ errorMessages: [`Bad credentials for ${req.headers.authorization}`] }),
      });
      const res = await test(id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: false, status: 401 });
      expect(res.body.message).toBe(
        'the tracker refused the credentials (HTTP 401): "Bad credentials for Basic ****"',
      );
      expect(tracker.requests[0]).toMatchObject({ method: 'GET', url: '/jira/rest/api/3/myself' });
      expect(tracker.requests[0].headers.authorization).toBe(
        `Basic ${Buffer.from('bot@example.com:tb-secret-token').toString('base64')}`,
      );
    });

    it('asks an organisation tracker for its viewer by GraphQL; a GraphQL error is a refusal in its words', async () => {
      const id = await create('tracker_c', { organizationKey: 'ENG', apiUrl: tracker.url }, 'lin_api_x');
      tracker.respond = () => ({
        status: 200,
        body: JSON.stringify({ data: { viewer: { id: 'u1', name: 'Ada' } } }),
      });
      expect((await test(id)).body).toMatchObject({
        ok: true,
        status: 200,
        message: expect.stringContaining('Ada'),
      });
      expect(JSON.parse(tracker.requests[0].body).query).toContain('viewer');
      expect(tracker.requests[0].headers.authorization).toBe('lin_api_x');
      tracker.respond = () => ({
        status: 400,
        body: JSON.stringify({ errors: [{ message: 'Authentication required, not authenticated' }] }),
      });
      expect((await test(id)).body).toMatchObject({
        ok: false,
        status: 400,
        message: 'the tracker refused the request (HTTP 400): "Authentication required, not authenticated"',
      });
    });

    it('says a 404 is the wrong address and a 2xx of another kind of service is not this tracker', async () => {
      const id = await create('tracker_a', { account: 'acme', apiUrl: tracker.url }, 'tok-404');
      tracker.respond = () => ({ status: 404, body: '<html>Not found</html>' });
      expect((await test(id)).body.message).toBe('the tracker has no such address: check the URL (HTTP 404)');
      tracker.respond = () => ({ status: 200, body: '<html>Welcome</html>' });
      expect((await test(id)).body).toMatchObject({
        ok: false,
        status: 200,
        message: expect.stringContaining('not as this kind of tracker does'),
      });
    });

    it('answers in words when no answer comes: an unknown host, a closed port, a timeout', async () => {
      const unknown = await create('tracker_a', { account: 'a', apiUrl: 'http://nowhere.invalid' }, 'tok');
      expect((await test(unknown)).body).toEqual({
        ok: false,
        status: null,
        durationMs: null,
        message: expect.stringMatching(/could not find the tracker's host name \((ENOTFOUND|EAI_AGAIN)\)/),
      });
      const closed = await startReceiver();
      const port = new URL(closed.url).port;
      await closed.close();
      const refused = await create(
        'tracker_c',
        { organizationKey: 'K', apiUrl: `http://127.0.0.1:${port}` },
        'tok',
      );
      expect((await test(refused)).body.message).toBe('could not connect to the tracker (ECONNREFUSED)');
      const slow = await create('tracker_a', { account: 'a', apiUrl: tracker.url }, 'tok');
      tracker.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 1000));
      const answer = await checkConnection(t.db, t.tenantId, slow, {
        guard: t.app.ctx.outboundGuard,
        secretKey: t.config.secretKey,
        timeoutMs: 100,
      });
      expect(answer).toMatchObject({
        ok: false,
        status: null,
        message: 'the tracker did not answer in time (timed out after 100 ms)',
      });
    });

    it('makes no request without a stored credential, and refuses a custom integration (400) which calls no tracker', async () => {
      const bare = await create('tracker_a', { account: 'a', apiUrl: tracker.url });
      expect((await test(bare)).body).toMatchObject({
        ok: false,
        status: null,
        message: expect.stringContaining('no credential is stored'),
      });
      const custom = await create('custom', {
        newUrl: 'https://bugs.example.com/new',
        viewUrl: 'https://bugs.example.com/{id}',
      });
      const res = await test(custom);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('custom integrations');
      expect(tracker.requests).toHaveLength(0);
    });

    describe('POST /integration/test: settings typed, not saved', () => {
      const rows = async () => ({
        integrations: (await t.db.selectFrom('integrations').select('id').execute()).length,
        audit: (await t.db.selectFrom('audit_events').select('id').execute()).length,
      });

      it('tries the typed settings and credential, stores nothing, and never sends the credential back', async () => {
        const before = await rows();
        tracker.respond = (req) => ({
          status: 403,
          body: JSON.stringify({ message: `token ${req.headers.authorization} may not read` }),
        });
        const res = await t.post('/integration/test', {
          type: 'tracker_b',
          config: { url: `${tracker.url}/site`, email: 'bot@example.com' },
          token: 'typed-secret-9',
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toMatchObject({ ok: false, status: 403 });
        expect(res.body.message).toBe(
          'the tracker refused access with these credentials (HTTP 403): "token Basic **** may not read"',
        );
        expect(res.text).not.toContain('typed-secret-9');
        expect(tracker.requests).toHaveLength(1);
        expect(tracker.requests[0]).toMatchObject({ method: 'GET', url: '/site/rest/api/3/myself' });
        expect(tracker.requests[0].headers.authorization).toBe(
          `Basic ${Buffer.from('bot@example.com:typed-secret-9').toString('base64')}`,
        );
        expect(await rows()).toEqual(before);
      });

      it("uses an edited integration's stored credential with the typed settings, on the same origin only", async () => {
        const id = await create('tracker_a', { account: 'acme', apiUrl: `${tracker.url}/old` }, 'stored-tok');
        const before = await rows();
        tracker.respond = () => ({ status: 200, body: JSON.stringify({ login: 'bot' }) });
        const res = await t.post('/integration/test', {
          type: 'tracker_a',
          integrationId: id,
          config: { apiUrl: `${tracker.url}/new` },
        });
        expect(res.body).toMatchObject({ ok: true, message: expect.stringContaining('bot') });
        expect(tracker.requests[0]).toMatchObject({ url: '/new/user' });
        expect(tracker.requests[0].headers.authorization).toBe('Bearer stored-tok');
        // The stored settings did not change.
        expect((await t.get(`/integration/${id}`)).body.config.apiUrl).toBe(`${tracker.url}/old`);
        expect(await rows()).toEqual(before);
        // Another origin gets the stored credential only when it is typed again.
        const moved = await t.post('/integration/test', {
          type: 'tracker_a',
          integrationId: id,
          config: { apiUrl: 'http://127.0.0.2:9/api' },
        });
        expect(moved.status).toBe(400);
        expect(moved.body.details[0].path).toBe('/token');
        expect(tracker.requests).toHaveLength(1);
      });

      it('says no credential was given without a request, for typed settings of an optional-credential type', async () => {
        const res = await t.post('/integration/test', {
          type: 'tracker_c',
          config: { organizationKey: 'ENG', apiUrl: tracker.url },
        });
        expect(res.body).toEqual({
          ok: false,
          status: null,
          durationMs: null,
          message: 'no credential is given: add one (the tracker refuses requests without it)',
        });
        expect(tracker.requests).toHaveLength(0);
      });

      it.each([
        [{ type: 'tracker_b', config: { email: 'bot@example.com' }, token: 'x' }, '/config/url'],
        [
          { type: 'tracker_b', config: { url: 'ftp://x', email: 'bot@example.com' }, token: 'x' },
          '/config/url',
        ],
        [{ type: 'tracker_a', config: { account: 'a', teamId: 't' } }, '/config/teamId'],
        [{ type: 'custom', config: { newUrl: 'https://b/new', viewUrl: 'https://b/{id}' } }, '/type'],
        [{ type: 'tracker_a', config: { account: 'a' }, integrationId: 'nope' }, '/integrationId'],
        [{ type: 'tracker_a', config: { account: 'a' }, token: '' }, '/token'],
        [{ type: 'tracker_a', config: { account: 'a' }, name: 'x' }, '/name'],
      ])('answers 400 naming the field for %o, and calls no tracker', async (body, path) => {
        const res = await t.post('/integration/test', body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(JSON.stringify(res.body.details)).toContain(path);
        expect(tracker.requests).toHaveLength(0);
      });

      it('answers 400 when the edited integration is of another type, and 403 to a non-admin', async () => {
        const id = await create('tracker_c', { organizationKey: 'K', apiUrl: tracker.url }, 'tok');
        const other = await t.post('/integration/test', {
          type: 'tracker_a',
          integrationId: id,
          config: { account: 'a' },
        });
        expect(other.status).toBe(400);
        expect(other.body.details[0].path).toBe('/type');
        const user = await userWithKey(t, 'user');
        const denied = await t.post(
          '/integration/test',
          { type: 'tracker_c', config: { organizationKey: 'K', apiUrl: tracker.url }, token: 't' },
          { key: user.key },
        );
        expect(denied.status).toBe(403);
        expect(tracker.requests).toHaveLength(0);
      });
    });

    it('answers 404 for an unknown integration and 403 for a non-admin', async () => {
      expect((await test('nope')).status).toBe(404);
      const id = await create('tracker_a', { account: 'a', apiUrl: tracker.url }, 'tok');
      const user = await userWithKey(t, 'user');
      expect((await t.post(`/integration/${id}/test`, undefined, { key: user.key })).status).toBe(403);
      expect(tracker.requests).toHaveLength(0);
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
