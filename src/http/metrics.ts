import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import { errorCodeOf, send } from './error-handler.js';

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest();

/**
 * `GET /metrics` (Prometheus text format) behind its own token: `Authorization: Bearer <CASEBOOK_METRICS_TOKEN>`,
 * compared in constant time (of the hashes, so the length leaks nothing either). Off unless the token is set: then
 * the route still exists and answers 404, so the web application's fallback never serves a page there. While on,
 * every answer is counted per route pattern (`/api/public/v0/project/:projectCode`, never the raw URL, so the
 * labels stay few) with its time. `read` answers the text: this app's registry, or the cluster's sum
 * (metrics/cluster.ts).
 */
export function installMetrics(
  app: FastifyInstance,
  config: Config,
  metrics: Metrics,
  read: () => Promise<string>,
): void {
  const token = config.metricsToken;
  const expected = token === undefined ? undefined : sha256(`Bearer ${token}`);
  app.get(
    '/metrics',
    { config: { access: { public: true } }, schema: { hide: true } },
    async (req, reply) => {
      if (!expected)
        return send(reply, 'NOT_FOUND', 'metrics are off: set CASEBOOK_METRICS_TOKEN to turn them on');
      const given = req.headers.authorization ?? '';
      if (!crypto.timingSafeEqual(sha256(given), expected)) {
        reply.header('www-authenticate', 'Bearer');
        return send(reply, 'UNAUTHORIZED', 'metrics need "Authorization: Bearer <CASEBOOK_METRICS_TOKEN>"');
      }
      const text = await read();
      return reply.type(metrics.registry.contentType).send(text);
    },
  );
  if (!expected) return;

  // A callback hook, not an async one: no promise per response.
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? '(no route)';
    const method = req.method;
    metrics.httpRequests.inc({ method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
    const code = errorCodeOf(reply);
    if (code) metrics.errors.inc({ code });
    done();
  });
}
