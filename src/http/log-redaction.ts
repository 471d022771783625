import type { FastifyRequest } from 'fastify';

// Request URLs reach the log (each request's "request completed" line: request-log.ts); the tokens some of them carry must not. A URL is logged with
// its secret path segments and query values replaced (docs/operations.md#what-the-log-never-holds):
// - a route names its secret path parameters in its config: `config: { secretParams: ['token'] }`;
// - the web application's pages that carry a token are declared in SECRET_PAGES (they are served by one wildcard
//   route, and an address without a route, a 404, is redacted by them too);
// - the values of the query parameters in SECRET_QUERY_PARAMS are replaced on every URL.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Path parameters whose values are secrets: they are replaced when the request's URL is logged. */
    secretParams?: string[];
  }
}

/** The marker that stands for a secret in the log, as everywhere else the log and the audit mask one (app.ts, lib/redact.ts). */
export const REDACTED = '****';

/**
 * The pages whose address carries a token: `:secret` marks the segment (and what follows it). Matched in any
 * case and percent-encoding, as the web router finds them (`/Invite/<token>` opens the invitation page too).
 */
export const SECRET_PAGES = ['/invite/:secret', '/reset-password/:secret', '/shared/:secret'];

/** Query parameters that carry codes or tokens, wherever they appear (lower case). */
export const SECRET_QUERY_PARAMS = new Set([
  'token',
  'code',
  'user_code',
  'device_code',
  'refresh_token',
  'access_token',
  'id_token',
  'key',
  'api_key',
  'apikey',
  'secret',
  'password',
  'signature',
]);

const segmentsOf = (pattern: string) => pattern.split('/').slice(1);

/** A path segment as a router compares it: percent-decoded and, since the web router ignores case, in lower case. */
function comparable(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/** Replaces the segments of `path` that `pattern` marks secret (`:name` with `isSecret(name)`); undefined when it does not match. */
function redactByPattern(
  path: string,
  pattern: string,
  isSecret: (name: string) => boolean,
): string | undefined {
  const want = segmentsOf(pattern);
  const have = path.split('/').slice(1);
  if (have.length < want.length) return undefined;
  const out = [...have];
  for (let i = 0; i < want.length; i++) {
    const w = want[i];
    if (w.startsWith(':')) {
      if (isSecret(w.slice(1))) out[i] = REDACTED;
    } else if (w === '*') {
      break;
    } else if (comparable(w) !== comparable(have[i])) {
      return undefined;
    }
  }
  return `/${out.join('/')}`;
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // An undecodable name is compared as it is.
      }
      return eq !== -1 && SECRET_QUERY_PARAMS.has(name.toLowerCase()) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * A request URL as the log may show it. `routeUrl` and `secretParams` are the matched route's pattern and its
 * declared secret parameters, when there is a route.
 */
export function redactUrl(url: string, routeUrl?: string, secretParams: string[] = []): string {
  const q = url.indexOf('?');
  let path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q + 1);
  if (routeUrl && secretParams.length > 0) {
    path = redactByPattern(path, routeUrl, (name) => secretParams.includes(name)) ?? path;
  }
  for (const page of SECRET_PAGES) {
    const redacted = redactByPattern(path, page, () => true);
    if (redacted !== undefined) {
      // Whatever follows the token is the token's business too.
      const depth = segmentsOf(page).length;
      path = `/${redacted
        .split('/')
        .slice(1, depth + 1)
        .join('/')}`;
      break;
    }
  }
  return q === -1 ? path : `${path}?${redactQuery(query)}`;
}

/** The log's `req` serializer: Fastify's own fields, with the URL redacted. */
export function serializeRequest(req: FastifyRequest) {
  const options = (req as Partial<FastifyRequest>).routeOptions;
  return {
    method: req.method,
    url: redactUrl(req.url ?? '', options?.url, options?.config?.secretParams),
    version: [req.headers?.['accept-version']].flat()[0],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}
