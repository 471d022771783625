import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import { addRetryAfterOnThrottle, requestTenant } from '../../http/auth.js';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { onTenantHost } from '../../lib/urls.js';
import {
  CheckTenantAnswer,
  CheckTenantQuery,
  DeviceCodeAnswer,
  DeviceCodeBody,
  DeviceCodeView,
  OAuthErrorBody,
  TokenAnswer,
  TokenBody,
  UserCodeBody,
  UserCodeQuery,
} from './oauth.schemas.js';
import * as service from './oauth.service.js';
import * as codes from './oauth-code.service.js';
import { oauthCodeRoutes } from './oauth-code.routes.js';
import { acceptFormBodies, answerOAuthErrors, reachedOrigin } from './oauth-http.routes.js';

const PUBLIC = { access: { public: true } };
/** Approving a device is for a person signed in with the session cookie (src/http/auth.ts). */
const SIGNED_IN = {
  access: {
    minRole: 'viewer' as const,
    sessionOnly: 'a device sign-in is approved by a person signed in to the web page, not with a key',
  },
};
const tags = ['device sign-in'];

/**
 * Where a person's browser or a CLI on another machine reaches the service: CASEBOOK_PUBLIC_URL when it was set,
 * else the address this request came to (the derived `http://localhost:<port>` is no use elsewhere).
 */
export function serviceAddress(config: Config, req: FastifyRequest): string {
  if (config.publicUrlSet || !req.host) return config.publicUrl;
  return new URL(`${req.protocol}://${req.host}`).origin;
}

/** D1: in multi-tenant mode a tenant with a host name lives at that host (scheme and port of the service's). */
function tenantAddress(config: Config, req: FastifyRequest, host: string | null): string {
  const base = serviceAddress(config, req);
  return config.multiTenant ? onTenantHost(base, host) : base;
}

const oauthErrors = { ...errorResponses, 400: OAuthErrorBody };

/** The OAuth endpoints a device (the `qasphere` CLI) calls: start a sign-in, poll, refresh. */
const oauthTokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  acceptFormBodies(app);
  answerOAuthErrors(app);

  app.post(
    '/oauth/device/code',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'RFC 8628 device authorisation request: start a device sign-in (JSON or form-encoded)',
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: DeviceCodeBody,
        response: { 200: DeviceCodeAnswer, ...oauthErrors },
      },
    },
    async (req) =>
      service.startDeviceAuthorization(
        db,
        await requestTenant(db, config, req),
        { clientId: req.body.client_id },
        // D1: in multi-tenant mode the person approves at the tenant's own host, the one the CLI reached.
        tenantAddress(config, req, req.hostname || null),
      ),
  );

  app.post(
    '/oauth/token',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          'OAuth token endpoint: the device-code grant (poll until approved), the authorization-code grant (PKCE S256) and the refresh-token grant (rotates both tokens)',
        description:
          'Until a person approves: 400 `authorization_pending`, `slow_down` (polled sooner than `interval`; the interval grows by 5 s), `access_denied` or `expired_token`. Error bodies carry `error`, `error_description`, `message` and `code`.',
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: TokenBody,
        response: { 200: TokenAnswer, ...oauthErrors },
      },
    },
    async (req, reply) => {
      // RFC 6749 §5.1: token answers are never cached.
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const source = {
        tenantId: await requestTenant(db, config, req),
        ip: req.ip,
        userAgent: req.headers['user-agent'] ?? '',
      };
      const { grant_type: grant, client_id: clientId } = req.body;
      if (grant === service.DEVICE_CODE_GRANT) {
        return service.pollDeviceCode(
          db,
          { ...source, userId: null },
          { clientId, deviceCode: req.body.device_code },
        );
      }
      const mcpResource = `${reachedOrigin(config, req)}/api/mcp`;
      const { resource } = req.body;
      if (grant === codes.AUTHORIZATION_CODE_GRANT) {
        return codes.exchangeCode(
          db,
          source,
          {
            clientId,
            code: req.body.code,
            redirectUri: req.body.redirect_uri,
            codeVerifier: req.body.code_verifier,
            resource,
          },
          mcpResource,
        );
      }
      if (grant === service.REFRESH_TOKEN_GRANT) {
        if (resource !== undefined && !codes.resourceServed(resource, mcpResource)) {
          throw new service.OAuthError('invalid_target', `this server's tokens are for ${mcpResource}`);
        }
        return service.refreshTokens(db, source, { clientId, refreshToken: req.body.refresh_token });
      }
      throw new service.OAuthError('unsupported_grant_type', `unsupported grant_type "${grant}"`);
    },
  );
};

/** The login service's tenant lookup and the verification page's JSON API (the web application reuses it). */
const deviceApprovalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  addRetryAfterOnThrottle(app);

  app.get(
    '/check-tenant',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: "The CLI's login service: where a team (tenant) signs in, and whether it is suspended",
        querystring: CheckTenantQuery,
        response: { 200: CheckTenantAnswer, ...errorResponses },
      },
    },
    async (req) => {
      const tenant = await service.findTenantForLogin(db, config.multiTenant, req.query.name);
      return { redirectUrl: `${tenantAddress(config, req, tenant.host)}/login`, suspended: tenant.suspended };
    },
  );

  app.get(
    '/oauth/device',
    {
      schema: {
        tags,
        summary:
          'A device sign-in code as the approval page shows it: the client asking and where the code stands',
        querystring: UserCodeQuery,
        response: { 200: DeviceCodeView, ...errorResponses },
      },
    },
    async (req) => service.describeUserCode(db, req.actor, req.query.user_code),
  );

  for (const decision of ['approve', 'deny'] as const) {
    app.post(
      `/oauth/device/${decision}`,
      {
        config: SIGNED_IN,
        schema: {
          tags,
          summary:
            decision === 'approve'
              ? 'Approve a device sign-in code: the device gets tokens acting as you (session cookie only)'
              : 'Deny a device sign-in code: the device is told access_denied (session cookie only)',
          body: UserCodeBody,
          response: { 200: MessageBody, ...errorResponses },
        },
      },
      async (req) => service.decideUserCode(db, req.actor, req.body.user_code, decision),
    );
  }
};

export const oauthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(oauthTokenRoutes);
  await app.register(deviceApprovalRoutes);
  await app.register(oauthCodeRoutes);
};
