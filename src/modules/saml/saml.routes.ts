import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { requestSource } from '../../http/auth.js';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { cookieIsSecure, setSessionCookie } from '../../http/session-cookie.js';
import { safeReturnTo, signInPage, siteOrigin } from '../sso/sso-rules.service.js';
import { SsoSignInError } from '../sso/sso-sign-in.service.js';
import { SignInProviderList, StartQuery } from '../sso/sso.schemas.js';
import * as providers from './saml-providers.service.js';
import { consumeAssertion, REQUEST_TTL_MS, startSignIn } from './saml-sign-in.service.js';
import { spMetadata } from './saml-sp.js';
import {
  AcsBody,
  CreateSamlProviderBody,
  SamlProvider,
  SamlProviderList,
  SamlProviderParams,
  UpdateSamlProviderBody,
} from './saml.schemas.js';

const tags = ['sign-in providers'];

/** Administration → Sign-in: SAML 2.0 identity providers, managed by admins (tenant-wide, like OIDC's). */
export const samlProvidersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  const admin = { access: { minRole: 'admin' as const } };

  app.get(
    '/saml-provider',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List the SAML 2.0 identity providers (admin)',
        response: { 200: SamlProviderList, ...errorResponses },
      },
    },
    async (req) => ({
      providers: await providers.listProviders(db, req.actor.tenantId, siteOrigin(config, req)),
    }),
  );

  app.post(
    '/saml-provider',
    {
      config: admin,
      schema: {
        tags,
        summary:
          'Add a SAML 2.0 identity provider (admin): its entity id, sign-on address and certificate, or its metadata XML; off until `enabled`',
        body: CreateSamlProviderBody,
        response: { 201: SamlProvider, ...errorResponses },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await providers.createProvider(db, req.actor, req.body, siteOrigin(config, req))),
  );

  app.get(
    '/saml-provider/:providerId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Get a SAML 2.0 identity provider (admin)',
        params: SamlProviderParams,
        response: { 200: SamlProvider, ...errorResponses },
      },
    },
    async (req) =>
      providers.getProvider(db, req.actor.tenantId, req.params.providerId, siteOrigin(config, req)),
  );

  app.patch(
    '/saml-provider/:providerId',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Change a SAML 2.0 identity provider; only the given fields change (admin)',
        params: SamlProviderParams,
        body: UpdateSamlProviderBody,
        response: { 200: SamlProvider, ...errorResponses },
      },
    },
    async (req) =>
      providers.updateProvider(db, req.actor, req.params.providerId, req.body, siteOrigin(config, req)),
  );

  app.delete(
    '/saml-provider/:providerId',
    {
      config: admin,
      schema: {
        tags,
        summary:
          'Delete a SAML 2.0 identity provider; people who signed in through it keep their accounts (admin)',
        params: SamlProviderParams,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req) => {
      await providers.deleteProvider(db, req.actor, req.params.providerId);
      return { message: 'SAML provider deleted' };
    },
  );
};

/**
 * The browser's cookie: the answer must come to the browser that started the sign-in (no login CSRF). The IdP posts
 * the answer from its own site, so over https the cookie is SameSite=None (Secure); over plain http (a development
 * set-up, the IdP on the same site) it is Lax.
 */
const REQUEST_COOKIE = 'saml_request';
const REQUEST_COOKIE_PATH = '/api/auth/saml';

/** Sign-in through a SAML 2.0 identity provider (the web application's private API, under `/api/auth/saml`). */
export const samlSignInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  const PUBLIC = { access: { public: true } };
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const cookieOptions = (req: FastifyRequest) => {
    const secure = cookieIsSecure(config, req);
    return {
      httpOnly: true,
      secure,
      sameSite: secure ? ('none' as const) : ('lax' as const),
      path: REQUEST_COOKIE_PATH,
    };
  };
  const clearRequestCookie = (req: FastifyRequest, reply: FastifyReply) =>
    reply.clearCookie(REQUEST_COOKIE, cookieOptions(req));

  app.get(
    '/auth/saml/providers',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: "The sign-in page's buttons: the enabled SAML providers' ids and names (no sign-in needed)",
        response: { 200: SignInProviderList, ...errorResponses },
      },
    },
    async (req) => {
      const { tenantId } = await requestSource(app, req);
      const list = await providers.listSignInProviders(db, tenantId);
      return {
        providers: list.map((p) => ({ id: p.id, name: p.name, startUrl: `/api/auth/saml/${p.id}/start` })),
      };
    },
  );

  app.get(
    '/auth/saml/:providerId/metadata',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          'Our SP metadata for one identity provider (entity id, assertion consumer address), at a stable address',
        params: SamlProviderParams,
        response: { 200: Type.String({ description: 'application/samlmetadata+xml' }), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { tenantId } = await requestSource(app, req);
      const row = await providers.findProvider(db, tenantId, req.params.providerId);
      if (!row) throw notFound(`SAML provider ${req.params.providerId} not found`);
      return reply.type('application/samlmetadata+xml').send(spMetadata(row, siteOrigin(config, req)));
    },
  );

  app.get(
    '/auth/saml/:providerId/start',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Sign in through a SAML identity provider: redirects the browser to it with an AuthnRequest',
        description:
          'A provider that is not enabled sends the browser back to /sign-in?error=provider_unavailable.',
        params: SamlProviderParams,
        querystring: StartQuery,
        response: { ...errorResponses },
      },
    },
    async (req, reply) => {
      const returnTo = safeReturnTo(req.query.returnTo);
      try {
        const { url, browserSecret } = await startSignIn(db, await requestSource(app, req), {
          providerId: req.params.providerId,
          returnTo,
          origin: siteOrigin(config, req),
        });
        reply.setCookie(REQUEST_COOKIE, browserSecret, {
          ...cookieOptions(req),
          maxAge: REQUEST_TTL_MS / 1000,
        });
        return reply.header('cache-control', 'no-store').redirect(url, 302);
      } catch (err) {
        if (err instanceof SsoSignInError) return reply.redirect(signInPage(err.reason, returnTo), 302);
        throw err;
      }
    },
  );

  app.post(
    '/auth/saml/:providerId/acs',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary:
          'The assertion consumer (HTTP-POST binding): checks the signed assertion, opens the web session and sends the browser on',
        description:
          'Failures send the browser to /sign-in?error=<word>: assertion_invalid, assertion_expired, assertion_replayed, state_invalid, provider_unavailable, provider_error, email_unverified, no_account, deactivated, suspended.',
        params: SamlProviderParams,
        body: AcsBody,
        response: { ...errorResponses },
      },
    },
    async (req, reply) => {
      clearRequestCookie(req, reply);
      reply.header('cache-control', 'no-store');
      try {
        const { token, returnTo } = await consumeAssertion(
          db,
          await requestSource(app, req),
          {
            providerId: req.params.providerId,
            samlResponse: req.body.SAMLResponse,
            browserSecret: req.cookies[REQUEST_COOKIE],
            origin: siteOrigin(config, req),
          },
          { sessionTtlHours: config.sessionTtlHours },
        );
        setSessionCookie(reply, req, config, token);
        return reply.redirect(returnTo, 303);
      } catch (err) {
        if (err instanceof SsoSignInError) return reply.redirect(signInPage(err.reason, err.returnTo), 303);
        throw err;
      }
    },
  );
};
