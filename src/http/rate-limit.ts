import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { addressKey } from '../lib/ip.js';

/**
 * D14: the bucket a request counts against. The authenticated caller, not the raw header: keying on a key
 * id read from an unchecked header would let anyone drain someone else's budget by naming their key.
 * Runs after authentication (the limiter is a route hook, after the app-level auth hook); requests
 * without an actor (sign-in, public routes) count per address (an IPv6 address by its /64: lib/ip.ts).
 */
function bucketOf(request: FastifyRequest): string {
  const actor = request.actor;
  if (actor?.apiKeyId) return `key:${actor.tenantId}.${actor.apiKeyId}`;
  if (actor) return `user:${actor.tenantId}.${actor.userId}`;
  return `ip:${addressKey(request.ip)}`;
}

/**
 * D14: rate limiting, off unless `rateLimitPerMinute` > 0; over the limit → 429 with `Retry-After` and the
 * D7 body. Only the APIs count (not health checks or docs). The counters live in each process's memory:
 * with N processes behind a balancer a key can make up to N × the limit; a shared store (Redis, which
 * the plugin supports) would be needed for an exact cluster-wide limit.
 */
export async function installRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  if (config.rateLimitPerMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: bucketOf,
    allowList: (request) => !(request.routeOptions.url ?? '').startsWith('/api/'),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'RATE_LIMITED',
        `rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
      ),
  });
}
