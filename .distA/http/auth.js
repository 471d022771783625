import { AppError, forbidden, unauthorized } from '../errors.js';
import { authenticateApiKey, isRestrictedKeyName } from '../modules/api-keys/api-keys.service.js';
import { authenticateSession, SESSION_COOKIE } from '../modules/auth/auth.service.js';
import { DEFAULT_TENANT_ID, findTenantIdByHost } from '../modules/tenants/tenants.service.js';
import { atLeast } from '../modules/users/roles.js';
const SCHEME = /^(apikey|bearer)\s+(\S+)\s*$/i;
/** D1: the tenant a request addresses: by host name in multi-tenant mode, else the default tenant. */
export async function requestTenant(db, config, request) {
    if (!config.multiTenant)
        return DEFAULT_TENANT_ID;
    const host = (request.hostname ?? '').split(':')[0];
    const tenantId = await findTenantIdByHost(db, host);
    if (!tenantId)
        throw unauthorized(`no tenant serves host "${host}"`);
    return tenantId;
}
/**
 * Authenticates every request under the given prefix and applies the role rules of D3, D5 and D6.
 * Order: 401 (who are you) before 403 (suspended tenant, restricted key, role too low).
 */
export function installAuth(app, db, config) {
    app.decorateRequest('actor', null);
    app.addHook('onRequest', async (request) => {
        const access = request.routeOptions.config?.access ?? {};
        const url = request.routeOptions.url;
        // Only the APIs are authenticated; health checks, docs and unknown routes (404) are not.
        if (access.public || !url || !url.startsWith('/api/'))
            return;
        const header = request.headers.authorization;
        // D4: without an Authorization header, the web application's session cookie may authenticate.
        if (!header && request.cookies?.[SESSION_COOKIE]) {
            request.actor = await sessionActor(db, config, request, request.cookies[SESSION_COOKIE], access);
            return;
        }
        if (!header)
            throw unauthorized('missing Authorization header: send "Authorization: ApiKey <key>"');
        const match = SCHEME.exec(header);
        if (!match)
            throw unauthorized('malformed Authorization header: expected "ApiKey <key>" or "Bearer <key>"');
        const tenantId = await requestTenant(db, config, request);
        const check = await authenticateApiKey(db, tenantId, match[2]);
        if (!check.ok)
            throw unauthorized(check.reason);
        if (check.tenantSuspended)
            throw forbidden('this tenant is suspended');
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
            role: check.role,
            apiKeyId: check.keyId,
            via: 'key',
            ip: request.ip,
            userAgent: request.headers['user-agent'] ?? '',
        };
    });
}
// ---- sessions (D4) ----
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * D4: the origins a cookie-authenticated write may come from: the configured public URL's, and in
 * multi-tenant mode the tenant's own host with the same scheme.
 */
function trustedOrigins(config, request) {
    const publicOrigin = new URL(config.publicUrl);
    const origins = new Set([publicOrigin.origin]);
    if (config.multiTenant && request.host)
        origins.add(`${publicOrigin.protocol}//${request.host}`);
    return origins;
}
function requestOrigin(request) {
    const origin = request.headers.origin;
    if (typeof origin === 'string' && origin !== '' && origin !== 'null')
        return origin;
    const referer = request.headers.referer;
    if (typeof referer !== 'string' || referer === '')
        return undefined;
    try {
        return new URL(referer).origin;
    }
    catch {
        return undefined;
    }
}
/** Authenticates a session cookie: 401 before 403 (suspended tenant, cross-site write, role too low). */
async function sessionActor(db, config, request, token, access) {
    const tenantId = await requestTenant(db, config, request);
    const ip = request.ip;
    const userAgent = request.headers['user-agent'] ?? '';
    const check = await authenticateSession(db, { tenantId, ip, userAgent }, token);
    if (!check.ok)
        throw unauthorized(check.reason);
    if (check.tenantSuspended)
        throw forbidden('this tenant is suspended');
    if (!SAFE_METHODS.has(request.method)) {
        // D4: a browser always names the page a write came from; another site's page must not write with our cookie.
        const origin = requestOrigin(request);
        if (!origin || !trustedOrigins(config, request).has(origin)) {
            throw forbidden('writes signed in with the session cookie must come from the service itself (Origin or Referer)');
        }
    }
    const minRole = access.minRole ?? 'viewer';
    if (!atLeast(check.role, minRole)) {
        throw new AppError('FORBIDDEN', `this needs the role ${minRole} or higher; you are ${check.role}`);
    }
    return {
        tenantId,
        userId: check.userId,
        role: check.role,
        apiKeyId: null,
        via: 'session',
        ip,
        userAgent,
    };
}
//# sourceMappingURL=auth.js.map