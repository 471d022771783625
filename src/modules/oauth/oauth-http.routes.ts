/** What the OAuth endpoints share: form bodies, errors in the RFC's shape, and the origin a client reached. */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { toErrorDetails } from '../../http/validation.js';
import * as service from './oauth.service.js';

/**
 * RFC 6749 §4.1.3 / RFC 8628 §3.1: OAuth clients may post `application/x-www-form-urlencoded`. Registered in
 * this plugin only, so the rest of the API stays JSON-only (D8). A parameter given twice is an error (RFC 6749
 * §3.2); one given without a value counts as absent.
 */
export function acceptFormBodies(app: FastifyInstance): void {
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
export function answerOAuthErrors(app: FastifyInstance): void {
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

/**
 * The origin a client reached: the metadata, the resource and the endpoints are named at it, so a client that
 * reached `http://127.0.0.1:3000` finds them there (RFC 9728 §3.3: the resource must be the URL it used).
 */
export function reachedOrigin(config: Config, req: FastifyRequest): string {
  if (!req.host) return new URL(config.publicUrl).origin;
  return new URL(`${req.protocol}://${req.host}`).origin;
}
