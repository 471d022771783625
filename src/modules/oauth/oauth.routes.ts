import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ErrorObject } from 'ajv';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { addRetryAfterOnThrottle, requestTenant } from '../../http/auth.js';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { toErrorDetails } from '../../http/validation.js';
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

/**
 * RFC 6749 §4.1.3 / RFC 8628 §3.1: OAuth clients may post `application/x-www-form-urlencoded`. Registered in
 * this plugin only, so the rest of the API stays JSON-only (D8). A parameter given twice is an error (RFC 6749
 * §3.2); one given without a value counts as absent.
 */
function acceptFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const fields: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(body as string)) {
      if (Object.hasOwn(fields, name)) {
        done(new service.OAuthError('invalid_request', `parameter "${name}" is repeated`), undefined);
        return;
      }
      if (value !== '') fields[name] = value;
    }
    done(null, fields);
  });
}

/** Errors of the two OAuth endpoints in the RFC's shape as well as D7's; anything else goes to the app's handler. */
function answerOAuthErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Error, _req, reply) => {
    if (error instanceof service.OAuthError) return reply.code(400).send(error.body());
    const fe = error as FastifyError;
    if (fe.validation) {
      const details = toErrorDetails(fe.validation as ErrorObject[], fe.validationContext ?? 'body');
      const body = new service.OAuthError(
        'invalid_request',
        `Invalid body: ${details.map((d) => d.message).join('; ')}`,
        details,
      ).body();
      return reply.code(400).send(body);
    }
    if (
      error instanceof SyntaxError ||
      fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ) {
      return reply
        .code(400)
        .send(new service.OAuthError('invalid_request', `Malformed body: ${error.message}`).body());
    }
    // Any other 400 is a bad request too, and its body must still carry `error` (the 400 schema says so).
    if (error instanceof AppError ? error.status === 400 : fe.statusCode === 400) {
      const details = error instanceof AppError ? error.details : undefined;
      return reply.code(400).send(new service.OAuthError('invalid_request', error.message, details).body());
    }
    throw error;
  });
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
          'OAuth token endpoint: the device-code grant (poll until approved) and the refresh-token grant (rotates both tokens)',
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
      if (grant === service.REFRESH_TOKEN_GRANT) {
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
};
