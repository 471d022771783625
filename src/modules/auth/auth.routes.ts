import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest } from '../../errors.js';
import { addRetryAfterOnThrottle, requestSource } from '../../http/auth.js';
import { errorResponses, MessageBody } from '../../http/schemas.js';
import { cookieIsSecure, setSessionCookie } from '../../http/session-cookie.js';
import { LoginBody, LoginResponse } from './auth.schemas.js';
import { SESSION_COOKIE, sessionIdOf, signIn, signOut } from './auth.service.js';

const PUBLIC = { access: { public: true } };

/** The web application's private API (docs/api-decisions.md#endpoints-beyond-the-public-api), under `/api/auth`. */
export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app;
  const secure = (req: FastifyRequest) => cookieIsSecure(config, req);
  addRetryAfterOnThrottle(app);

  app.post(
    '/auth/login',
    {
      config: PUBLIC,
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password (and a two-factor code when on); sets the session cookie',
        body: LoginBody,
        response: { 200: LoginResponse, ...errorResponses },
      },
    },
    async (req, reply) => {
      const { token } = await signIn(db, await requestSource(app, req), req.body, config);
      setSessionCookie(reply, req, config, token);
      return { token };
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'End the session of the session cookie and clear the cookie',
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (req, reply) => {
      if (req.actor.via !== 'session') {
        throw badRequest('sign-out ends a browser session; API keys are revoked instead');
      }
      await signOut(db, req.actor, sessionIdOf(req.cookies[SESSION_COOKIE] ?? ''));
      reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: secure(req) });
      return { message: 'Signed out' };
    },
  );
};
