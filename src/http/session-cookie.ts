import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { SESSION_COOKIE } from '../modules/auth/auth.service.js';

/**
 * D4: whether a cookie gets Secure: whenever the browser talks HTTPS (the public URL says so, or this request came
 * over it, directly or through a trusted proxy's X-Forwarded-Proto: CASEBOOK_TRUST_PROXY), so it never travels in clear.
 */
export const cookieIsSecure = (config: Config, req: FastifyRequest): boolean =>
  config.publicUrl.startsWith('https:') || req.protocol === 'https';

/**
 * D4: the session cookie, as every sign-in sets it (a password, an identity provider): HttpOnly so scripts can't
 * read it; SameSite=Lax so other sites' forms don't send it; Secure over HTTPS.
 */
export function setSessionCookie(
  reply: FastifyReply,
  req: FastifyRequest,
  config: Config,
  token: string,
): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: cookieIsSecure(config, req),
    path: '/',
    maxAge: config.sessionTtlHours * 3600,
  });
}
