import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestSource } from '../../http/auth.js';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { cookieIsSecure, setSessionCookie } from '../../http/session-cookie.js';
import {
  CallbackQuery,
  CreateOidcProviderBody,
  OidcProvider,
  OidcProviderList,
  OidcProviderParams,
  SignInProviderList,
  StartQuery,
  UpdateOidcProviderBody,
} from './oidc.schemas.js';
import { safeReturnTo, signInPage, siteOrigin } from '../sso/sso-rules.service.js';
import * as providers from './oidc-providers.service.js';
import { finishSignIn, OidcSignInError, SIGN_IN_TTL_MS, startSignIn } from './oidc-sign-in.service.js';

const tags = ['sign-in providers'];

export { safeReturnTo };

/** Administration → Sign-in: OpenID Connect providers, managed by admins (tenant-wide, like webhooks). */
export const oidcProvidersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  const settings = { secretKey: config.secretKey, guard: ctx.outboundGuard };
  const admin = { access: { minRole: 'admin' as const } };

  app.get(
    '/oidc-provider',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List the OpenID Connect providers (admin; client secrets are never returned)',
        response: { 200: OidcProviderList, ...errorResponses },
      },
    },
    async (req) => ({
      providers: await providers.listProviders(db, req.actor.tenantId, siteOrigin(config, req)),
    }),
  );

  app.post(
    '/oidc-provider',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Add an OpenID Connect provider (admin); off until `enabled`',
        body: CreateOidcProviderBody,
        response: { 201: OidcProvider, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await providers.createProvider(db, req.actor, req.body, settings, siteOrigin(config, req))),
  );

  app.get(
    '/oidc-provider/:providerId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get an OpenID Connect provider (admin)',
        params: OidcProviderParams,
        response: { 200: OidcProvider, ...errorResponses },
      },
    },
    async (req) =>
      providers.getProvider(db, req.actor.tenantId, req.params.providerId, siteOrigin(config, req)),
  );

  app.patch(
    '/oidc-provider/:providerId',
    {
      config: admin,
      schema: {
        tags,
        summary:
          'Change an OpenID Connect provider; only the given fields change; a new issuer needs the client secret again (admin)',
        params: OidcProviderParams,
        body: UpdateOidcProviderBody,
        response: { 200: OidcProvider, ...errorResponses },
      },
    },
    async (req) =>
      providers.updateProvider(
        db,
        req.actor,
        req.params.providerId,
        req.body,
        settings,
        siteOrigin(config, req),
      ),
  );

  app.delete(
    '/oidc-provider/:providerId',
    {
      config: admin,
      schema: {
        tags,
        summary:
          'Delete an OpenID Connect provider; people who signed in through it keep their accounts (admin)',
        params: OidcProviderParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await providers.deleteProvider(db, req.actor, req.params.providerId);
      return { message: 'OIDC provider deleted' };
    },
  );
};

/** The browser's state cookie: the callback must come to the browser that started the sign-in (no login CSRF). */
const STATE_COOKIE = 'oidc_state';
const STATE_COOKIE_PATH = '/api/auth/oidc';

/** Sign-in through an OpenID Connect provider (the web application's private API, under `/api/auth/oidc`). */
export const oidcSignInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, ctx } = app;
  const settings = {
    secretKey: config.secretKey,
    guard: ctx.outboundGuard,
    sessionTtlHours: config.sessionTtlHours,
  };
  const PUBLIC = { access: { public: true } };
  const clearState = (req: FastifyRequest, reply: FastifyReply) =>
    reply.clearCookie(STATE_COOKIE, {
      path: STATE_COOKIE_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: cookieIsSecure(config, req),
    });

  app.get(
    '/auth/oidc/providers',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          "The sign-in page's buttons: the enabled OpenID Connect providers' ids and names (no sign-in needed)",
        response: { 200: SignInProviderList, ...errorResponses },
      },
    },
    async (req) => {
      const { tenantId } = await requestSource(app, req);
      const list = await providers.listSignInProviders(db, tenantId);
      return {
        providers: list.map((p) => ({ id: p.id, name: p.name, startUrl: `/api/auth/oidc/${p.id}/start` })),
      };
    },
  );

  app.get(
    '/auth/oidc/:providerId/start',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          'Sign in through an OpenID Connect provider: redirects the browser to it (authorization code + PKCE)',
        description:
          'A provider that is not enabled or cannot be reached sends the browser back to /sign-in?error=provider_unavailable or provider_error.',
        params: OidcProviderParams,
        querystring: StartQuery,
        response: { ...errorResponses },
      },
    },
    async (req, reply) => {
      const returnTo = safeReturnTo(req.query.returnTo);
      try {
        const { url, state } = await startSignIn(
          db,
          await requestSource(app, req),
          { providerId: req.params.providerId, returnTo, origin: siteOrigin(config, req) },
          settings,
        );
        reply.setCookie(STATE_COOKIE, state, {
          httpOnly: true,
          sameSite: 'lax',
          secure: cookieIsSecure(config, req),
          path: STATE_COOKIE_PATH,
          maxAge: SIGN_IN_TTL_MS / 1000,
        });
        return reply.header('cache-control', 'no-store').redirect(url, 302);
      } catch (err) {
        if (err instanceof OidcSignInError) return reply.redirect(signInPage(err.reason, returnTo), 302);
        throw err;
      }
    },
  );

  app.get(
    '/auth/oidc/:providerId/callback',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          "The provider's redirect URI: redeems the code, opens the web session (the session cookie) and sends the browser on",
        description:
          'Failures send the browser to /sign-in?error=<word>: state_invalid, provider_unavailable, provider_error, email_unverified, no_account, deactivated, suspended.',
        params: OidcProviderParams,
        querystring: CallbackQuery,
        response: { ...errorResponses },
      },
    },
    async (req, reply) => {
      const query = new URL(req.url, 'http://casebook.invalid').searchParams;
      clearState(req, reply);
      reply.header('cache-control', 'no-store');
      try {
        const { token, returnTo } = await finishSignIn(
          db,
          await requestSource(app, req),
          { providerId: req.params.providerId, query, cookieState: req.cookies[STATE_COOKIE] },
          settings,
        );
        setSessionCookie(reply, req, config, token);
        return reply.redirect(returnTo, 302);
      } catch (err) {
        if (err instanceof OidcSignInError) return reply.redirect(signInPage(err.reason, err.returnTo), 302);
        throw err;
      }
    },
  );
};
