import ExcelJS from 'exceljs';
import type { ApiResponse } from '../helpers/test-app.js';
import type { Db } from '../../src/db/create-db.js';
import type { Role } from '../../src/auth/roles.js';
import type { ProjectData } from './fixtures.js';
import { gzipSync } from 'node:zlib';
import { uniqueProjectCode } from '../helpers/codes.js';
import { ARCHIVE_BOUNDARY, archiveBody } from '../helpers/archive-factories.js';
import { keyAndCertificate } from '../helpers/saml-idp.js';
import { hashPassword } from '../../src/lib/crypto.js';
import { setEmail, setPasswordHash } from '../../src/modules/users/users.service.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { failureSignature } from '../../src/lib/failure-signature.js';

/**
 * The expectation table of the security suite: one row per route of the application. The authorisation
 * matrix (authorization.test.ts) reads the routes from the built app and FAILS for a route without a row
 * here (and for a row without a route), so every new endpoint has to say who may call it.
 *
 * A row says:
 * - `auth`: the minimum role (D3), or `public` for routes outside authentication;
 * - `project`: the route works inside one project: non-admins must be members (D3); `write` routes
 *   answer 403 on an archived project (docs/api-decisions.md#archived-projects);
 * - `restricted`: SIEM-LOG-ONLY keys may call it (D5: only the audit log);
 * - `prepare`: builds a request that succeeds for an allowed caller (creating fresh resources when the
 *   call consumes them), and `ok` the status it answers; `archived` overrides what an owner gets when
 *   the target project is archived.
 */

export type Client = (
  method: string,
  path: string,
  options?: {
    body?: unknown;
    query?: Record<string, string | number>;
    headers?: Record<string, string>;
    /** Another key than the owner's. */
    key?: string;
  },
) => Promise<ApiResponse>;

export interface MatrixUser {
  id: number;
  key: string;
  email: string;
  password: string;
}

/** What a row's `prepare` may use. `p` is the path prefix of the shared project. */
export interface MatrixCtx {
  db: Db;
  tenantId: string;
  fx: ProjectData;
  p: string;
  /** The caller of this case (the owner for anonymous and restricted-key cases). */
  actor: MatrixUser;
  owner: MatrixUser;
  /** Requests as the owner of the tenant, for making what a case consumes. */
  asOwner: Client;
  unique: () => string;
  /** A project the member users belong to (like `fx`, but empty). */
  freshProject: () => Promise<{ id: string; code: string; title: string }>;
  /** A fresh user with an API key and a password. */
  newUser: (role: Exclude<Role, 'owner'>) => Promise<MatrixUser>;
}

export interface Prepared {
  /** Relative to /api/public/v0 unless it starts with /api/. */
  path: string;
  body?: unknown;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  /** The project the request targets when it is not the shared one (the archived case archives it). */
  project?: string;
  /** Undoes what the call did when later cases depend on it. */
  cleanup?: () => Promise<unknown>;
}

export interface RouteRow {
  auth: Role | 'public';
  project?: 'read' | 'write';
  restricted?: boolean;
  prepare: (c: MatrixCtx) => Prepared | Promise<Prepared>;
  ok: number;
  /** What the owner gets when the target project is archived (default: 403 for writes, `ok` for reads). */
  archived?: number;
  /** What the owner gets through a session cookie, when it differs from an API key's `ok`. */
  session?: number;
  /** A successful call ends the owner's session (the harness signs in again). */
  endsSession?: boolean;
}

/** A fresh run of the shared project whose one case failed with a known message, and that failure's signature. */
async function triageRun(c: MatrixCtx): Promise<{ runId: number; signature: string }> {
  const comment = '<p>Error: matrix checkout timed out</p>';
  const runId = await idOf(
    c.asOwner('POST', `${c.p}/run`, {
      body: {
        title: `Triage ${c.unique()}`,
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [c.fx.tcaseId] }],
      },
    }),
  );
  const res = await c.asOwner('POST', `${c.p}/run/${runId}/tcase/${c.fx.tcaseId}/result`, {
    body: { status: 'failed', comment },
  });
  if (res.status !== 201) throw new Error(`triage result: ${res.status} ${JSON.stringify(res.body)}`);
  return { runId, signature: failureSignature(comment).signature };
}

/**
 * Routes outside `/api/` that need no authentication: health checks and the API documentation (the device
 * sign-in's verification page is a page of the web application; its API routes are rows here). `/metrics` takes no
 * session or API key either: its own bearer token guards it (test/operations.test.ts).
 */
export const UNAUTHENTICATED_PREFIXES = ['/healthz', '/readyz', '/docs', '/metrics'];

/**
 * Routes with an authentication of their own, outside this matrix: SCIM takes only a provisioning key (its rules
 * and refusals are tested in src/modules/scim, and the fuzz suite sends it hostile input with that key).
 */
export const OWN_AUTHENTICATION_PREFIXES = [
  '/scim/v2/',
  // OAuth 2.1 for MCP clients: discovery is public by the protocol; registration, authorisation, approval and
  // revocation answer by the OAuth rules (a session decides, a key gets 403), tested in oauth-code.test.ts.
  '/.well-known/oauth-',
  '/api/oauth/register',
  '/api/oauth/authorize',
  '/api/oauth/revoke',
];

/**
 * A saved view the caller owns, so it may change it; the owner's when the caller may not make one (a
 * non-member, a restricted key: refused before the view is looked at).
 */
const ownView = async (c: MatrixCtx, page: 'runs' | 'repository') => {
  const body = { name: `V ${c.unique()}`, page, filters: {} };
  const own = await c.asOwner('POST', `${c.p}/view`, { body, key: c.actor.key });
  return own.status === 201 ? own.body.id : idOf(c.asOwner('POST', `${c.p}/view`, { body }));
};

const idOf = async (res: Promise<ApiResponse>): Promise<any> => {
  const r = await res;
  if (r.status >= 300) throw new Error(`fixture request failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
};

// A fresh plan for the routes that change one (a closed plan takes nothing more).
const planBody = (c: MatrixCtx) => ({
  title: `Plan ${c.unique()}`,
  runs: [{ title: 'r', queryPlans: [{ tcaseIds: [c.fx.tcaseId] }] }],
});

// localhost resolves from /etc/hosts and the SSRF guard refuses it: a ping records a failed delivery and no
// request leaves the machine.
const webhookBody = (c: MatrixCtx) => ({
  name: `W ${c.unique()}`,
  endpoint: 'https://localhost:9/hook',
  eventTypes: ['run_created'],
});
const newWebhook = (c: MatrixCtx) => idOf(c.asOwner('POST', '/webhook', { body: webhookBody(c) }));
// An OpenID Connect provider, off (its start and callback answer with the sign-in page's words).
const newOidcProvider = (c: MatrixCtx) =>
  idOf(
    c.asOwner('POST', '/oidc-provider', {
      body: {
        name: `SSO ${c.unique()}`,
        issuer: 'https://sso.example.com/realms/qa',
        clientId: 'casebook',
        clientSecret: 'matrix-client-secret',
      },
    }),
  );
// A SAML provider, off (its start and assertion consumer answer with the sign-in page's words); one certificate for all.
let samlCertificate: string | undefined;
const samlBody = (c: MatrixCtx) => ({
  name: `SAML ${c.unique()}`,
  idpEntityId: 'https://idp.example.com/saml',
  ssoUrl: 'https://idp.example.com/saml/sso',
  idpCertificate: (samlCertificate ??= keyAndCertificate().cert),
});
const newSamlProvider = (c: MatrixCtx) => idOf(c.asOwner('POST', '/saml-provider', { body: samlBody(c) }));
const pingedWebhook = async (c: MatrixCtx) => {
  const webhookId = await newWebhook(c);
  const deliveryId = await idOf(c.asOwner('POST', `/webhook/${webhookId}/ping`));
  return { webhookId, deliveryId };
};

const multipart = (field: string, name: string, content: string) => {
  const boundary = 'matrix-boundary-7d1f';
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body:
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n` +
      `Content-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  };
};

/** An import request: the format field, then a one-case QA Sphere CSV file. */
const importRequest = (c: MatrixCtx) => {
  const boundary = 'matrix-import-boundary';
  return {
    path: `${c.p}/import`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body:
      `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\nqasphere-csv\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cases.csv"\r\n` +
      `Content-Type: text/csv\r\n\r\nFolder,Name\r\nImported,Case ${c.unique()}\r\n--${boundary}--\r\n`,
  };
};

/** An Excel preview request: a one-sheet workbook of a header and one row, written once with exceljs. */
const previewWorkbook = await (async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Cases').addRows([
    ['Title', 'Folder'],
    ['Pay by card', 'Checkout'],
  ]);
  return Buffer.from(await wb.xlsx.writeBuffer());
})();
const previewRequest = (c: MatrixCtx) => {
  const boundary = 'matrix-preview-boundary';
  return {
    path: `${c.p}/import/preview`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cases.xlsx"\r\n` +
          'Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\r\n\r\n',
      ),
      previewWorkbook,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  };
};

/** A project import: the smallest Casebook archive (header, project, end) under a code no call used. */
const projectImportRequest = () => {
  const code = uniqueProjectCode('A');
  const at = '2026-01-01T00:00:00.000Z';
  const archive = gzipSync(
    [
      { t: 'archive', format: 'casebook-archive', formatVersion: 1, exportedAt: at, project: code },
      {
        t: 'project',
        code,
        title: `Archived ${code}`,
        overviewTitle: '',
        overviewDescription: '',
        links: [],
        nextTcaseSeq: 1,
        createdBy: null,
        createdAt: at,
        updatedAt: at,
        archivedAt: null,
      },
      { t: 'end', counts: { project: 1 } },
    ]
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(''),
  );
  return {
    path: '/import/project',
    headers: { 'content-type': `multipart/form-data; boundary=${ARCHIVE_BOUNDARY}` },
    body: archiveBody(archive),
  };
};

const newTcase = (c: MatrixCtx, p = c.p) =>
  idOf(
    c.asOwner('POST', `${p}/tcase`, {
      body: { title: `T ${c.unique()}`, type: 'standalone', folderId: c.fx.folderId, priority: 'low' },
    }),
  );

/** A fresh empty root folder of the shared project (made by the owner), for calls that change or delete one. */
const newFolder = async (c: MatrixCtx): Promise<number> => {
  const res = await c.asOwner('POST', `${c.p}/tcase/folder/bulk`, {
    body: { folders: [{ path: [`Matrix folder ${c.unique()}`] }] },
  });
  return res.body.ids[0][0];
};

const newRun = (c: MatrixCtx, tcaseIds = [c.fx.tcaseId]) =>
  idOf(
    c.asOwner('POST', `${c.p}/run`, {
      body: { title: `R ${c.unique()}`, type: 'static_struct', queryPlans: [{ tcaseIds }] },
    }),
  );

const PASSWORD_NEW = 'another-password-123';

/** A fresh device sign-in code (the CLI's first request). */
const newUserCode = async (c: MatrixCtx): Promise<string> => {
  const r = await c.asOwner('POST', '/api/oauth/device/code', { body: { client_id: 'qas-cli' } });
  if (r.status !== 200) throw new Error(`fixture request failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.user_code;
};

export const ROUTE_TABLE: Record<string, RouteRow> = {
  // ---- MCP (JSON-RPC; each tool checks its route's role: src/modules/mcp/mcp.test.ts) ----
  'POST /api/mcp': {
    auth: 'viewer',
    prepare: () => ({
      path: '/api/mcp',
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    }),
    ok: 200,
  },
  // Stateless: no stream to open and no session to end.
  'GET /api/mcp': { auth: 'viewer', prepare: () => ({ path: '/api/mcp' }), ok: 405 },
  'DELETE /api/mcp': { auth: 'viewer', prepare: () => ({ path: '/api/mcp' }), ok: 405 },
  // ---- web application (private API) ----
  // Sign-in through an OpenID Connect provider: public; a provider that is off, or a callback without this
  // browser's state, sends the browser to the sign-in page (302) — the flow itself is tested in src/modules/oidc.
  'GET /api/auth/oidc/providers': {
    auth: 'public',
    prepare: () => ({ path: '/api/auth/oidc/providers' }),
    ok: 200,
  },
  'GET /api/auth/oidc/:providerId/start': {
    auth: 'public',
    prepare: async (c) => ({ path: `/api/auth/oidc/${await newOidcProvider(c)}/start` }),
    ok: 302,
  },
  'GET /api/auth/oidc/:providerId/callback': {
    auth: 'public',
    prepare: async (c) => ({
      path: `/api/auth/oidc/${await newOidcProvider(c)}/callback`,
      query: { code: 'c', state: 's' },
    }),
    ok: 302,
  },
  // Test sign-in: an admin's, for a provider on or off; the browser goes on to the provider, or to the test's
  // outcome when discovery fails (302 either way) — tested in src/modules/oidc/oidc-test-sign-in.test.ts.
  'GET /api/auth/oidc/:providerId/test': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/api/auth/oidc/${await newOidcProvider(c)}/test` }),
    ok: 302,
  },
  // Sign-in through a SAML provider: public; one that is off sends the browser to the sign-in page (302 from the
  // start, 303 from the assertion consumer) — the flow and its attacks are tested in src/modules/saml.
  'GET /api/auth/saml/providers': {
    auth: 'public',
    prepare: () => ({ path: '/api/auth/saml/providers' }),
    ok: 200,
  },
  'GET /api/auth/saml/:providerId/metadata': {
    auth: 'public',
    prepare: async (c) => ({ path: `/api/auth/saml/${await newSamlProvider(c)}/metadata` }),
    ok: 200,
  },
  'GET /api/auth/saml/:providerId/start': {
    auth: 'public',
    prepare: async (c) => ({ path: `/api/auth/saml/${await newSamlProvider(c)}/start` }),
    ok: 302,
  },
  'POST /api/auth/saml/:providerId/acs': {
    auth: 'public',
    prepare: async (c) => ({
      path: `/api/auth/saml/${await newSamlProvider(c)}/acs`,
      body: { SAMLResponse: 'PHNhbWxwOlJlc3BvbnNlLz4=' },
    }),
    ok: 303,
  },
  'POST /api/auth/login': {
    auth: 'public',
    prepare: async (c) => {
      const u = await c.newUser('viewer');
      return { path: '/api/auth/login', body: { email: u.email, password: u.password } };
    },
    ok: 200,
  },
  // A key is not a session: signing out answers 400 to key callers and ends a cookie's session.
  'POST /api/auth/logout': {
    auth: 'viewer',
    prepare: () => ({ path: '/api/auth/logout' }),
    ok: 400,
    session: 200,
    endsSession: true,
  },
  'POST /api/auth/invitation': {
    auth: 'public',
    prepare: () => ({ path: '/api/auth/invitation', body: { token: 'no-such-invitation' } }),
    ok: 404,
  },
  'POST /api/auth/register': {
    auth: 'public',
    prepare: () => ({
      path: '/api/auth/register',
      body: { token: 'no-such-invitation', name: 'X', password: 'password-123' },
    }),
    ok: 400,
  },
  'POST /api/auth/password-reset/request': {
    auth: 'public',
    prepare: () => ({ path: '/api/auth/password-reset/request', body: { email: 'nobody@example.com' } }),
    ok: 200,
  },
  'POST /api/auth/password-reset': {
    auth: 'public',
    prepare: () => ({
      path: '/api/auth/password-reset',
      body: { token: 'no-such-reset', password: 'password-123' },
    }),
    ok: 400,
  },
  'DELETE /api/project/:project': {
    auth: 'admin',
    project: 'read',
    prepare: async (c) => {
      const p = await c.freshProject();
      return { path: `/api/project/${p.code}`, project: p.code };
    },
    ok: 200,
    archived: 200,
  },

  // ---- device sign-in (`qasphere auth login`, RFC 8628) ----
  'GET /api/shared-report/:token': {
    auth: 'public',
    prepare: async (c) => {
      const made = await c.asOwner('POST', `${c.p}/report/share`, {
        body: { report: 'run', params: { runId: c.fx.runId } },
      });
      return { path: `/api/shared-report/${made.body.token}` };
    },
    ok: 200,
  },
  'GET /api/check-tenant': {
    auth: 'public',
    prepare: () => ({ path: '/api/check-tenant', query: { name: 'Default' } }),
    ok: 200,
  },
  'POST /api/oauth/device/code': {
    auth: 'public',
    prepare: () => ({ path: '/api/oauth/device/code', body: { client_id: 'qas-cli' } }),
    ok: 200,
  },
  'POST /api/oauth/token': {
    auth: 'public',
    prepare: () => ({
      path: '/api/oauth/token',
      body: { grant_type: 'refresh_token', refresh_token: 'nope' },
    }),
    ok: 400,
  },
  'GET /api/oauth/device': {
    auth: 'viewer',
    prepare: async (c) => ({ path: '/api/oauth/device', query: { user_code: await newUserCode(c) } }),
    ok: 200,
  },
  // Only a person signed in on the page approves or denies: a key (even the owner's) gets 403.
  'POST /api/oauth/device/approve': {
    auth: 'viewer',
    prepare: async (c) => ({ path: '/api/oauth/device/approve', body: { user_code: await newUserCode(c) } }),
    ok: 403,
    session: 200,
  },
  'POST /api/oauth/device/deny': {
    auth: 'viewer',
    prepare: async (c) => ({ path: '/api/oauth/device/deny', body: { user_code: await newUserCode(c) } }),
    ok: 403,
    session: 200,
  },

  // The rule for which OAuth apps people may approve, and the apps registered (admin).
  'GET /api/oauth/clients': { auth: 'admin', prepare: () => ({ path: '/api/oauth/clients' }), ok: 200 },
  'PUT /api/oauth/client-policy': {
    auth: 'admin',
    prepare: () => ({ path: '/api/oauth/client-policy', body: { allowedOrigins: null } }),
    ok: 200,
  },

  'GET /api/public/v0/openapi.json': { auth: 'public', prepare: () => ({ path: '/openapi.json' }), ok: 200 },

  // ---- projects ----
  'GET /api/public/v0/project': { auth: 'viewer', prepare: () => ({ path: '/project' }), ok: 200 },
  'POST /api/public/v0/project': {
    auth: 'admin',
    prepare: (c) => ({
      path: '/project',
      body: { code: uniqueProjectCode('N'), title: `New ${c.unique()}` },
    }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: c.p }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project': {
    auth: 'admin',
    project: 'read',
    prepare: async (c) => {
      const p = await c.freshProject();
      return { path: `/project/${p.code}`, project: p.code };
    },
    ok: 200,
    archived: 200,
  },
  // Editing is project administration (D3: admin); an archived project is read-only.
  'PATCH /api/public/v0/project/:project': {
    auth: 'admin',
    project: 'write',
    prepare: async (c) => {
      const p = await c.freshProject();
      return { path: `/project/${p.code}`, body: { title: `Edited ${c.unique()}` }, project: p.code };
    },
    ok: 200,
  },
  'POST /api/public/v0/project/:project/archive': {
    auth: 'admin',
    project: 'read',
    prepare: async (c) => {
      const p = await c.freshProject();
      return { path: `/project/${p.code}/archive`, project: p.code };
    },
    ok: 200,
    archived: 409,
  },
  'POST /api/public/v0/project/:project/unarchive': {
    auth: 'admin',
    project: 'read',
    prepare: async (c) => {
      const p = await c.freshProject();
      await c.asOwner('POST', `/project/${p.code}/archive`);
      return { path: `/project/${p.code}/unarchive`, project: p.code };
    },
    ok: 200,
    archived: 200,
  },
  'GET /api/public/v0/project/:project/member': {
    auth: 'admin',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/member` }),
    ok: 200,
  },
  // Counts only: archived projects are counted too (the archive and delete dialogs).
  'GET /api/public/v0/project/:project/counts': {
    auth: 'admin',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/counts` }),
    ok: 200,
  },
  // Access can be managed on an archived project (it is not project content).
  'POST /api/public/v0/project/:project/member': {
    auth: 'admin',
    project: 'read',
    prepare: async (c) => {
      const u = await c.newUser('viewer');
      return { path: `${c.p}/member`, body: { userId: u.id } };
    },
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/member/:userId': {
    auth: 'admin',
    project: 'read',
    prepare: async (c) => {
      const u = await c.newUser('viewer');
      await c.asOwner('POST', `${c.p}/member`, { body: { userId: u.id } });
      return { path: `${c.p}/member/${u.id}` };
    },
    ok: 200,
  },

  // ---- folders, test cases ----
  'GET /api/public/v0/project/:project/tcase/folders': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tcase/folders` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/tcase/folder/bulk': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/tcase/folder/bulk`,
      body: { folders: [{ path: ['Matrix', c.unique()] }] },
    }),
    ok: 200,
  },
  'PATCH /api/public/v0/project/:project/tcase/folder/:folderId': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({
      path: `${c.p}/tcase/folder/${await newFolder(c)}`,
      body: { title: `Renamed ${c.unique()}` },
    }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/tcase/folder/:folderId': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({ path: `${c.p}/tcase/folder/${await newFolder(c)}` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/tcase/bulk/move': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({
      path: `${c.p}/tcase/bulk/move`,
      body: { tcaseIds: [await newTcase(c)], folderId: await newFolder(c) },
    }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/tcase/bulk/tags': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({
      path: `${c.p}/tcase/bulk/tags`,
      body: { tcaseIds: [await newTcase(c)], addTags: ['matrix'] },
    }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/tcase/bulk/delete': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({ path: `${c.p}/tcase/bulk/delete`, body: { tcaseIds: [await newTcase(c)] } }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/tcase': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tcase` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/tcase': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/tcase`,
      body: { title: `T ${c.unique()}`, type: 'standalone', folderId: c.fx.folderId, priority: 'low' },
    }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/tcase/count': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tcase/count` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/tcase/seq': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({
      path: `${c.p}/tcase/seq`,
      body: { seqIds: [`${c.fx.project.code}-${c.fx.tcaseSeq}`] },
    }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/tcase/bulk': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/tcase/bulk`,
      body: { folderPath: ['cli-import'], tcases: [{ title: `B ${c.unique()}` }] },
    }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/tcase/:id': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tcase/${c.fx.tcaseId}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/project/:project/tcase/:id': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({ path: `${c.p}/tcase/${await newTcase(c)}`, body: { priority: 'high' } }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/tcase/:id': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({ path: `${c.p}/tcase/${await newTcase(c)}` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/tcase/:id/version/:version': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tcase/${c.fx.tcaseId}/version/1` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/tcase/:id/versions': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tcase/${c.fx.tcaseId}/versions` }),
    ok: 200,
  },

  // ---- repository resources ----
  'GET /api/public/v0/project/:project/tag': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tag` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/requirement': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/requirement` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/shared-step': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-step` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/shared-step': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/shared-step`,
      body: { title: `S ${c.unique()}`, subSteps: [{ description: 'd' }] },
    }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/shared-step/:id': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-step/${c.fx.sharedStepId}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/project/:project/shared-step/:id': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({ path: `${c.p}/shared-step/${c.fx.sharedStepId}`, body: { title: `S ${c.unique()}` } }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/shared-step/:id': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', `${c.p}/shared-step`, {
          body: { title: `S ${c.unique()}`, subSteps: [{ description: 'd' }] },
        }),
      );
      return { path: `${c.p}/shared-step/${id}` };
    },
    ok: 200,
  },
  'GET /api/public/v0/project/:project/shared-step/:id/tcase': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-step/${c.fx.sharedStepId}/tcase` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/shared-step/:id/version/:version': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-step/${c.fx.sharedStepId}/version/1` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/shared-precondition': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-precondition` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/shared-precondition': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/shared-precondition`,
      body: { title: `P ${c.unique()}`, text: '<p>x</p>' },
    }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/shared-precondition/:id': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-precondition/${c.fx.sharedPreconditionId}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/project/:project/shared-precondition/:id': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/shared-precondition/${c.fx.sharedPreconditionId}`,
      body: { title: `P ${c.unique()}` },
    }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/shared-precondition/:id': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', `${c.p}/shared-precondition`, { body: { title: `P ${c.unique()}`, text: 'x' } }),
      );
      return { path: `${c.p}/shared-precondition/${id}` };
    },
    ok: 200,
  },
  'GET /api/public/v0/project/:project/shared-precondition/:id/tcase': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-precondition/${c.fx.sharedPreconditionId}/tcase` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/shared-precondition/:id/version/:version': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/shared-precondition/${c.fx.sharedPreconditionId}/version/1` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/custom-field': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/custom-field` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/milestone': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/milestone` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/milestone': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({ path: `${c.p}/milestone`, body: { title: `M ${c.unique()}` } }),
    ok: 201,
  },
  'POST /api/public/v0/project/:project/milestone/:milestone/archive': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(c.asOwner('POST', `${c.p}/milestone`, { body: { title: `M ${c.unique()}` } }));
      return { path: `${c.p}/milestone/${id}/archive` };
    },
    ok: 200,
  },
  'POST /api/public/v0/project/:project/milestone/:milestone/unarchive': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(c.asOwner('POST', `${c.p}/milestone`, { body: { title: `M ${c.unique()}` } }));
      await c.asOwner('POST', `${c.p}/milestone/${id}/archive`);
      return { path: `${c.p}/milestone/${id}/unarchive` };
    },
    ok: 200,
  },
  'GET /api/public/v0/project/:project/milestone/:milestone': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/milestone/${c.fx.milestoneId}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/project/:project/milestone/:milestone': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(c.asOwner('POST', `${c.p}/milestone`, { body: { title: `M ${c.unique()}` } }));
      return { path: `${c.p}/milestone/${id}`, body: { description: 'edited', due: '2026-12-31' } };
    },
    ok: 200,
  },
  'GET /api/public/v0/project/:project/configuration': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/configuration` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/configuration': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({ path: `${c.p}/configuration`, body: { title: `C ${c.unique()}` } }),
    ok: 201,
  },
  'PATCH /api/public/v0/project/:project/configuration/:configuration': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', `${c.p}/configuration`, { body: { title: `C ${c.unique()}` } }),
      );
      return { path: `${c.p}/configuration/${id}`, body: { title: `C ${c.unique()}` } };
    },
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/configuration/:configuration': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', `${c.p}/configuration`, { body: { title: `C ${c.unique()}` } }),
      );
      return { path: `${c.p}/configuration/${id}` };
    },
    ok: 200,
  },
  'GET /api/public/v0/project/:project/configuration/:configuration/usage': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/configuration/${c.fx.configurationId}/usage` }),
    ok: 200,
  },

  // ---- runs, results, logs, plans ----
  'GET /api/public/v0/project/:project/run': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/run`,
      body: { title: `R ${c.unique()}`, type: 'static', queryPlans: [{ tcaseIds: [c.fx.tcaseId] }] },
    }),
    ok: 201,
  },
  'POST /api/public/v0/project/:project/run/preview': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/preview`, body: { type: 'static', queryPlans: [{}] } }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/clone': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({ path: `${c.p}/run/clone`, body: { runId: c.fx.runId, title: `Clone ${c.unique()}` } }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/run/:run': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/project/:project/run/:run': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({
      path: `${c.p}/run/${await newRun(c)}`,
      body: { title: `Renamed ${c.unique()}` },
    }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/close': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({ path: `${c.p}/run/${await newRun(c)}/close` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/run/:run/changes': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/changes`, query: { since: 0 } }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/run/:run/tcase': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/tcase` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/run/:run/tcase/:tcase': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/tcase/${c.fx.tcaseId}` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/tcase/add': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({
      path: `${c.p}/run/${await newRun(c)}/tcase/add`,
      body: { tcaseIds: [await newTcase(c)] },
    }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/tcase/remove': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const extra = await newTcase(c);
      return {
        path: `${c.p}/run/${await newRun(c, [c.fx.tcaseId, extra])}/tcase/remove`,
        body: { tcaseIds: [extra] },
      };
    },
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/tcase/assign': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => ({
      path: `${c.p}/run/${await newRun(c)}/tcase/assign`,
      body: { tcaseIds: [c.fx.tcaseId], assigneeId: c.owner.id },
    }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/assignable': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/assignable` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/run/:run/assignable': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/assignable` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/tcase/:tcase/result': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/run/${c.fx.runId}/tcase/${c.fx.tcaseId}/result`,
      body: { status: 'passed', comment: '' },
    }),
    ok: 201,
  },
  'POST /api/public/v0/project/:project/run/:run/result/batch': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/run/${c.fx.runId}/result/batch`,
      body: { items: [{ tcaseId: c.fx.tcaseId, status: 'blocked', comment: '' }] },
    }),
    ok: 201,
  },
  'POST /api/public/v0/project/:project/run/:run/junit': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/run/${c.fx.runId}/junit`,
      body: `<testsuite><testcase name="${c.fx.project.code}-${String(c.fx.tcaseSeq).padStart(3, '0')} matrix"/></testsuite>`,
      headers: { 'content-type': 'application/xml' },
    }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/tcase/:id/results': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/tcase/${c.fx.tcaseId}/results` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/run/:run/log': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/log` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/log': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/log`, body: { comment: 'pipeline step failed' } }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/plan': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/plan` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/plan': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/plan`,
      body: {
        title: `Plan ${c.unique()}`,
        runs: [{ title: 'r', queryPlans: [{ tcaseIds: [c.fx.tcaseId] }] }],
      },
    }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/plan/:plan': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/plan/${c.fx.planId}` }),
    ok: 200,
  },

  'PATCH /api/public/v0/project/:project/plan/:plan': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(c.asOwner('POST', `${c.p}/plan`, { body: planBody(c) }));
      return { path: `${c.p}/plan/${id}`, body: { title: `Renamed ${c.unique()}` } };
    },
    ok: 200,
  },
  'POST /api/public/v0/project/:project/plan/:plan/run': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(c.asOwner('POST', `${c.p}/plan`, { body: planBody(c) }));
      return {
        path: `${c.p}/plan/${id}/run`,
        body: { runs: [{ title: 'added', queryPlans: [{ tcaseIds: [c.fx.tcaseId] }] }] },
      };
    },
    ok: 201,
  },
  'POST /api/public/v0/project/:project/plan/:plan/close': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(c.asOwner('POST', `${c.p}/plan`, { body: planBody(c) }));
      return { path: `${c.p}/plan/${id}/close` };
    },
    ok: 200,
  },

  // ---- integrations (D3: admin; the links of a project are readable by its members) ----
  'GET /api/public/v0/integration': { auth: 'admin', prepare: () => ({ path: '/integration' }), ok: 200 },
  'POST /api/public/v0/integration': {
    auth: 'admin',
    prepare: (c) => ({
      path: '/integration',
      body: { name: `I ${c.unique()}`, type: 'tracker_c', config: { organizationKey: 'K' }, token: 'secret' },
    }),
    ok: 201,
  },
  'GET /api/public/v0/integration/:integrationId': {
    auth: 'admin',
    prepare: (c) => ({ path: `/integration/${c.fx.integrationId}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/integration/:integrationId': {
    auth: 'admin',
    prepare: (c) => ({
      path: `/integration/${c.fx.integrationId}`,
      body: { config: { organizationKey: `K${c.unique()}` } },
    }),
    ok: 200,
  },
  'DELETE /api/public/v0/integration/:integrationId': {
    auth: 'admin',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', '/integration', {
          body: { name: `I ${c.unique()}`, type: 'tracker_c', config: { organizationKey: 'K' } },
        }),
      );
      return { path: `/integration/${id}` };
    },
    ok: 200,
  },
  'POST /api/public/v0/integration/:integrationId/test': {
    auth: 'admin',
    prepare: async (c) => {
      // localhost is refused by the SSRF guard: the check answers in words and no request leaves the machine.
      const id = await idOf(
        c.asOwner('POST', '/integration', {
          body: {
            name: `T ${c.unique()}`,
            type: 'tracker_a',
            config: { account: 'a', apiUrl: 'https://localhost:9' },
            token: 'secret',
          },
        }),
      );
      return { path: `/integration/${id}/test` };
    },
    ok: 200,
  },
  'POST /api/public/v0/integration/test': {
    auth: 'admin',
    // No credential typed: the answer says so in words and no request leaves the machine.
    prepare: () => ({
      path: '/integration/test',
      body: { type: 'tracker_c', config: { organizationKey: 'K', apiUrl: 'https://localhost:9' } },
    }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/integration': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/integration` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/integration': {
    auth: 'admin',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/integration`,
      body: { integrationId: c.fx.integrationId, config: { teamId: 't1', teamName: 'Core' } },
    }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/integration/:integrationId': {
    auth: 'admin',
    project: 'write',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', '/integration', {
          body: { name: `A ${c.unique()}`, type: 'tracker_a', config: { account: 'a' } },
        }),
      );
      const linked = await c.asOwner('POST', `${c.p}/integration`, {
        body: { integrationId: id, config: { repo: 'r' } },
      });
      if (linked.status !== 200) throw new Error(`link failed: ${JSON.stringify(linked.body)}`);
      return { path: `${c.p}/integration/${id}` };
    },
    ok: 200,
  },

  // ---- OpenID Connect providers (admin, tenant-wide, like webhooks) ----
  'GET /api/public/v0/oidc-provider': { auth: 'admin', prepare: () => ({ path: '/oidc-provider' }), ok: 200 },
  'POST /api/public/v0/oidc-provider': {
    auth: 'admin',
    prepare: (c) => ({
      path: '/oidc-provider',
      body: {
        name: `SSO ${c.unique()}`,
        issuer: 'https://sso.example.com',
        clientId: 'casebook',
        clientSecret: 'matrix-client-secret',
      },
    }),
    ok: 201,
  },
  'GET /api/public/v0/oidc-provider/:providerId': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/oidc-provider/${await newOidcProvider(c)}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/oidc-provider/:providerId': {
    auth: 'admin',
    prepare: async (c) => ({
      path: `/oidc-provider/${await newOidcProvider(c)}`,
      body: { justInTime: true },
    }),
    ok: 200,
  },
  'DELETE /api/public/v0/oidc-provider/:providerId': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/oidc-provider/${await newOidcProvider(c)}` }),
    ok: 200,
  },
  // Who signs in with a password: admins read it, only the owner changes it.
  'GET /api/public/v0/sign-in-settings': {
    auth: 'admin',
    prepare: () => ({ path: '/sign-in-settings' }),
    ok: 200,
  },
  'PUT /api/public/v0/sign-in-settings': {
    auth: 'owner',
    prepare: () => ({ path: '/sign-in-settings', body: { passwordSignIn: 'everyone' } }),
    ok: 200,
  },
  // ---- SAML providers (admin, tenant-wide, like OIDC's) ----
  'GET /api/public/v0/saml-provider': { auth: 'admin', prepare: () => ({ path: '/saml-provider' }), ok: 200 },
  'POST /api/public/v0/saml-provider': {
    auth: 'admin',
    prepare: (c) => ({ path: '/saml-provider', body: samlBody(c) }),
    ok: 201,
  },
  'GET /api/public/v0/saml-provider/:providerId': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/saml-provider/${await newSamlProvider(c)}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/saml-provider/:providerId': {
    auth: 'admin',
    prepare: async (c) => ({
      path: `/saml-provider/${await newSamlProvider(c)}`,
      body: { justInTime: true },
    }),
    ok: 200,
  },
  'DELETE /api/public/v0/saml-provider/:providerId': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/saml-provider/${await newSamlProvider(c)}` }),
    ok: 200,
  },
  // ---- webhooks (D3: admin, tenant-wide) ----
  'GET /api/public/v0/webhook': { auth: 'admin', prepare: () => ({ path: '/webhook' }), ok: 200 },
  'POST /api/public/v0/webhook': {
    auth: 'admin',
    prepare: (c) => ({ path: '/webhook', body: webhookBody(c) }),
    ok: 201,
  },
  'POST /api/public/v0/webhook/payload-preview': {
    auth: 'admin',
    prepare: () => ({ path: '/webhook/payload-preview', body: { payload: '{"e": "${event}"}' } }),
    ok: 200,
  },
  'GET /api/public/v0/webhook/:webhookId': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/webhook/${await newWebhook(c)}` }),
    ok: 200,
  },
  'PATCH /api/public/v0/webhook/:webhookId': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/webhook/${await newWebhook(c)}`, body: { enabled: false } }),
    ok: 200,
  },
  'DELETE /api/public/v0/webhook/:webhookId': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/webhook/${await newWebhook(c)}` }),
    ok: 200,
  },
  'GET /api/public/v0/webhook/:webhookId/delivery': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/webhook/${await newWebhook(c)}/delivery` }),
    ok: 200,
  },
  'GET /api/public/v0/webhook/:webhookId/delivery/count': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/webhook/${await newWebhook(c)}/delivery/count` }),
    ok: 200,
  },
  'GET /api/public/v0/webhook/:webhookId/delivery/:deliveryId': {
    auth: 'admin',
    prepare: async (c) => {
      const { webhookId, deliveryId } = await pingedWebhook(c);
      return { path: `/webhook/${webhookId}/delivery/${deliveryId}` };
    },
    ok: 200,
  },
  'POST /api/public/v0/webhook/:webhookId/delivery/:deliveryId/redeliver': {
    auth: 'admin',
    prepare: async (c) => {
      const { webhookId, deliveryId } = await pingedWebhook(c);
      return { path: `/webhook/${webhookId}/delivery/${deliveryId}/redeliver` };
    },
    ok: 201,
  },
  'POST /api/public/v0/webhook/:webhookId/ping': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/webhook/${await newWebhook(c)}/ping` }),
    ok: 200,
  },

  // ---- background jobs (D3: admin, tenant-wide) ----
  'GET /api/public/v0/job': { auth: 'admin', prepare: () => ({ path: '/job?status=failed' }), ok: 200 },
  'POST /api/public/v0/job/:jobId/retry': {
    auth: 'admin',
    prepare: async (c) => {
      // A job of the caller's tenant that gave up (no handler runs in these tests).
      const now = new Date().toISOString();
      const row = await c.db
        .insertInto('jobs')
        .values({
          tenant_id: c.tenantId,
          kind: 'webhook.deliver',
          queue_key: null,
          payload: JSON.stringify({ deliveryId: 'none' }),
          status: 'failed',
          max_attempts: 10,
          run_at: now,
          created_at: now,
          locked_by: null,
          locked_until: null,
          last_error: 'HTTP 500',
          finished_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { path: `/job/${row.id}/retry` };
    },
    ok: 200,
  },

  'POST /api/public/v0/job/retry': { auth: 'admin', prepare: () => ({ path: '/job/retry' }), ok: 200 },

  // ---- audit log (D5, D6, D13) ----
  'GET /api/public/v0/audit-logs': {
    auth: 'admin',
    restricted: true,
    prepare: () => ({ path: '/audit-logs' }),
    ok: 200,
  },
  'GET /api/public/v0/audit-logs/actions': {
    auth: 'admin',
    prepare: () => ({ path: '/audit-logs/actions' }),
    ok: 200,
  },
  'GET /api/public/v0/audit-logs/export': {
    auth: 'admin',
    restricted: true,
    prepare: () => ({ path: '/audit-logs/export' }),
    ok: 200,
  },

  // ---- tenant-wide settings ----
  'GET /api/public/v0/settings/preferences/status': {
    auth: 'viewer',
    prepare: () => ({ path: '/settings/preferences/status' }),
    ok: 200,
  },
  'GET /api/public/v0/settings/preferences/status/usage': {
    auth: 'admin',
    prepare: () => ({ path: '/settings/preferences/status/usage' }),
    ok: 200,
  },
  'POST /api/public/v0/settings/preferences/status': {
    auth: 'admin',
    prepare: () => ({
      path: '/settings/preferences/status',
      body: { statuses: [{ id: 'custom1', name: 'Flaky', color: 'blue', isActive: true }] },
    }),
    ok: 200,
  },
  // D3: custom fields are managed by admins; project members read them through the project.
  'GET /api/public/v0/custom-field': { auth: 'admin', prepare: () => ({ path: '/custom-field' }), ok: 200 },
  'POST /api/public/v0/custom-field': {
    auth: 'admin',
    prepare: (c) => ({
      path: '/custom-field',
      body: { type: 'text', systemName: `f${c.unique()}`, name: `F ${c.unique()}` },
    }),
    ok: 201,
  },
  'POST /api/public/v0/custom-field/order': {
    auth: 'admin',
    prepare: async (c) => {
      const list = await c.asOwner('GET', '/custom-field');
      return {
        path: '/custom-field/order',
        body: { ids: list.body.customFields.map((f: { id: string }) => f.id) },
      };
    },
    ok: 200,
  },
  'GET /api/public/v0/custom-field/:id': {
    auth: 'admin',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', '/custom-field', {
          body: { type: 'text', systemName: `g${c.unique()}`, name: `G ${c.unique()}` },
        }),
      );
      return { path: `/custom-field/${id}` };
    },
    ok: 200,
  },
  'GET /api/public/v0/custom-field/:id/usage': {
    auth: 'admin',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', '/custom-field', {
          body: { type: 'text', systemName: `u${c.unique()}`, name: `U ${c.unique()}` },
        }),
      );
      return { path: `/custom-field/${id}/usage` };
    },
    ok: 200,
  },
  'PATCH /api/public/v0/custom-field/:id': {
    auth: 'admin',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', '/custom-field', {
          body: { type: 'text', systemName: `h${c.unique()}`, name: `H ${c.unique()}` },
        }),
      );
      return { path: `/custom-field/${id}`, body: { name: `H2 ${c.unique()}` } };
    },
    ok: 200,
  },
  'DELETE /api/public/v0/custom-field/:id': {
    auth: 'admin',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', '/custom-field', {
          body: { type: 'text', systemName: `k${c.unique()}`, name: `K ${c.unique()}` },
        }),
      );
      return { path: `/custom-field/${id}` };
    },
    ok: 200,
  },

  // ---- files ----
  'POST /api/public/v0/file': {
    auth: 'test-runner',
    prepare: () => ({ path: '/file', ...multipart('file', 'a.txt', 'hello') }),
    ok: 201,
  },
  'POST /api/public/v0/file/batch': {
    auth: 'test-runner',
    prepare: () => ({ path: '/file/batch', ...multipart('files', 'b.txt', 'hello') }),
    ok: 201,
  },
  'GET /api/public/v0/file/:id': {
    auth: 'viewer',
    prepare: async (c) => {
      const m = multipart('file', 'c.txt', 'hello');
      const id = await idOf(c.asOwner('POST', '/file', { body: m.body, headers: m.headers }));
      return { path: `/file/${id}` };
    },
    ok: 200,
  },

  // ---- users and accounts ----
  'GET /api/public/v0/users': { auth: 'viewer', prepare: () => ({ path: '/users' }), ok: 200 },
  'GET /api/public/v0/users/me': { auth: 'viewer', prepare: () => ({ path: '/users/me' }), ok: 200 },
  'GET /api/public/v0/users/me/work': {
    auth: 'test-runner',
    prepare: () => ({ path: '/users/me/work' }),
    ok: 200,
  },
  'GET /api/public/v0/users/access-defaults': {
    auth: 'admin',
    prepare: () => ({ path: '/users/access-defaults' }),
    ok: 200,
  },
  'PUT /api/public/v0/users/access-defaults': {
    auth: 'admin',
    prepare: () => ({ path: '/users/access-defaults', body: { newMembersJoinAllProjects: false } }),
    ok: 200,
  },
  'GET /api/public/v0/users/invitations': {
    auth: 'admin',
    prepare: () => ({ path: '/users/invitations' }),
    ok: 200,
  },
  'POST /api/public/v0/users/invitations': {
    auth: 'admin',
    prepare: (c) => ({
      path: '/users/invitations',
      body: { email: `inv-${c.unique()}@example.com`, role: 'viewer' },
    }),
    ok: 201,
  },
  'DELETE /api/public/v0/users/invitations/:invitationId': {
    auth: 'admin',
    prepare: async (c) => {
      const id = await idOf(
        c.asOwner('POST', '/users/invitations', {
          body: { email: `inv-${c.unique()}@example.com`, role: 'viewer' },
        }),
      );
      return { path: `/users/invitations/${id}` };
    },
    ok: 200,
  },
  'GET /api/public/v0/users/accounts': {
    auth: 'admin',
    prepare: () => ({ path: '/users/accounts' }),
    ok: 200,
  },
  'POST /api/public/v0/users/:userId/password-reset': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/users/${(await c.newUser('viewer')).id}/password-reset` }),
    ok: 201,
  },
  'POST /api/public/v0/users/:userId/role': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/users/${(await c.newUser('viewer')).id}/role`, body: { role: 'user' } }),
    ok: 200,
  },
  'POST /api/public/v0/users/:userId/deactivate': {
    auth: 'admin',
    prepare: async (c) => ({ path: `/users/${(await c.newUser('viewer')).id}/deactivate` }),
    ok: 200,
  },
  'POST /api/public/v0/users/:userId/reactivate': {
    auth: 'admin',
    prepare: async (c) => {
      const u = await c.newUser('viewer');
      await c.asOwner('POST', `/users/${u.id}/deactivate`);
      return { path: `/users/${u.id}/reactivate` };
    },
    ok: 200,
  },
  // The matrix's app has no mail configured: the owner is let through and told so (409); the mail itself is
  // tested in src/modules/accounts/test-mail/.
  'GET /api/public/v0/settings/instance': {
    auth: 'owner',
    prepare: () => ({ path: '/settings/instance' }),
    ok: 200,
  },
  'POST /api/public/v0/settings/mail/test': {
    auth: 'owner',
    prepare: () => ({ path: '/settings/mail/test' }),
    ok: 409,
  },
  'POST /api/public/v0/users/transfer-ownership': {
    auth: 'owner',
    prepare: async (c) => {
      const heir = await c.newUser('admin');
      return {
        path: '/users/transfer-ownership',
        body: { userId: heir.id },
        // Hand it back so that later cases still have their owner.
        cleanup: async () => {
          const back = await c.asOwner('POST', '/users/transfer-ownership', {
            body: { userId: c.owner.id },
            key: heir.key,
          });
          if (back.status !== 200) throw new Error(`ownership not returned: ${JSON.stringify(back.body)}`);
        },
      };
    },
    ok: 200,
  },
  // Changes to how an account signs in take the session cookie: a key (even the owner's) gets 403
  // (docs/api-decisions.md#sign-in-changes-need-a-session). A change through the session keeps that session.
  'POST /api/public/v0/users/me/password': {
    auth: 'viewer',
    prepare: (c) => ({
      path: '/users/me/password',
      body: { currentPassword: c.actor.password, newPassword: PASSWORD_NEW },
      cleanup: async () =>
        setPasswordHash(c.db, c.tenantId, c.actor.id, await hashPassword(c.actor.password)),
    }),
    ok: 403,
    session: 200,
  },
  'PATCH /api/public/v0/users/me': {
    auth: 'viewer',
    prepare: (c) => ({ path: '/users/me', body: { name: `Renamed ${c.unique()}` } }),
    ok: 200,
  },
  'POST /api/public/v0/users/me/email': {
    auth: 'viewer',
    prepare: (c) => ({
      path: '/users/me/email',
      body: { email: `moved-${c.unique()}@matrix.example.com`, password: c.actor.password },
      cleanup: () => setEmail(c.db, c.tenantId, c.actor.id, c.actor.email),
    }),
    ok: 403,
    session: 200,
  },
  'GET /api/public/v0/users/me/2fa': { auth: 'viewer', prepare: () => ({ path: '/users/me/2fa' }), ok: 200 },
  'POST /api/public/v0/users/me/2fa/setup': {
    auth: 'viewer',
    prepare: (c) => ({ path: '/users/me/2fa/setup', body: { password: c.actor.password } }),
    ok: 403,
    session: 200,
  },
  // Without a pending setup a code can't match: 400 proves the caller got past authorisation (flows: two-factor.test.ts).
  'POST /api/public/v0/users/me/2fa/enable': {
    auth: 'viewer',
    prepare: () => ({ path: '/users/me/2fa/enable', body: { totp: '000000' } }),
    ok: 403,
    session: 400,
  },
  // Two-factor sign-in is off for these callers: 409 shows they got past authorisation (flows: two-factor.test.ts).
  'POST /api/public/v0/users/me/2fa/disable': {
    auth: 'viewer',
    prepare: (c) => ({ path: '/users/me/2fa/disable', body: { password: c.actor.password, totp: '000000' } }),
    ok: 403,
    session: 409,
  },
  'POST /api/public/v0/users/me/2fa/recovery-codes': {
    auth: 'viewer',
    prepare: (c) => ({
      path: '/users/me/2fa/recovery-codes',
      body: { password: c.actor.password, totp: '000000' },
    }),
    ok: 403,
    session: 409,
  },
  'GET /api/public/v0/users/me/api-keys': {
    auth: 'viewer',
    prepare: () => ({ path: '/users/me/api-keys' }),
    ok: 200,
  },
  // Making a key takes the session cookie, as the sign-in changes above: a key or device token gets 403
  // (docs/api-decisions.md#keys-are-made-signed-in). Revoking one stays open to keys.
  'POST /api/public/v0/users/me/api-keys': {
    auth: 'viewer',
    prepare: (c) => ({ path: '/users/me/api-keys', body: { name: `own ${c.unique()}` } }),
    ok: 403,
    session: 201,
  },
  'DELETE /api/public/v0/users/me/api-keys/:keyId': {
    auth: 'viewer',
    prepare: async (c) => {
      const created = await createApiKey(c.db, c.tenantId, { userId: c.actor.id, name: `own ${c.unique()}` });
      return { path: `/users/me/api-keys/${created.id}` };
    },
    ok: 200,
  },
  'GET /api/public/v0/api-keys': { auth: 'admin', prepare: () => ({ path: '/api-keys' }), ok: 200 },
  'POST /api/public/v0/api-keys': {
    auth: 'admin',
    prepare: async (c) => ({
      path: '/api-keys',
      body: { userId: (await c.newUser('viewer')).id, name: `k ${c.unique()}` },
    }),
    ok: 403,
    session: 201,
  },
  'DELETE /api/public/v0/api-keys/:keyId': {
    auth: 'admin',
    prepare: async (c) => {
      const u = await c.newUser('viewer');
      const created = await createApiKey(c.db, c.tenantId, { userId: u.id, name: `k ${c.unique()}` });
      return { path: `/api-keys/${created.id}` };
    },
    ok: 200,
  },
  // ---- reports (extensions.md §6: read-only, any member of the project) ----
  'GET /api/public/v0/project/:project/run/:run/report': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/report` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/run/:run/flaky-score': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/flaky-score` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/report/trend': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/trend` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/report/flaky': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/flaky` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/report/folders': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/folders` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/report/failing': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/failing` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/report/slowest': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/slowest` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/report/defects': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/defects` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/report/coverage': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/coverage` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/milestone/:milestone/report': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/milestone/${c.fx.milestoneId}/report` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/plan/:plan/report': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/plan/${c.fx.planId}/report` }),
    ok: 200,
  },
  // ---- shared report links (extensions.md §6: test-runner and up; revoked by the creator or an admin) ----
  'POST /api/public/v0/project/:project/report/share': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({ path: `${c.p}/report/share`, body: { report: 'run', params: { runId: c.fx.runId } } }),
    ok: 201,
  },
  'GET /api/public/v0/project/:project/report/share': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/report/share` }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/report/share/:id': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      // The caller's own link, which it may revoke; the owner's when the caller may not make one (refused anyway).
      const body = { report: 'dashboard' };
      const own = await c.asOwner('POST', `${c.p}/report/share`, { body, key: c.actor.key });
      const made = own.status === 201 ? own : await c.asOwner('POST', `${c.p}/report/share`, { body });
      return { path: `${c.p}/report/share/${made.body.id}` };
    },
    ok: 204,
  },
  // ---- failure triage (docs/api-decisions.md#failure-triage: reads for any member; writes test-runner and up) ----
  'GET /api/public/v0/project/:project/run/:run/failure-group': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/run/${c.fx.runId}/failure-group` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/failure-group': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/failure-group` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/failure-group/:signature': {
    auth: 'viewer',
    project: 'read',
    prepare: async (c) => ({ path: `${c.p}/failure-group/${(await triageRun(c)).signature}` }),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/result/:result/suggestions': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/result/${c.fx.resultId}/suggestions` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/result/:result/link': {
    auth: 'test-runner',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/result/${c.fx.resultId}/link`,
      body: { url: 'https://bugs.example.com/accepted', text: 'Accepted bug' },
    }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/failure-group/:signature/link': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const { runId, signature } = await triageRun(c);
      return {
        path: `${c.p}/run/${runId}/failure-group/${signature}/link`,
        body: { url: 'https://bugs.example.com/triage', text: 'Triage bug' },
      };
    },
    ok: 200,
  },
  'POST /api/public/v0/project/:project/run/:run/failure-group/:signature/known': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const { runId, signature } = await triageRun(c);
      return { path: `${c.p}/run/${runId}/failure-group/${signature}/known`, body: { note: 'known' } };
    },
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/failure-group/:signature/known': {
    auth: 'test-runner',
    project: 'write',
    prepare: async (c) => {
      const { runId, signature } = await triageRun(c);
      await c.asOwner('POST', `${c.p}/run/${runId}/failure-group/${signature}/known`, { body: {} });
      return { path: `${c.p}/failure-group/${signature}/known` };
    },
    ok: 204,
  },
  // ---- saved views (docs/api-decisions.md#saved-views: every member keeps private views; sharing needs test-runner) ----
  'GET /api/public/v0/project/:project/view': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/view` }),
    ok: 200,
  },
  'POST /api/public/v0/project/:project/view': {
    auth: 'viewer',
    project: 'write',
    prepare: (c) => ({
      path: `${c.p}/view`,
      body: { name: `V ${c.unique()}`, page: 'runs', filters: { q: 'x' } },
    }),
    ok: 201,
  },
  'PATCH /api/public/v0/project/:project/view/:id': {
    auth: 'viewer',
    project: 'write',
    prepare: async (c) => ({
      path: `${c.p}/view/${await ownView(c, 'runs')}`,
      body: { name: `V ${c.unique()}` },
    }),
    ok: 200,
  },
  'DELETE /api/public/v0/project/:project/view/:id': {
    auth: 'viewer',
    project: 'write',
    prepare: async (c) => ({ path: `${c.p}/view/${await ownView(c, 'repository')}` }),
    ok: 204,
  },
  // ---- imports and exports (extensions.md §7: import user and up; export any member) ----
  'POST /api/public/v0/project/:project/import': {
    auth: 'user',
    project: 'write',
    prepare: (c) => importRequest(c),
    ok: 202,
  },
  'POST /api/public/v0/project/:project/import/preview': {
    auth: 'user',
    project: 'write',
    prepare: (c) => previewRequest(c),
    ok: 200,
  },
  'GET /api/public/v0/project/:project/import/:id': {
    auth: 'viewer',
    project: 'read',
    prepare: async (c) => {
      const r = importRequest(c);
      const id = await idOf(c.asOwner('POST', r.path, { body: r.body, headers: r.headers }));
      return { path: `${c.p}/import/${id}` };
    },
    ok: 200,
  },
  'GET /api/public/v0/project/:project/export': {
    auth: 'viewer',
    project: 'read',
    prepare: (c) => ({ path: `${c.p}/export`, query: { format: 'qasphere-csv' } }),
    ok: 200,
  },
  'POST /api/public/v0/import/project': {
    auth: 'admin',
    prepare: () => projectImportRequest(),
    ok: 202,
  },
  'GET /api/public/v0/import/:id': {
    auth: 'admin',
    prepare: async (c) => {
      const r = projectImportRequest();
      const id = await idOf(c.asOwner('POST', r.path, { body: r.body, headers: r.headers }));
      return { path: `/import/${id}` };
    },
    ok: 200,
  },
};
