import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import type { Config } from '../config.js';
import type { Db } from '../db/create-db.js';
import { sharedRateLimitCounter, type RateLimitCounter } from '../db/rate-limit-counters.js';
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

type StoreResult = { current: number; ttl: number };

/**
 * @fastify/rate-limit's store interface over the `rate_limit_counters` table (PostgreSQL): every process and
 * machine on the database counts a bucket together, one upsert per request. Routes have no limits of their own,
 * so `child` (a route's own store) is never asked for; it answers the same counters.
 */
function databaseStore(count: RateLimitCounter) {
  return class DatabaseStore {
    incr(bucket: string, cb: (err: Error | null, res?: StoreResult) => void, timeWindow: number): void {
      count(bucket, timeWindow).then(
        ({ hits, ttlMs }) => cb(null, { current: hits, ttl: ttlMs }),
        (err: Error) => cb(err),
      );
    }
    child() {
      return this;
    }
  };
}

/** How long a connection to Redis, or one of its commands, may take before the request goes on uncounted. */
const REDIS_TIMEOUT_MS = 500;
const REDIS_WARNING_EVERY_MS = 60_000;

/** Where the counters live: Redis when configured, the database on PostgreSQL, else (SQLite) this process. */
async function storeOptions(
  app: FastifyInstance,
  config: Config,
  db: Db,
): Promise<Partial<RateLimitPluginOptions>> {
  if (config.redisUrl) {
    // Loaded only here: a service without Redis does not carry its client (about 20 MB resident).
    const { Redis } = await import('ioredis');
    const redis = new Redis(config.redisUrl, {
      // Fail fast while Redis is away: a command fails at once (nothing queued, no retry) and the request goes
      // on uncounted (skipOnError below), while the client reconnects in the background.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: REDIS_TIMEOUT_MS,
      commandTimeout: REDIS_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
      lazyConnect: false,
    });
    // Once a minute at most: the client fails every reconnection attempt while Redis is away.
    let warnedAt = -Infinity;
    redis.on('error', (err) => {
      app.ctx.metrics.redisErrors.inc();
      if (Date.now() - warnedAt < REDIS_WARNING_EVERY_MS) return;
      warnedAt = Date.now();
      app.log.warn({ err }, 'Redis (rate limits) unavailable: requests are served uncounted');
    });
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
    // A starting instance waits for its first connection, at most the timeout: its first requests are counted
    // (without the offline queue they would pass uncounted until the connection is up).
    await new Promise<void>((resolve) => {
      if (redis.status === 'ready') return resolve();
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, REDIS_TIMEOUT_MS);
      redis.once('ready', done);
    });
    // Fail open: a limit protects the service, so Redis being away must not take the API down with it (logged).
    return { redis, nameSpace: `${config.redisPrefix}rate-limit:`, skipOnError: true };
  }
  const shared = sharedRateLimitCounter(db);
  return shared ? { store: databaseStore(shared) as unknown as RateLimitPluginOptions['store'] } : {};
}

/**
 * D14: rate limiting, off unless `rateLimitPerMinute` > 0; over the limit → 429 with `Retry-After` and the
 * D7 body. Only the APIs count (the public and private API, SCIM; not health checks or docs). The counters are shared by every process and machine:
 * in Redis when CASEBOOK_REDIS_URL is set, else in PostgreSQL; SQLite (one machine) counts in each process's
 * memory, so `serve --workers N` on SQLite lets a key make up to N × the limit.
 */
export async function installRateLimit(app: FastifyInstance, config: Config, db: Db): Promise<void> {
  if (config.rateLimitPerMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: bucketOf,
    ...(await storeOptions(app, config, db)),
    allowList: (request) => {
      const url = request.routeOptions.url ?? '';
      return !url.startsWith('/api/') && !url.startsWith('/scim/');
    },
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'RATE_LIMITED',
        `rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
      ),
  });
}
