import createClient, { type Middleware } from 'openapi-fetch';
import { takePreloaded } from './preload';
import type { paths } from './schema';

/** D7: the body of every non-2xx answer. */
export interface ErrorBody {
  message: string;
  code: string;
  details?: { path: string; message: string }[];
}

/** A non-2xx answer, with its D7 body; field errors are keyed by their body field (`/code` → `code`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly retryAfterSeconds?: number,
  ) {
    super(body.message);
    this.name = 'ApiError';
  }

  get code(): string {
    return this.body.code;
  }

  /** Messages by top-level field, for React Aria's `validationErrors`. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const d of this.body.details ?? []) {
      const field = d.path.split('/')[1];
      if (field && !out[field]) out[field] = d.message;
    }
    return out;
  }
}

let sessionExpired: (() => void) | undefined;

/** The router says where a person goes when their session ends mid-work (sign-in, then back). */
export function onSessionExpired(handler: () => void): void {
  sessionExpired = handler;
}

const expiry: Middleware = {
  onResponse({ request, response }) {
    // A 401 outside sign-in means the session cookie is gone or expired.
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/auth/'))
      sessionExpired?.();
    return undefined;
  },
};

/** The typed client of the service's API (session cookie, same origin: D4). */
export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  // The first requests of a cold load may already be on their way (web/src/boot.ts).
  fetch: (request) => takePreloaded(request) ?? fetch(request),
});
api.use(expiry);

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a 2xx answer, or an ApiError carrying the D7 body. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body: ErrorBody =
    error && typeof error === 'object' && 'message' in error
      ? (error as ErrorBody)
      : { message: `The service answered ${response.status}`, code: 'HTTP_' + response.status };
  const retry = Number(response.headers.get('retry-after'));
  throw new ApiError(response.status, body, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

export const isApiError = (e: unknown, status?: number): e is ApiError =>
  e instanceof ApiError && (status === undefined || e.status === status);

/**
 * Whether asking again could go differently: a failed connection, a timeout, a rate limit or a server error may
 * pass; the service's own refusals (no such thing, no access, a bad request) stay the same.
 */
export const isTransient = (e: unknown): boolean =>
  !isApiError(e) || e.status >= 500 || e.status === 408 || e.status === 429;
