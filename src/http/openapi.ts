import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export const OPENAPI_PATH = '/api/public/v0/openapi.json';

/** The OpenAPI 3 document is generated from the route schemas; `/docs` serves an interactive page over it. */
export async function installOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Casebook public API',
        version: 'v0',
        description:
          'The QA Sphere public API v0, served by Casebook. Authenticate with `Authorization: ApiKey <key>` (or `Bearer <key>`).',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: '`ApiKey <key>` or `Bearer <key>`',
          },
        },
      },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiHooks: {
      onRequest: (request, reply, done) => {
        reply.header('content-security-policy', docsCsp(app, request.protocol));
        done();
      },
    },
  });
}

/**
 * The page's CSP: @fastify/swagger-ui's own static policy (its inline scripts and styles by hash), but
 * `upgrade-insecure-requests` only when the page itself came over HTTPS (directly or, with trustProxy,
 * through the proxy). On plain HTTP it would send the page's scripts to https:// and leave it blank.
 */
export function docsCsp(app: FastifyInstance, protocol: string): string {
  const { script, style } = (app as unknown as { swaggerCSP: { script: string[]; style: string[] } })
    .swaggerCSP;
  return [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' https: data:",
    "frame-ancestors 'self'",
    "img-src 'self' data: validator.swagger.io",
    "object-src 'none'",
    `script-src 'self' ${script.join(' ')}`,
    "script-src-attr 'none'",
    `style-src 'self' https: ${style.join(' ')}`,
    ...(protocol === 'https' ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}
