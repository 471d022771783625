/** The closed list of error codes (D7) and the one table that maps them to HTTP statuses. */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  /** The HTTP message itself is broken (e.g. both Transfer-Encoding and Content-Length, a bad URL encoding). */
  MALFORMED_REQUEST: 400,
  UNAUTHORIZED: 401,
  FEATURE_NOT_AVAILABLE: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  /** The URL and headers together exceed the server's limit (16 KB). */
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  /** The database cannot be reached (restart, failover, connection lost): nothing was written; retry shortly. */
  DATABASE_UNAVAILABLE: 503,
  /** `/readyz` only: the process drains after SIGTERM, or the database's migrations and the code's differ. */
  NOT_READY: 503,
  /** The file store (S3) cannot be reached or fails: nothing was stored or read; retry shortly. */
  STORAGE_UNAVAILABLE: 503,
  /** The disk under the database or the file store is full: nothing was written. */
  STORAGE_FULL: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  /** JSON pointer into the request body or query, e.g. `/queryPlans/0/tcaseIds`. */
  path: string;
  message: string;
}

/** The only error services throw; the HTTP layer turns it into the D7 body. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string, path?: string) =>
  new AppError('VALIDATION_FAILED', message, path === undefined ? undefined : [{ path, message }]);
/**
 * A 400 listing every problem found in a request (D7 `details`); the message joins them unless one is given.
 */
export const validationFailed = (errors: ErrorDetail[], message = errors.map((e) => e.message).join('; ')) =>
  new AppError('VALIDATION_FAILED', message, errors);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const unauthorized = (message: string) => new AppError('UNAUTHORIZED', message);
