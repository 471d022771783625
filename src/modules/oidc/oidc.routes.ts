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
  SignInSettings,
  StartQuery,
  UpdateOidcProviderBody,
} from './oidc.schemas.js';
import { safeReturnTo, signInPage, siteOrigin } from '../sso/sso-rules.service.js';
import * as providers from './oidc-providers.service.js';
import { setSignInSettings, signInSettings } from './sign-in-policy.service.js';
import { OidcSignInError, SIGN_IN_TTL_MS, startSignIn } from './oidc-sign-in.service.js';
import { finishCallback, startTest, testResultPage } from './oidc-test-sign-in.service.js';

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

  app.get(
    '/sign-in-settings',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Who signs in with a password: everyone, or only the owner (admin reads)',
        response: { 200: SignInSettings, ...errorResponses },
      },
    },
    async (req) => signInSettings(db, req.actor.tenantId),
  );

  app.put(
    '/sign-in-settings',
    {
      config: { access: { minRole: 'owner' as const } },
      schema: {
        tags,
        summary:
          'Set who signs in with a password (owner): `owners` needs an enabled provider; API keys and device sign-in are not affected',
        body: SignInSettings,
        response: { 200: SignInSettings, ...errorResponses },
      },
    },
    async (req) => setSignInSettings(db, req.actor, req.body),
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

  const setState = (req: FastifyRequest, reply: FastifyReply, state: string) =>
    reply.setCookie(STATE_COOKIE, state, {
      httpOnly: true,
      sameSite: 'lax',
      secure: cookieIsSecure(config, req),
      path: STATE_COOKIE_PATH,
      maxAge: SIGN_IN_TTL_MS / 1000,
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
        ...(await signInSettings(db, tenantId)),
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
        setState(req, reply, state);
        return reply.header('cache-control', 'no-store').redirect(url, 302);
      } catch (err) {
        if (err instanceof OidcSignInError) return reply.redirect(signInPage(err.reason, returnTo), 302);
        throw err;
      }
    },
  );

  app.get(
    '/auth/oidc/:providerId/test',
    {
      config: { access: { minRole: 'admin' as const } },
      schema: {
        tags,
        summary:
          "Test sign-in (admin): runs the provider's flow, enabled or not, without opening a session or touching an account",
        description:
          "Opened in a popup. Redirects to the provider; its callback records what the sign-in would do (the claims, the account, role and projects, or the refusal) as the provider's `lastTest`, audits `oidc.test_sign_in`, and sends the popup to /admin/sign-in/test-result?provider=<id>.",
        params: OidcProviderParams,
        response: { ...errorResponses },
      },
    },
    async (req, reply) => {
      const started = await startTest(
        db,
        req.actor,
        { providerId: req.params.providerId, origin: siteOrigin(config, req) },
        settings,
      );
      reply.header('cache-control', 'no-store');
      if (!started) return reply.redirect(testResultPage(req.params.providerId), 302);
      setState(req, reply, started.state);
      return reply.redirect(started.url, 302);
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
        const { token, returnTo } = await finishCallback(
          db,
          await requestSource(app, req),
          { providerId: req.params.providerId, query, cookieState: req.cookies[STATE_COOKIE] },
          settings,
        );
        // An admin's test sign-in opens no session: the popup goes on to its outcome.
        if (token !== null) setSessionCookie(reply, req, config, token);
        return reply.redirect(returnTo, 302);
      } catch (err) {
        if (err instanceof OidcSignInError) return reply.redirect(signInPage(err.reason, err.returnTo), 302);
        throw err;
      }
    },
  );
};
