import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { firstStart } from '../../src/bootstrap.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/create-db.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { createPasswordResetLink } from '../../src/modules/accounts/accounts.service.js';
import { resolveSecretKey, verifySecretKey } from '../../src/secret-key.js';
import { Secret, TOTP } from 'otpauth';
import type { ApiResponse, TestEnv } from '../helpers/test-app.js';
import { uploadFile } from '../helpers/tcase-factories.js';
import { generated, importFile } from '../helpers/import-factories.js';
import { exportArchive, importArchive } from '../helpers/archive-factories.js';
import { keyAndCertificate } from '../helpers/saml-idp.js';
import { populateProject, type ProjectData } from '../security/fixtures.js';

/** An in-process service on a database URL, shaped like a TestEnv so the shared factories work on it. */
export interface Service extends TestEnv {
  close: () => Promise<void>;
}

const SITE = 'http://casebook.test';

export function serviceConfig(url: string, dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    CASEBOOK_LOG_LEVEL: 'silent',
    CASEBOOK_DATABASE_URL: url,
    CASEBOOK_DATA_DIR: dataDir,
    CASEBOOK_OWNER_EMAIL: 'owner@example.com',
    CASEBOOK_OWNER_PASSWORD: 'owner-password',
    CASEBOOK_PUBLIC_URL: SITE,
    // Both sides of a copy share the secret key: sealed secrets are copied as they are.
    CASEBOOK_SECRET_KEY: 'copy-test-secret-key-0123456789',
    CASEBOOK_TRUST_PROXY: 'true',
    // On PostgreSQL the counters are rows of rate_limit_counters; SQLite counts in each process's memory.
    CASEBOOK_RATE_LIMIT: '100000',
    ...env,
  });
}

/** Opens a service on `url`; `ownerKey` is the first start's key, or the one given (a copied database). */
export async function openService(
  url: string,
  dataDir: string,
  ownerKey?: string,
  env: Record<string, string> = {},
): Promise<Service> {
  const config = serviceConfig(url, dataDir, env);
  const db: Db = createDb(url);
  await migrateToLatest(db);
  // As a start does: the key's check value goes into instance_settings, and a copy must agree with it.
  await verifySecretKey(db, resolveSecretKey(config));
  const first = await firstStart(db, config);
  const key = ownerKey ?? first?.apiKey;
  if (!key) throw new Error('no owner key: an empty database was expected');
  const app: FastifyInstance = await buildApp({ config, db, webRoot: null });
  const request = async (
    method: string,
    path: string,
    o: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const full = path.startsWith('/api/') || path.startsWith('/scim/') ? path : `/api/public/v0${path}`;
    const headers: Record<string, string> = { ...o.headers };
    const k = o.key === undefined ? key : o.key;
    if (k !== null && !headers.authorization && !headers.cookie) headers.authorization = `ApiKey ${k}`;
    let payload: string | undefined;
    if (o.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    }
    const res = await app.inject({ method: method as 'GET', url: full, headers, payload });
    let body: unknown = res.body;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      // not JSON
    }
    return { status: res.statusCode, body, headers: res.headers, text: res.body } as ApiResponse;
  };
  const service = {
    dbName: url.startsWith('sqlite:') ? 'sqlite' : 'postgres',
    app,
    db,
    config,
    tenantId: 'default',
    ownerId: 1,
    ownerKey: key,
    request,
    get: (p: string, o?: object) => request('GET', p, o),
    post: (p: string, body?: unknown, o?: object) => request('POST', p, { ...o, body }),
    patch: (p: string, body?: unknown, o?: object) => request('PATCH', p, { ...o, body }),
    del: (p: string, o?: object) => request('DELETE', p, o),
    close: async () => {
      await app.close();
      await db.destroy();
    },
  } as unknown as Service;
  return service;
}

async function ok(res: Promise<ApiResponse>, what: string): Promise<any> {
  const r = await res;
  expect(r.status, `${what}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

export interface Populated {
  fx: ProjectData;
  fileId: string;
  fileBody: string;
  webhookId: string;
  /** A device sign-in's access token (an api_keys row of kind 'device'). */
  deviceToken: string;
  /** A second API key, made through the API. */
  extraKey: string;
}

/** Fills a service through its API: every table of the schema ends up with rows (the test asserts it). */
export async function populate(s: Service): Promise<Populated> {
  const fx = await populateProject((method, path, o) => s.request(method, path, o));
  const fileBody = 'copied evidence 0123456789';
  const fileId = await uploadFile(s, 'evidence.txt', fileBody);
  const p = `/project/${fx.project.code}`;
  const field = await ok(
    s.post('/custom-field', { type: 'text', systemName: 'env', name: 'Environment' }),
    'field',
  );
  await ok(
    s.post(`${p}/tcase`, {
      title: 'With a field and a file',
      type: 'standalone',
      folderId: fx.folderId,
      priority: 'medium',
      customFields: { env: { value: 'staging', isDefault: false } },
      files: [fileId],
    }),
    `case with ${JSON.stringify(field)}`,
  );
  await ok(s.patch(`${p}/tcase/${fx.tcaseSeq}`, { title: 'Case, second version' }), 'second version');
  const webhook = await ok(
    s.post('/webhook', {
      name: 'Hook',
      endpoint: 'https://hooks.example.com/casebook',
      eventTypes: ['run_created'],
      secret: 'webhook-signing-secret-0123456789',
    }),
    'webhook',
  );
  await ok(s.post(`/webhook/${webhook.id}/ping`), 'ping');
  await ok(
    s.post('/settings/preferences/status', {
      statuses: [{ id: 'custom1', name: 'Flaky', color: 'blue', isActive: true }],
    }),
    'statuses',
  );
  await ok(
    s.post(
      `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`,
      { status: 'passed', comment: 'sent once' },
      { headers: { 'idempotency-key': 'copy-result-1' } },
    ),
    'idempotent result',
  );
  // A CSV import (imports, import_created), run by draining its job.
  await importFile(s, fx.project.code, generated(2, 1));
  // A project imported from its own archive under another code (project_imports), run by draining its job.
  const archive = await exportArchive(s, fx.project.code);
  expect((await importArchive(s, archive.bytes, { code: 'ARCV' })).status).toBe('done');
  // An event after the webhook exists: its delivery waits in jobs (no runner in this process).
  await ok(
    s.post(`${p}/run`, {
      title: 'After the hook',
      type: 'static_struct',
      queryPlans: [{ tcaseIds: [fx.tcaseId] }],
    }),
    'run after the hook',
  );
  await ok(s.post(`${p}/report/share`, { report: 'dashboard' }), 'report share');
  await ok(
    s.post(`${p}/view`, {
      name: 'Mine, high first',
      page: 'repository',
      filters: { priority: ['high'] },
      shared: true,
    }),
    'saved view',
  );
  await ok(s.post('/users/invitations', { email: 'invitee@example.com', role: 'viewer' }), 'invitation');
  await createPasswordResetLink(
    s.db,
    { tenantId: 'default', ip: '', userAgent: 'test' },
    'owner@example.com',
    SITE,
  );
  const wrong = await s.request('POST', '/api/auth/login', {
    key: null,
    body: { email: 'owner@example.com', password: 'wrong-password-1' },
  });
  expect(wrong.status).toBe(401);
  const login = await ok(
    s.request('POST', '/api/auth/login', {
      key: null,
      body: { email: 'owner@example.com', password: 'owner-password' },
    }),
    'login',
  );
  const session = login.token as string;
  const browser = { key: null, headers: { cookie: `session=${session}`, origin: SITE } };
  const extraKey = (
    await ok(s.request('POST', '/users/me/api-keys', { ...browser, body: { name: 'kept' } }), 'key')
  ).key;
  const code = await ok(
    s.request('POST', '/api/oauth/device/code', { key: null, body: { client_id: 'qas-cli' } }),
    'device code',
  );
  await ok(
    s.request('POST', '/api/oauth/device/approve', { ...browser, body: { user_code: code.user_code } }),
    'approve',
  );
  // A second pending code stays in oauth_device_codes after the first is used.
  await ok(
    s.request('POST', '/api/oauth/device/code', { key: null, body: { client_id: 'qas-cli' } }),
    'pending code',
  );
  await new Promise((r) => setTimeout(r, code.interval * 1000 + 50));
  const tokens = await ok(
    s.request('POST', '/api/oauth/token', {
      key: null,
      body: {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        client_id: 'qas-cli',
        device_code: code.device_code,
      },
    }),
    'device token',
  );
  await ok(
    s.request('POST', '/api/auth/password-reset/request', {
      key: null,
      body: { email: 'owner@example.com' },
    }),
    'reset request',
  );
  const setup = await ok(
    s.request('POST', '/users/me/2fa/setup', { ...browser, body: { password: 'owner-password' } }),
    '2fa setup',
  );
  const totp = new TOTP({ secret: Secret.fromBase32(setup.secret), digits: 6, period: 30 }).generate();
  await ok(s.request('POST', '/users/me/2fa/enable', { ...browser, body: { totp } }), '2fa enable');
  // A failed sign-in after the good one (which clears the account's failures) stays in sign_in_failures.
  const late = await s.request('POST', '/api/auth/login', {
    key: null,
    body: { email: 'owner@example.com', password: 'wrong-password-2' },
  });
  expect(late.status).toBe(401);
  // A person and a group provisioned through SCIM (scim_users, scim_groups, scim_group_members).
  const scimKey = (
    await ok(
      s.request('POST', '/users/me/api-keys', { ...browser, body: { name: 'IdP', kind: 'scim' } }),
      'SCIM key',
    )
  ).key;
  const idp = { key: null, headers: { authorization: `Bearer ${scimKey}` } };
  const provisioned = await ok(
    s.request('POST', '/scim/v2/Users', { ...idp, body: { userName: 'scim@example.com', externalId: 'x1' } }),
    'SCIM user',
  );
  await ok(
    s.request('POST', '/scim/v2/Groups', {
      ...idp,
      body: { displayName: 'casebook-viewer', members: [{ value: provisioned.id }] },
    }),
    'SCIM group',
  );
  // A result with step outcomes (result_steps) and an attachment (result_files).
  await ok(
    s.request('POST', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`, {
      body: {
        status: 'failed',
        steps: [{ position: 1, status: 'failed', comment: '<p>step one</p>' }],
        files: [fileId],
      },
    }),
    'result with steps and a file',
  );
  // Failure triage: the run's failures are signed (failure_signatures); one group linked to a defect by a person
  // (result_links.linked_by, linked_at) and marked known (known_failures).
  const groups = await ok(s.request('GET', `${p}/run/${fx.runId}/failure-group`), 'failure groups');
  const signature: string = groups.groups[0].signature;
  await ok(
    s.request('POST', `${p}/run/${fx.runId}/failure-group/${signature}/link`, {
      body: { url: 'https://bugs.example.com/triaged', text: 'Triaged' },
    }),
    'defect linked to a failure group',
  );
  await ok(
    s.request('POST', `${p}/run/${fx.runId}/failure-group/${signature}/known`, { body: { note: 'known' } }),
    'failure group marked known',
  );
  // An MCP client registered, the admin's rule for them, and a code a person approved (oauth_clients,
  // oauth_client_policies, oauth_authorization_codes: the code is written as the approval writes it).
  const client = await ok(
    s.request('POST', '/api/oauth/register', {
      key: null,
      body: { client_name: 'Copied assistant', redirect_uris: ['http://127.0.0.1:7777/callback'] },
    }),
    'OAuth client',
  );
  await ok(
    s.request('PUT', '/api/oauth/client-policy', { body: { allowedOrigins: ['http://127.0.0.1'] } }),
    'OAuth client rule',
  );
  const now = new Date().toISOString();
  await s.db
    .insertInto('oauth_authorization_codes')
    .values({
      id: 'copied-code',
      tenant_id: 'default',
      client_id: client.client_id,
      code_hash: 'f'.repeat(64),
      user_id: 1,
      redirect_uri: 'http://127.0.0.1:7777/callback',
      code_challenge: 'c'.repeat(43),
      resource: `${SITE}/api/mcp`,
      created_at: now,
      expires_at: now,
      used_at: null,
      authorization_id: null,
    })
    .execute();
  // An OpenID Connect provider (oidc_providers, its secret sealed), a person it signed in (oidc_identities) and a
  // sign-in under way (oidc_sign_ins), written as the callback and the start write them.
  const provider = await ok(
    s.request('POST', '/oidc-provider', {
      body: {
        name: 'Copied SSO',
        issuer: 'https://sso.example.com/realms/qa',
        clientId: 'casebook',
        clientSecret: 'copied-client-secret',
        enabled: true,
        roleRules: [{ group: 'qa-leads', role: 'admin' }],
      },
    }),
    'OIDC provider',
  );
  await s.db
    .insertInto('oidc_identities')
    .values({
      provider_id: provider.id,
      subject: 'copied-subject',
      tenant_id: 'default',
      user_id: 1,
      created_at: now,
      last_sign_in_at: now,
    })
    .execute();
  await s.db
    .insertInto('oidc_sign_ins')
    .values({
      id: 'e'.repeat(64),
      tenant_id: 'default',
      provider_id: provider.id,
      nonce: 'copied-nonce',
      code_verifier: 'v'.repeat(43),
      redirect_uri: `${SITE}/api/auth/oidc/${provider.id}/callback`,
      return_to: '/',
      created_at: now,
      expires_at: now,
    })
    .execute();
  // A SAML provider (saml_providers, its IdP certificate pinned), a person it signed in (saml_identities), an
  // AuthnRequest under way (saml_requests) and an assertion remembered against replay (saml_assertions).
  const samlProvider = await ok(
    s.request('POST', '/saml-provider', {
      body: {
        name: 'Copied SAML',
        idpEntityId: 'https://idp.example.com/saml',
        ssoUrl: 'https://idp.example.com/saml/sso',
        idpCertificate: keyAndCertificate().cert,
        enabled: true,
        roleRules: [{ group: 'qa-leads', role: 'admin' }],
      },
    }),
    'SAML provider',
  );
  const samlRow = { tenant_id: 'default', provider_id: samlProvider.id };
  await s.db
    .insertInto('saml_identities')
    .values({ ...samlRow, subject: 'copied@corp.example', user_id: 1, created_at: now, last_sign_in_at: now })
    .execute();
  await s.db
    .insertInto('saml_requests')
    .values({
      ...samlRow,
      id: '_copied',
      browser_hash: 'b'.repeat(64),
      return_to: '/',
      created_at: now,
      expires_at: now,
    })
    .execute();
  await s.db
    .insertInto('saml_assertions')
    .values({ ...samlRow, assertion_id: '_copied-assertion', expires_at: now })
    .execute();
  return { fx, fileId, fileBody, webhookId: webhook.id, deviceToken: tokens.access_token, extraKey };
}

/** The GETs whose answers must be the same before and after the copy. */
export function comparedRequests(d: Populated): string[] {
  const p = `/project/${d.fx.project.code}`;
  return [
    '/project',
    `${p}`,
    `${p}/tcase?include=precondition,steps,tags,project,folder,path,requirements,customFields&limit=100`,
    // Full-text search: the index is rebuilt in the target, not copied (src/db/copy/catalog.ts).
    `${p}/tcase?q=second%20version`,
    `${p}/tcase/${d.fx.tcaseSeq}`,
    `${p}/tcase/${d.fx.tcaseId}`,
    `${p}/tcase/folders`,
    `${p}/shared-step`,
    `${p}/shared-precondition`,
    `${p}/milestone`,
    `${p}/run`,
    `${p}/run/${d.fx.runId}`,
    `${p}/run/${d.fx.runId}/tcase`,
    `${p}/run/${d.fx.runId}/tcase/${d.fx.tcaseId}`,
    `${p}/plan/${d.fx.planId}`,
    `${p}/view`,
    `${p}/run/${d.fx.runId}/failure-group`,
    `${p}/failure-group`,
    `${p}/result/${d.fx.resultId}/suggestions`,
    `${p}/custom-field`,
    '/users',
    '/webhook',
    '/oidc-provider',
    '/saml-provider',
    `/webhook/${d.webhookId}/delivery`,
    '/audit-logs?limit=1000',
    `/file/${d.fileId}`,
  ];
}

export async function answers(
  s: Service,
  paths: string[],
): Promise<Record<string, { status: number; text: string }>> {
  const out: Record<string, { status: number; text: string }> = {};
  for (const path of paths) {
    const r = await s.get(path);
    out[path] = { status: r.status, text: r.text };
  }
  return out;
}
