import fs from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import { createContext, type AppContext } from './context.js';
import type { Db } from './db/create-db.js';
import { installAuth } from './http/auth.js';
import {
  clientErrorHandler,
  frameworkErrors,
  installErrorHandling,
  StorageHealth,
} from './http/error-handler.js';
import { Drain, installDrain, readiness } from './http/readiness.js';
import { installMetrics } from './http/metrics.js';
import { addServerMetrics, createMetrics } from './metrics/metrics.js';
import { clusterMetricsReader } from './metrics/cluster.js';
import { queuedJobKinds } from './jobs/index.js';
import { installOpenApi, OPENAPI_PATH } from './http/openapi.js';
import { validatorCompiler } from './http/validation.js';
import { hardenSchema } from './http/hostile-input.js';
import { newUuid } from './lib/ids.js';
import { privateApiRoutes, publicApiRoutes, rootRoutes, scimApi } from './modules/index.js';
import cookie from '@fastify/cookie';
import { installRateLimit } from './http/rate-limit.js';
import { serializeRequest } from './http/log-redaction.js';
import { RequestLog } from './http/request-log.js';
import { DEFAULT_WEB_ROOT, installWebApp } from './http/web-app.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    config: Config;
    /** Built once here and handed to the services that need it (context.ts). */
    ctx: AppContext;
    /** Set at SIGTERM (main.ts): `/readyz` answers 503 from then on. */
    drain: Drain;
  }
}

export interface BuildAppOptions {
  config: Config;
  db: Db;
  /** A pino destination for tests that read the log; defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /**
   * The built web application (`web/dist`); tests point it at a fixture, and `null` serves none (the API's own
   * tests must not depend on whether the web application happens to be built).
   */
  webRoot?: string | null;
  /** A worker of `serve --workers N` (main.ts): `/metrics` answers the sum of every worker's. */
  clusterWorker?: boolean;
}

/** Logs never carry credentials: the Authorization and Cookie headers and Set-Cookie are redacted. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.token',
  '*.key',
];

/** The version in package.json: one folder up from this file, in src/ as in the build. */
function packageVersion(): string {
  const text = fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** Builds the whole HTTP application without listening: tests call `inject`, `main.ts` calls `listen`. */
export async function buildApp({
  config,
  db,
  logStream,
  webRoot,
  clusterWorker = false,
}: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            // `"level":"info"`, not pino's 30: what operators and log collectors read.
            formatters: { level: (label: string) => ({ level: label }) },
            redact: { paths: REDACT, censor: '****' },
            // Request URLs are logged without the tokens some carry (invitation, reset, device and share links).
            serializers: { req: serializeRequest },
            ...(logStream ? { stream: logStream } : {}),
          },
    // One line per request instead of Fastify's two (http/request-log.ts).
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    // A request reaching the server while it closes is served, not refused with Fastify's own 503
    // (http/readiness.ts: installDrain).
    return503OnClosing: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : newUuid();
    },
    // A hop count is accepted by Fastify (proxy-addr) though its types omit it.
    trustProxy: config.trustProxy as boolean | string,
    routerOptions: { ignoreTrailingSlash: true },
    ajv: { customOptions: { strict: false } },
    // docs/api-decisions.md#hostile-input: errors found before a route runs answer the D7 body too.
    clientErrorHandler,
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('db', db);
  app.decorate('config', config);
  const ctx = createContext(config, db, createMetrics(db, queuedJobKinds));
  app.decorate('ctx', ctx);
  const drain = new Drain();
  app.decorate('drain', drain);
  installDrain(app, drain);
  app.addHook('onClose', async () => {
    ctx.mailer?.close();
    ctx.files.storages.close();
  });
  app.setValidatorCompiler(validatorCompiler);
  // docs/api-decisions.md#hostile-input: every route's request schemas get the house limits (integers, NUL, free JSON) in one place.
  app.addHook('onRoute', (route) => {
    if (!route.schema) return;
    const schema = { ...route.schema };
    for (const part of ['params', 'querystring', 'body'] as const) {
      if (schema[part]) schema[part] = hardenSchema(schema[part]);
    }
    route.schema = schema;
  });

  // docs/api-decisions.md#wire-rules: clients send `Content-Type: application/json` with an empty body on body-less POSTs.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  // D8: the API speaks JSON only; without this, a text/plain body reaches validation as a string (400, not 415).
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    return jsonParser(req, body as string, done);
  });

  // Browsers that reached an HTTPS service once keep to HTTPS for a year (no downgrade to plain HTTP).
  const hsts = config.publicUrl.startsWith('https:');
  // A callback hook, not an async one: no promise per response.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (hsts) reply.header('strict-transport-security', 'max-age=31536000');
    done(null, payload);
  });

  const storage = new StorageHealth();
  installErrorHandling(app, storage);
  // D4: cookies are parsed before authentication reads the `session` cookie.
  await app.register(cookie);
  installAuth(app, db, config);
  // D14: after authentication, so the limit counts per authenticated key.
  await installRateLimit(app, config, db);
  await installOpenApi(app, config.publicUrl);

  app.get('/healthz', { config: { access: { public: true } }, schema: { hide: true } }, async () => ({
    status: 'ok',
  }));
  app.get('/readyz', { config: { access: { public: true } }, schema: { hide: true } }, async (req, reply) =>
    readiness(db, config.dataDir, storage, drain, req, reply, () => ctx.files.storages.reachable()),
  );
  const registry = ctx.metrics.registry;
  if (config.metricsToken) {
    addServerMetrics(ctx.metrics, { version: packageVersion(), draining: () => drain.draining });
  }
  installMetrics(
    app,
    config,
    ctx.metrics,
    clusterWorker && config.metricsToken ? clusterMetricsReader(registry) : () => registry.metrics(),
  );
  app.get(OPENAPI_PATH, { config: { access: { public: true } }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  await app.register(
    async (api) => {
      for (const routes of publicApiRoutes) await api.register(routes);
    },
    { prefix: '/api/public/v0' },
  );
  await app.register(
    async (api) => {
      for (const routes of privateApiRoutes) await api.register(routes);
    },
    { prefix: '/api' },
  );
  for (const routes of rootRoutes) await app.register(routes);
  await app.register(scimApi.routes, { prefix: scimApi.prefix });
  if (webRoot !== null) await installWebApp(app, webRoot ?? DEFAULT_WEB_ROOT);

  return app;
}
