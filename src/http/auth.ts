import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/create-db.js';
import type { Config } from '../config.js';
import { AppError, forbidden, unauthorized } from '../errors.js';
import { authenticateApiKey, isRestrictedKeyName } from '../modules/api-keys/api-keys.service.js';
import { authenticateSession, SESSION_COOKIE, type RequestSource } from '../modules/auth/auth.service.js';
import { SignInThrottled } from '../modules/auth/throttle.service.js';
import { rememberProject } from '../modules/projects/projects.service.js';
import { DEFAULT_TENANT_ID, findTenantIdByHost } from '../modules/tenants/tenants.service.js';
import type { Actor } from '../auth/actor.js';
import { atLeast, type Role } from '../auth/roles.js';
import { originOf } from '../lib/urls.js';

/** Per-route access rule, declared in the route's `config`. */
export interface RouteAccess {
  /** Minimum role (D3). Reads default to viewer; every write route names its role. */
  minRole?: Role;
  /** D5: only `GET /audit-logs` lets `SIEM-LOG-ONLY` keys through. */
  allowRestrictedKey?: boolean;
  /** Routes outside authentication (health, docs, sign-in). */
  public?: boolean;
  /**
   * Only a person signed in with the session cookie: changes to how the account signs in (password, e-mail,
   * two-factor) and approving device sign-ins. An API key or a device's token that leaked must not be able to
   * take the account over or mint more access. The value is the 403's message for a key.
   */
  sessionOnly?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

const SCHEME = /^(apikey|bearer)\s+(\S+)\s*$/i;
const SCIM_KEY_ELSEWHERE = 'a SCIM provisioning key is accepted only under /scim/v2';
/**
 * Authentication runs before validation: a `:project` value the params schema will refuse (NUL, which
 * PostgreSQL cannot compare, or longer than a code or id can be) is not looked up with the key.
 */
function usableProjectRef(ref: unknown): string | undefined {
  return typeof ref === 'string' && ref.length <= 64 && !ref.includes('\u0000') ? ref : undefined;
}

/** Requests that change nothing (D4: a cookie may make them from anywhere; a key reads the project with itself). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** D1: the tenant a request addresses: by host name in multi-tenant mode, else the default tenant. */
export async function requestTenant(db: Db, config: Config, request: FastifyRequest): Promise<string> {
  if (!config.multiTenant) return DEFAULT_TENANT_ID;
  const host = (request.hostname ?? '').split(':')[0];
  const tenantId = await findTenantIdByHost(db, host);
  if (!tenantId) throw unauthorized(`no tenant serves host "${host}"`);
  return tenantId;
}

/**
 * Authenticates every request under the given prefix and applies the role rules of D3, D5 and D6.
 * Order: 401 (who are you) before 403 (suspended tenant, restricted key, role too low).
 */
export function installAuth(app: FastifyInstance, db: Db, config: Config): void {
  app.decorateRequest('actor', null as unknown as Actor);
  app.addHook('onRequest', async (request) => {
    const access: RouteAccess = request.routeOptions.config?.access ?? {};
    const url = request.routeOptions.url;
    // Only the APIs are authenticated; health checks, docs and unknown routes (404) are not.
    if (access.public || !url || !url.startsWith('/api/')) return;
    const header = request.headers.authorization;
    // D4: without an Authorization header, the web application's session cookie may authenticate.
    if (!header && request.cookies?.[SESSION_COOKIE]) {
      request.actor = await sessionActor(db, config, request, request.cookies[SESSION_COOKIE], access);
      return;
    }
    if (!header) throw unauthorized('missing Authorization header: send "Authorization: ApiKey <key>"');
    const match = SCHEME.exec(header);
    if (!match)
      throw unauthorized('malformed Authorization header: expected "ApiKey <key>" or "Bearer <key>"');
    const tenantId = await requestTenant(db, config, request);
    // A read of a project-scoped route: the key's statement also finds the project (one statement, not two or
    // three). Writes check the project as it is when they write (resolveProject), so they read only the key.
    const projectRef = SAFE_METHODS.has(request.method)
      ? (request.params as { project?: unknown } | undefined)?.project
      : undefined;
    const check = await authenticateApiKey(db, tenantId, match[2], usableProjectRef(projectRef));
    if (!check.ok) throw unauthorized(check.reason);
    if (check.tenantSuspended) throw forbidden('this tenant is suspended');
    // docs/api-decisions.md#scim-provisioning: a provisioning key only provisions.
    if (check.keyKind === 'scim') throw forbidden(SCIM_KEY_ELSEWHERE);
    if (isRestrictedKeyName(check.keyName) && !access.allowRestrictedKey) {
      throw forbidden('keys named SIEM-LOG-ONLY may only read the audit log');
    }
    if (access.sessionOnly) {
      throw forbidden(access.sessionOnly);
    }
    const minRole = access.minRole ?? 'viewer';
    if (!atLeast(check.role, minRole)) {
      throw new AppError('FORBIDDEN', `this needs the role ${minRole} or higher; you are ${check.role}`);
    }
    request.actor = {
      tenantId,
      userId: check.userId,
      role: check.role as Role,
      apiKeyId: check.keyId,
      via: 'key',
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? '',
    };
    if (check.project) rememberProject(request.actor, check.project);
  });
}

// ---- SCIM provisioning (docs/api-decisions.md#scim-provisioning) ----

/**
 * The caller of a `/scim/v2` request: a key of kind `scim` only (every other key, and the session cookie, is
 * refused), whose user is still an admin or the owner, in a tenant that is not suspended. 401 before 403.
 */
export async function scimActor(db: Db, config: Config, request: FastifyRequest): Promise<Actor> {
  const match = SCHEME.exec(request.headers.authorization ?? '');
  if (!match) throw unauthorized('send "Authorization: Bearer <key>" with a SCIM provisioning key');
  const tenantId = await requestTenant(db, config, request);
  const check = await authenticateApiKey(db, tenantId, match[2]);
  if (!check.ok) throw unauthorized(check.reason);
  if (check.tenantSuspended) throw forbidden('this tenant is suspended');
  if (check.keyKind !== 'scim') {
    throw forbidden(
      '/scim/v2 takes only a SCIM provisioning key (an API key of kind scim, made by the owner)',
    );
  }
  if (!atLeast(check.role, 'admin')) {
    throw forbidden(
      `the key's user is ${check.role}; a SCIM key works while its user is an admin or the owner`,
    );
  }
  return {
    tenantId,
    userId: check.userId,
    role: check.role as Role,
    apiKeyId: check.keyId,
    via: 'key',
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? '',
  };
}

// ---- sessions (D4) ----

/**
 * D4: the origins a cookie-authenticated write may come from: the configured public URL's, and the address the
 * request was sent to (its scheme and Host). The second one is why a person who opens the service at
 * `http://127.0.0.1:3000` or at its host name, while the public URL says `localhost`, can still write. It cannot
 * be forged by another site: a browser sets Host to the address it connects to. `request.protocol` reads
 * X-Forwarded-Proto only when the proxy is trusted (CASEBOOK_TRUST_PROXY), else the socket's own scheme.
 */
function ownOrigins(config: Config, request: FastifyRequest): Set<string> {
  const publicUrl = new URL(config.publicUrl);
  const origins = new Set([publicUrl.origin]);
  if (!request.host) return origins;
  const sentTo = originOf(`${request.protocol}://${request.host}`);
  if (sentTo) origins.add(sentTo);
  // D1: a tenant's own host name with the public URL's scheme, as before (TLS may end at an untrusted proxy).
  const tenantHost = config.multiTenant ? originOf(`${publicUrl.protocol}//${request.host}`) : undefined;
  if (tenantHost) origins.add(tenantHost);
  return origins;
}

/**
 * D4: whether a cookie-authenticated write may go ahead. A page of another site that makes the browser write
 * names itself in Origin (or, from older browsers, Referer), or sends `Origin: null` (sandboxed frames,
 * redirects across sites): those are refused. A write that carries neither header does not come from a page
 * (browsers always send Origin on cross-site writes, and SameSite=Lax keeps the cookie off them anyway), so it
 * is a program holding the cookie itself (the upload CLI's tests delete projects that way): allowed.
 */
function writeOriginAllowed(config: Config, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  const referer = request.headers.referer;
  let claimed: string | undefined;
  if (typeof origin === 'string' && origin !== '') {
    if (origin === 'null') return false;
    claimed = origin;
  } else if (typeof referer === 'string' && referer !== '') {
    claimed = referer;
  } else {
    return true;
  }
  const named = originOf(claimed);
  return named !== undefined && ownOrigins(config, request).has(named);
}

/** Authenticates a session cookie: 401 before 403 (suspended tenant, cross-site write, role too low). */
async function sessionActor(
  db: Db,
  config: Config,
  request: FastifyRequest,
  token: string,
  access: RouteAccess,
): Promise<Actor> {
  const tenantId = await requestTenant(db, config, request);
  const ip = request.ip;
  const userAgent = request.headers['user-agent'] ?? '';
  const check = await authenticateSession(db, { tenantId, ip, userAgent }, token);
  if (!check.ok) throw unauthorized(check.reason);
  if (check.tenantSuspended) throw forbidden('this tenant is suspended');
  if (!SAFE_METHODS.has(request.method)) {
    // D4: another site's page must not write with our cookie.
    if (!writeOriginAllowed(config, request)) {
      throw forbidden(
        'writes signed in with the session cookie must come from the service itself (Origin or Referer)',
      );
    }
  }
  const minRole = access.minRole ?? 'viewer';
  if (!atLeast(check.role, minRole)) {
    throw new AppError('FORBIDDEN', `this needs the role ${minRole} or higher; you are ${check.role}`);
  }
  return {
    tenantId,
    userId: check.userId,
    role: check.role as Role,
    apiKeyId: null,
    via: 'session',
    ip,
    userAgent,
  };
}

// ---- for the routes that sign in (auth, accounts) ----

/** A throttled sign-in (429) says when to come back (D14, and the CLI honours `Retry-After`). */
export function addRetryAfterOnThrottle(app: FastifyInstance): void {
  app.addHook('onError', async (_req, reply, error) => {
    if (error instanceof SignInThrottled) reply.header('retry-after', String(error.retryAfterSeconds));
  });
}

/** The tenant, address and user agent of a request that is not (yet) authenticated. */
export async function requestSource(app: FastifyInstance, req: FastifyRequest): Promise<RequestSource> {
  return {
    tenantId: await requestTenant(app.db, app.config, req),
    ip: req.ip,
    userAgent: req.headers['user-agent'] ?? '',
  };
}
