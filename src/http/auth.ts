import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/create-db.js';
import type { Config } from '../config.js';
import { AppError, forbidden, unauthorized } from '../errors.js';
import { authenticateApiKey, isRestrictedKeyName } from '../modules/api-keys/api-keys.service.js';
import { authenticateSession, SESSION_COOKIE } from '../modules/auth/auth.service.js';
import { rememberProject } from '../modules/projects/projects.service.js';
import { DEFAULT_TENANT_ID, findTenantIdByHost } from '../modules/tenants/tenants.service.js';
import { atLeast, type Role } from '../modules/users/roles.js';

/** Who is calling: passed to every service that needs to know. */
export interface Actor {
  tenantId: string;
  userId: number;
  role: Role;
  /** Set when the request was authenticated by an API key (results record it, runs are `isAutomated`). */
  apiKeyId: string | null;
  via: 'key' | 'session';
  ip: string;
  userAgent: string;
}

/** Per-route access rule, declared in the route's `config`. */
export interface RouteAccess {
  /** Minimum role (D3). Reads default to viewer; every write route names its role. */
  minRole?: Role;
  /** D5: only `GET /audit-logs` lets `SIEM-LOG-ONLY` keys through. */
  allowRestrictedKey?: boolean;
  /** Routes outside authentication (health, docs, sign-in). */
  public?: boolean;
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
    if (isRestrictedKeyName(check.keyName) && !access.allowRestrictedKey) {
      throw forbidden('keys named SIEM-LOG-ONLY may only read the audit log');
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

// ---- sessions (D4) ----

/**
 * D4: the origins a cookie-authenticated write may come from: the configured public URL's, and in
 * multi-tenant mode the tenant's own host with the same scheme.
 */
function trustedOrigins(config: Config, request: FastifyRequest): Set<string> {
  const publicOrigin = new URL(config.publicUrl);
  const origins = new Set([publicOrigin.origin]);
  if (config.multiTenant && request.host) origins.add(`${publicOrigin.protocol}//${request.host}`);
  return origins;
}

function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== '' && origin !== 'null') return origin;
  const referer = request.headers.referer;
  if (typeof referer !== 'string' || referer === '') return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
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
    // D4: a browser always names the page a write came from; another site's page must not write with our cookie.
    const origin = requestOrigin(request);
    if (!origin || !trustedOrigins(config, request).has(origin)) {
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
