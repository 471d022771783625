import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  auth,
  exchangeAuthorization,
  startAuthorization,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows, createProject } from '../../../test/helpers/factories.js';
import { createUser } from '../users/users.service.js';
import type { Role } from '../../auth/roles.js';

const REDIRECT = 'http://127.0.0.1:33418/callback';
let n = 0;

/** An MCP client's memory, as the SDK asks a host application to keep it (OAuthClientProvider). */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUrl = REDIRECT) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state = () => 'state-123';
  clientInformation = () => this.info;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.info = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

describeEachDb('MCP clients sign people in: OAuth 2.1 authorization code with PKCE', (t: TestEnv) => {
  let origin: string;
  let mcpUrl: URL;
  let metadata: AuthorizationServerMetadata;
  const clients: Client[] = [];

  beforeAll(async () => {
    origin = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).origin;
    mcpUrl = new URL('/api/mcp', origin);
    metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as any;
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
  });

  /** A person signed in to the web app: a session cookie, and writes from the app's own origin. */
  async function signedIn(role: Role = 'user') {
    const password = 'correct horse battery';
    const email = `oauth-${n++}@example.com`;
    const user = await createUser(t.db, t.tenantId, { email, name: `Person ${n}`, role, password });
    const res = await fetch(`${origin}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(res.status).toBe(200);
    const cookie = `session=${((await res.json()) as { token: string }).token}`;
    const browse = (path: string, init: RequestInit = {}) =>
      fetch(`${origin}${path}`, {
        redirect: 'manual',
        ...init,
        headers: { cookie, origin, 'content-type': 'application/json', ...init.headers },
      });
    return { user, cookie, browse };
  }
  type Person = Awaited<ReturnType<typeof signedIn>>;

  /** What the approval page does: reads the request, then posts the person's decision with its parameters. */
  async function decide(person: Person, authorizationUrl: URL, decision: 'approve' | 'deny') {
    const params = Object.fromEntries(authorizationUrl.searchParams);
    const res = await person.browse(`/api/oauth/authorize/${decision}`, {
      method: 'POST',
      body: JSON.stringify(params),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  async function registered(provider = new MemoryProvider()) {
    const res = await fetch(metadata.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(provider.clientMetadata),
    });
    expect(res.status).toBe(201);
    provider.info = (await res.json()) as OAuthClientInformationMixed;
    return provider;
  }

  /** A code approved by `person` for a registered client, with its verifier. */
  async function approvedCode(person: Person, provider: MemoryProvider) {
    const { authorizationUrl, codeVerifier } = await startAuthorization(origin, {
      metadata,
      clientInformation: provider.info!,
      redirectUrl: provider.redirectUrl,
      state: 's',
      resource: mcpUrl,
    });
    const { status, body } = await decide(person, authorizationUrl, 'approve');
    expect(status, JSON.stringify(body)).toBe(200);
    return { code: new URL(body.redirectTo).searchParams.get('code')!, codeVerifier };
  }

  const token = (fields: Record<string, string>) =>
    fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

  async function connect(provider: MemoryProvider) {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    clients.push(client);
    return client;
  }

  it('a client discovers, registers, has a person approve, gets tokens, calls tools and refreshes, all through the SDK', async () => {
    const bare = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api/mcp"`,
    );
    expect(await bare.json()).toMatchObject({ code: 'UNAUTHORIZED' });

    const provider = new MemoryProvider();
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(new Client({ name: 'oauth-test', version: '1' }).connect(transport)).rejects.toThrow(
      UnauthorizedError,
    );
    const asked = provider.authorizationUrl!;
    expect(asked.origin + asked.pathname).toBe(`${origin}/api/oauth/authorize`);
    expect(asked.searchParams.get('resource')).toBe(`${origin}/api/mcp`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');

    // The browser: not signed in, the endpoint sends it to sign in and back; signed in, to the approval page.
    const page = `/oauth/authorize?${asked.searchParams.toString()}`;
    const anonymous = await fetch(asked, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe(`/sign-in?${new URLSearchParams({ returnTo: page })}`);
    const person = await signedIn('user');
    const toPage = await person.browse(asked.pathname + asked.search);
    expect(toPage.headers.get('location')).toBe(page);
    const view = await person.browse(`/api/oauth/authorize/request${asked.search}`);
    expect(await view.json()).toEqual({
      clientId: provider.info!.client_id,
      clientName: 'Test Assistant',
      redirectUri: REDIRECT,
      redirectOrigin: 'http://127.0.0.1:33418',
      allowed: true,
    });
    const approved = await decide(person, asked, 'approve');
    const back = new URL(approved.body.redirectTo);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('state-123');

    await transport.finishAuth(back.searchParams.get('code')!);
    expect(provider.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const client = await connect(provider);
    expect((await client.listTools()).tools.map((x) => x.name)).toContain('create_test_case');
    const project = await createProject(t, {}, [person.user.id]);
    const listed = (await client.callTool({ name: 'list_projects', arguments: {} })) as any;
    expect(listed.isError).toBeFalsy();
    expect(listed.content[0].text).toContain(project.code);

    // The sign-in is an api_keys row of kind 'oauth' of the person, named after the client.
    const rows = await t.db
      .selectFrom('api_keys')
      .select(['kind', 'client_id', 'name', 'revoked_at'])
      .where('user_id', '=', person.user.id)
      .execute();
    expect(rows).toEqual([
      { kind: 'oauth', client_id: provider.info!.client_id, name: 'Test Assistant', revoked_at: null },
    ]);

    // Refresh: both tokens rotate, the old access token stops at once, the new one works.
    const before = provider.saved!;
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
    expect(provider.saved!.access_token).not.toBe(before.access_token);
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
    const old = await fetch(`${origin}/api/public/v0/users/me`, {
      headers: { authorization: `Bearer ${before.access_token}` },
    });
    expect(old.status).toBe(401);
    expect((await (await connect(provider)).listTools()).tools.length).toBeGreaterThan(0);

    const audit = (action: string) => auditRows(t, action);
    expect((await audit('oauth.client_registered')).map((r: any) => JSON.parse(r.meta))).toContainEqual({
      client_id: provider.info!.client_id,
      client_name: 'Test Assistant',
      redirect_origins: ['http://127.0.0.1:33418'],
    });
    expect(
      (await auditRows(t, 'oauth.approval_granted', person.user.id)).map((r: any) => JSON.parse(r.meta)),
    ).toEqual([
      {
        client_id: provider.info!.client_id,
        client_name: 'Test Assistant',
        redirect_origin: 'http://127.0.0.1:33418',
      },
    ]);
    expect(
      (await auditRows(t, 'oauth.authorization_created', person.user.id)).map((r: any) => JSON.parse(r.meta)),
    ).toEqual([
      {
        grant_type: 'authorization_code',
        client_id: provider.info!.client_id,
        authorization_id: expect.any(String),
      },
    ]);
  });

  it('serves the protected resource and authorization server metadata the MCP authorization spec names', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/mcp',
    ]) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: `${origin}/api/mcp`,
        authorization_servers: [origin],
      });
    }
    expect(metadata).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/api/oauth/authorize`,
      token_endpoint: `${origin}/api/oauth/token`,
      registration_endpoint: `${origin}/api/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
    });
  });

  it('refuses a wrong code_verifier, a reused code (revoking what it bought), another redirect_uri and another resource', async () => {
    const person = await signedIn();
    const provider = await registered();
    const clientId = provider.info!.client_id;
    const grant = (code: string, verifier: string, extra: Record<string, string> = {}) =>
      token({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        ...extra,
      });

    const a = await approvedCode(person, provider);
    const wrong = await grant(a.code, 'x'.repeat(43));
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant', code: 'VALIDATION_FAILED' } });

    const b = await approvedCode(person, provider);
    expect(
      (await grant(b.code, b.codeVerifier, { redirect_uri: 'http://127.0.0.1:9/other' })).body.error,
    ).toBe('invalid_grant');
    expect((await grant(b.code, b.codeVerifier, { resource: `${origin}/api/public/v0` })).body.error).toBe(
      'invalid_target',
    );

    const c = await approvedCode(person, provider);
    const first = await exchangeAuthorization(origin, {
      metadata,
      clientInformation: provider.info!,
      authorizationCode: c.code,
      codeVerifier: c.codeVerifier,
      redirectUri: REDIRECT,
      resource: mcpUrl,
    });
    const me = () =>
      fetch(`${origin}/api/public/v0/users/me`, {
        headers: { authorization: `Bearer ${first.access_token}` },
      });
    expect((await me()).status).toBe(200);
    const again = await grant(c.code, c.codeVerifier);
    expect(again.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('used'),
    });
    expect((await me()).status).toBe(401);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! })).body.error,
    ).toBe('invalid_grant');
  });

  it('an unregistered client or redirect URI is refused without a redirect; other faults go back to the client', async () => {
    const person = await signedIn();
    const provider = await registered();
    const { authorizationUrl } = await startAuthorization(origin, {
      metadata,
      clientInformation: provider.info!,
      redirectUrl: REDIRECT,
      resource: mcpUrl,
    });
    const tweak = (name: string, value: string | null) => {
      const url = new URL(authorizationUrl);
      if (value === null) url.searchParams.delete(name);
      else url.searchParams.set(name, value);
      return url;
    };
    for (const url of [tweak('client_id', 'mcp-unknown'), tweak('redirect_uri', 'https://evil.example/cb')]) {
      const res = await person.browse(url.pathname + url.search);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect((await decide(person, url, 'approve')).status).toBe(400);
    }
    const noPkce = await person.browse(
      tweak('code_challenge_method', 'plain').pathname + tweak('code_challenge_method', 'plain').search,
    );
    expect(noPkce.status).toBe(302);
    const told = new URL(noPkce.headers.get('location')!);
    expect(told.origin + told.pathname).toBe(REDIRECT);
    expect(told.searchParams.get('error')).toBe('invalid_request');
    const unknown = await token({
      grant_type: 'authorization_code',
      client_id: 'mcp-unknown',
      code: 'abc',
      code_verifier: 'v'.repeat(43),
      redirect_uri: REDIRECT,
    });
    expect(unknown).toMatchObject({ status: 400, body: { error: 'invalid_client' } });
  });

  it('a denied sign-in sends the client access_denied with its state, and is audited', async () => {
    const person = await signedIn();
    const provider = await registered();
    const { authorizationUrl } = await startAuthorization(origin, {
      metadata,
      clientInformation: provider.info!,
      redirectUrl: REDIRECT,
      state: 'keep-me',
    });
    const denied = await decide(person, authorizationUrl, 'deny');
    expect(denied.status).toBe(200);
    const back = new URL(denied.body.redirectTo);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('keep-me');
    expect(back.searchParams.get('code')).toBeNull();
    expect((await auditRows(t, 'oauth.approval_denied', person.user.id)).length).toBe(1);
  });

  it("a viewer's sign-in lists only reading tools and gets a tool error from a writing one", async () => {
    const viewer = await signedIn('viewer');
    const provider = await registered();
    const project = await createProject(t, {}, [viewer.user.id]);
    const { code, codeVerifier } = await approvedCode(viewer, provider);
    provider.saved = await exchangeAuthorization(origin, {
      metadata,
      clientInformation: provider.info!,
      authorizationCode: code,
      codeVerifier,
      redirectUri: REDIRECT,
      resource: mcpUrl,
    });
    const client = await connect(provider);
    expect((await client.listTools()).tools.map((x) => x.name)).not.toContain('create_test_case');
    const refused = (await client.callTool({
      name: 'upsert_folders',
      arguments: { projectCode: project.code, folders: [{ path: ['X'], comment: null }] },
    })) as any;
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0].text)).toMatchObject({ code: 'FORBIDDEN' });
  });

  it("an admin's rule limits which clients people may approve; loopback origins match any port", async () => {
    const person = await signedIn();
    const admin = await signedIn('admin');
    const setRule = (allowedOrigins: string[] | null) =>
      admin.browse('/api/oauth/client-policy', { method: 'PUT', body: JSON.stringify({ allowedOrigins }) });
    expect(
      (await person.browse('/api/oauth/client-policy', { method: 'PUT', body: '{"allowedOrigins":null}' }))
        .status,
    ).toBe(403);
    expect((await setRule(['not an origin'])).status).toBe(400);
    const set = await setRule(['https://claude.ai/']);
    expect(await set.json()).toMatchObject({ allowedOrigins: ['https://claude.ai'] });

    const provider = await registered();
    const { authorizationUrl } = await startAuthorization(origin, {
      metadata,
      clientInformation: provider.info!,
      redirectUrl: REDIRECT,
    });
    const view = await person.browse(`/api/oauth/authorize/request${authorizationUrl.search}`);
    expect(await view.json()).toMatchObject({ allowed: false, redirectOrigin: 'http://127.0.0.1:33418' });
    const refused = await decide(person, authorizationUrl, 'approve');
    expect(refused).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(
      await t.db
        .selectFrom('oauth_authorization_codes')
        .select('id')
        .where('user_id', '=', person.user.id)
        .execute(),
    ).toEqual([]);

    await setRule(['https://claude.ai', 'http://127.0.0.1']);
    expect((await decide(person, authorizationUrl, 'approve')).status).toBe(200);
    const list = await (await admin.browse('/api/oauth/clients')).json();
    expect(list.clients.find((c: any) => c.clientId === provider.info!.client_id)).toMatchObject({
      allowed: true,
    });
    expect((await auditRows(t, 'oauth.client_policy_updated', admin.user.id)).length).toBe(2);
    await setRule(null);
  });

  it('registration takes public clients with https or loopback redirects only, and is rate-limited per address', async () => {
    const register = (body: unknown, ip = '203.0.113.7') =>
      fetch(`${origin}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify(body),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as any, headers: res.headers }));
    for (const uri of ['http://example.com/cb', 'javascript:alert(1)', 'https://a.example/cb#frag']) {
      expect((await register({ redirect_uris: [uri] })).body.error).toBe('invalid_redirect_uri');
    }
    expect(
      (
        await register({
          redirect_uris: ['https://a.example/cb'],
          token_endpoint_auth_method: 'client_secret_basic',
        })
      ).body.error,
    ).toBe('invalid_client_metadata');
    const before = await t.db.selectFrom('oauth_clients').select('id').execute();
    for (let i = 0; i < 20; i++) {
      expect(
        (await register({ redirect_uris: ['https://a.example/cb'], client_name: `\u202eApp ${i}\n` })).status,
      ).toBe(201);
    }
    const named = await t.db.selectFrom('oauth_clients').select('name').where('name', '=', 'App 0').execute();
    expect(named).toHaveLength(1);
    const limited = await register({ redirect_uris: ['https://a.example/cb'] });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await register({ redirect_uris: ['https://a.example/cb'] }, '203.0.113.8')).status).toBe(201);
    expect((await t.db.selectFrom('oauth_clients').select('id').execute()).length).toBe(before.length + 21);
  });

  it('revocation (RFC 7009) with the refresh token ends the sign-in; unknown tokens answer 200 too', async () => {
    const person = await signedIn();
    const provider = await registered();
    const { code, codeVerifier } = await approvedCode(person, provider);
    const tokens = await exchangeAuthorization(origin, {
      metadata,
      clientInformation: provider.info!,
      authorizationCode: code,
      codeVerifier,
      redirectUri: REDIRECT,
    });
    const revoke = (tok: string) =>
      fetch((metadata as { revocation_endpoint: string }).revocation_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tok, client_id: provider.info!.client_id }),
      });
    expect((await revoke('nothing-like-a-token')).status).toBe(200);
    expect((await revoke(tokens.refresh_token!)).status).toBe(200);
    const me = await fetch(`${origin}/api/public/v0/users/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(401);
    expect((await auditRows(t, 'oauth.authorization_revoked', person.user.id)).length).toBe(1);
  });
});
