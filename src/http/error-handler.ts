import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../errors.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db/dialect.js';
import { toErrorDetails } from './validation.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_CTP_INVALID_JSON_BODY: 'VALIDATION_FAILED',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_REQ_FILE_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_PARTS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FIELDS_LIMIT: 'PAYLOAD_TOO_LARGE',
};

export function send(reply: FastifyReply, code: ErrorCode, message: string, details?: ErrorDetail[]) {
  const body: Record<string, unknown> = { message, code };
  if (code === 'INTERNAL') body.requestId = reply.request.id;
  if (details && details.length > 0) body.details = details;
  return reply.code(ERROR_STATUS[code]).type('application/json; charset=utf-8').send(body);
}

/**
 * Errors Node's HTTP parser finds before there is a request (a URL or headers over the limit, both
 * Transfer-Encoding and Content-Length, broken syntax): the D7 body written straight to the socket,
 * which is closed afterwards as Node does, since the rest of the stream cannot be trusted.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'HEADERS_TOO_LARGE'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : 'MALFORMED_REQUEST';
  const message =
    code === 'HEADERS_TOO_LARGE'
      ? 'The URL and headers exceed 16 KB'
      : code === 'REQUEST_TIMEOUT'
        ? 'The request took too long to arrive'
        : 'Malformed HTTP request';
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ message, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** Errors the router finds before a route runs (bad URL encoding, over-long parameter): D7 too. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_BAD_URL') return send(reply, 'MALFORMED_REQUEST', error.message);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return send(reply, 'VALIDATION_FAILED', error.message);
  return send(reply, 'INTERNAL', 'Internal server error');
}

/** The one place that turns every thrown thing into the D7 error body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(
    (error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
      if (error instanceof AppError) return send(reply, error.code, error.message, error.details);
      const fe = error as FastifyError;
      if (fe.validation) {
        const details = toErrorDetails(
          fe.validation as Parameters<typeof toErrorDetails>[0],
          fe.validationContext ?? 'body',
        );
        const where = fe.validationContext === 'querystring' ? 'query' : (fe.validationContext ?? 'body');
        return send(
          reply,
          'VALIDATION_FAILED',
          `Invalid ${where}: ${details.map((d) => d.message).join('; ')}`,
          details,
        );
      }
      if (error instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        return send(reply, 'VALIDATION_FAILED', `Malformed JSON body: ${error.message}`);
      }
      if (fe.code && FASTIFY_CODES[fe.code]) return send(reply, FASTIFY_CODES[fe.code], fe.message);
      if (fe.statusCode === 429) return send(reply, 'RATE_LIMITED', fe.message || 'Too many requests');
      if (isUniqueViolation(error))
        return send(reply, 'CONFLICT', 'The resource conflicts with an existing one');
      if (isForeignKeyViolation(error))
        return send(reply, 'VALIDATION_FAILED', 'A referenced resource does not exist');
      if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
        const code = (Object.entries(ERROR_STATUS).find(([, s]) => s === fe.statusCode)?.[0] ??
          'VALIDATION_FAILED') as ErrorCode;
        return send(reply, code, fe.message);
      }
      request.log.error({ err: error }, 'unhandled error');
      return send(reply, 'INTERNAL', 'Internal server error');
    },
  );

  app.setNotFoundHandler((request, reply) =>
    send(reply, 'NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`),
  );
}
