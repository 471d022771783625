import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../errors.js';
import {
  isCommitOutcomeUnknown,
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isStorageFull,
  isUniqueViolation,
} from '../db/dialect.js';
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

/** The D7 code each error answer carried, for the error counts of `/metrics`. */
const sentCodes = new WeakMap<FastifyReply, ErrorCode>();
export const errorCodeOf = (reply: FastifyReply): ErrorCode | undefined => sentCodes.get(reply);

export function send(reply: FastifyReply, code: ErrorCode, message: string, details?: ErrorDetail[]) {
  sentCodes.set(reply, code);
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

/** Seconds a client is asked to wait before retrying when the database is unavailable (restart, failover). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** How long a full disk (or a file store away) keeps `/readyz` asking after the last request that met it. */
const STORAGE_FULL_HOLD_MS = 30_000;

/**
 * What the error handler saw of the storage, for `/readyz`: the last time a write failed on a full disk (the
 * database's or the file store's). A later successful probe, or the hold running out, makes it ready again.
 */
export class StorageHealth {
  private fullAt: number | undefined;

  markFull(now = Date.now()): void {
    this.fullAt = now;
  }

  clear(): void {
    this.fullAt = undefined;
  }

  recentlyFull(now = Date.now()): boolean {
    return this.fullAt !== undefined && now - this.fullAt < STORAGE_FULL_HOLD_MS;
  }

  private fileStoreDownAt: number | undefined;

  /** A request met the file store (S3) away: `/readyz` asks it until it answers or the hold runs out. */
  markFileStoreDown(now = Date.now()): void {
    this.fileStoreDownAt = now;
  }

  clearFileStore(): void {
    this.fileStoreDownAt = undefined;
  }

  fileStoreRecentlyDown(now = Date.now()): boolean {
    return this.fileStoreDownAt !== undefined && now - this.fileStoreDownAt < STORAGE_FULL_HOLD_MS;
  }
}

export const STORAGE_FULL_MESSAGE =
  "The service's storage is full: nothing of this request was stored. Try again once an administrator has freed space.";
export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database is unavailable (restarting or unreachable): nothing of this request was stored. Retry shortly.';

/** The one place that turns every thrown thing into the D7 error body. */
export function installErrorHandling(app: FastifyInstance, storage = new StorageHealth()): void {
  // A write that succeeded proves the storage takes writes again (a callback hook: no promise per response).
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) storage.clear();
    done();
  });
  app.setErrorHandler(
    (error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
      if (error instanceof AppError) {
        if (error.code === 'STORAGE_UNAVAILABLE') {
          storage.markFileStoreDown();
          request.log.warn({ err: error.cause ?? error }, 'file store unavailable');
          reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        }
        return send(reply, error.code, error.message, error.details);
      }
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
      // Before the generic 500: these say what happened and that nothing was written, and the original error
      // is logged (the rollback that follows a failed statement never hides it: see create-db.ts).
      if (isCommitOutcomeUnknown(error)) {
        request.log.error({ err: error }, 'database connection lost while committing');
        return send(
          reply,
          'INTERNAL',
          'The database connection was lost while this change was being committed: it may or may not have been stored. Check before sending it again.',
        );
      }
      if (isStorageFull(error)) {
        storage.markFull();
        request.log.error({ err: error }, 'storage full');
        return send(reply, 'STORAGE_FULL', STORAGE_FULL_MESSAGE);
      }
      if (isDatabaseUnavailable(error)) {
        request.log.warn({ err: error }, 'database unavailable');
        reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        return send(reply, 'DATABASE_UNAVAILABLE', DATABASE_UNAVAILABLE_MESSAGE);
      }
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
