import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import { addRetryAfterOnThrottle, requestSource, requestTenant } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { authenticateSession, SESSION_COOKIE } from '../auth/auth.service.js';
import { OAuthErrorBody } from './oauth.schemas.js';
import { acceptFormBodies, answerOAuthErrors, reachedOrigin } from './oauth-http.routes.js';
import {
  AuthorizationDecisionBody,
  AuthorizationQuery,
  AuthorizationView,
  ClientList,
  ClientPolicy,
  ClientPolicyBody,
  DecisionAnswer,
  RegisterBody,
  RegisteredClient,
  RevokeBody,
} from './oauth-code.schemas.js';
import * as clients from './oauth-clients.service.js';
import * as codes from './oauth-code.service.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './oauth-metadata.js';

const PUBLIC = { access: { public: true } };
const SIGNED_IN = {
  access: {
    minRole: 'viewer' as const,
    sessionOnly: 'an app sign-in is approved by a person signed in to the web page, not with a key',
  },
};
const ADMIN = { access: { minRole: 'admin' as const } };
const tags = ['app sign-in (OAuth)'];

const mcpResource = (config: Config, req: FastifyRequest) => `${reachedOrigin(config, req)}/api/mcp`;

/** Registration and revocation: what OAuth clients call, answering in the RFC's error shape. */
const clientEndpoints: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;
  acceptFormBodies(app);
  answerOAuthErrors(app);
  addRetryAfterOnThrottle(app);
  const oauthErrors = { ...errorResponses, 400: OAuthErrorBody };

  app.post(
    '/oauth/register',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'RFC 7591 dynamic client registration: a public client (an MCP client) gets a client_id',
        description:
          'Public clients only (PKCE, no secret). Redirect URIs must be https, or http on a loopback address. 20 registrations per address per hour (429 with Retry-After).',
        body: RegisterBody,
        response: { 201: RegisteredClient, ...oauthErrors },
      },
    },
    async (req, reply) => {
      const registered = await clients.registerClient(db, await requestSource(app, req), req.body);
      return reply.code(201).header('cache-control', 'no-store').send(registered);
    },
  );

  app.post(
    '/oauth/revoke',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'RFC 7009: a client ends its sign-in with its access or refresh token (always 200)',
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: RevokeBody,
        response: { 200: { type: 'object', additionalProperties: false }, ...oauthErrors },
      },
    },
    async (req) => {
      await codes.revokeToken(db, await requestSource(app, req), {
        token: req.body.token,
        clientId: req.body.client_id,
      });
      return {};
    },
  );
};

/** The authorization endpoint, the approval page's API, and the admin's rule. */
const approvalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;

  app.get(
    '/oauth/authorize',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          'OAuth authorization endpoint (code + PKCE S256): sends the browser to sign in, then to the approval page',
        description:
          'A request the client can be told about (wrong response_type, no PKCE, another resource) goes back to its redirect URI with `error`. An unknown client or unregistered redirect URI is a 400.',
        querystring: AuthorizationQuery,
        response: { ...errorResponses },
      },
    },
    async (req, reply) => {
      const tenantId = await requestTenant(db, config, req);
      const checked = await codes.checkAuthorizationRequest(
        db,
        tenantId,
        req.query,
        mcpResource(config, req),
      );
      if (!checked.ok) {
        const { redirectUri, error, description, state } = checked;
        return reply.redirect(
          codes.redirectWith(redirectUri, { error, error_description: description, state }),
          302,
        );
      }
      const page = `/oauth/authorize?${new URLSearchParams(req.query as Record<string, string>).toString()}`;
      const cookie = req.cookies?.[SESSION_COOKIE];
      const session = cookie
        ? await authenticateSession(
            db,
            { tenantId, ip: req.ip, userAgent: req.headers['user-agent'] ?? '' },
            cookie,
          )
        : undefined;
      if (!session?.ok) {
        return reply.redirect(`/sign-in?${new URLSearchParams({ returnTo: page }).toString()}`, 302);
      }
      return reply.redirect(page, 302);
    },
  );

  app.get(
    '/oauth/authorize/request',
    {
      schema: {
        tags,
        summary: "An authorization request as the approval page shows it: the client's name and origin",
        querystring: AuthorizationQuery,
        response: { 200: AuthorizationView, ...errorResponses },
      },
    },
    async (req) => codes.describeRequest(db, req.actor, req.query, mcpResource(config, req)),
  );

  for (const decision of ['approve', 'deny'] as const) {
    app.post(
      `/oauth/authorize/${decision}`,
      {
        config: SIGNED_IN,
        schema: {
          tags,
          summary:
            decision === 'approve'
              ? 'Approve an app sign-in: the client gets a code for tokens acting as you (session cookie only)'
              : 'Deny an app sign-in: the client is told access_denied (session cookie only)',
          body: AuthorizationDecisionBody,
          response: { 200: DecisionAnswer, ...errorResponses },
        },
      },
      async (req) => codes.decideRequest(db, req.actor, req.body, mcpResource(config, req), decision),
    );
  }

  app.get(
    '/oauth/clients',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'The registered OAuth clients (newest 200) and the rule for which may be approved (admin)',
        response: { 200: ClientList, ...errorResponses },
      },
    },
    async (req) => clients.listClients(db, req.actor.tenantId),
  );

  app.put(
    '/oauth/client-policy',
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          'Set which registered clients people may approve: any (null), or those at these origins (admin)',
        body: ClientPolicyBody,
        response: { 200: ClientPolicy, ...errorResponses },
      },
    },
    async (req) => clients.setPolicy(db, req.actor, req.body.allowedOrigins),
  );
};

export const oauthCodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(clientEndpoints);
  await app.register(approvalRoutes);
};

/**
 * RFC 9728 and RFC 8414 metadata, at the root as the MCP authorization spec looks for them (the path-suffixed
 * protected-resource form first, then the plain one).
 */
export const wellKnownRoutes: FastifyPluginAsync = async (app) => {
  const { config } = app;
  const opts = { config: PUBLIC, schema: { hide: true } };
  const resource = async (req: FastifyRequest) => protectedResourceMetadata(reachedOrigin(config, req));
  app.get('/.well-known/oauth-protected-resource', opts, resource);
  app.get('/.well-known/oauth-protected-resource/api/mcp', opts, resource);
  const server = async (req: FastifyRequest) => authorizationServerMetadata(reachedOrigin(config, req));
  app.get('/.well-known/oauth-authorization-server', opts, server);
};
