import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
export const OPENAPI_PATH = '/api/public/v0/openapi.json';
/** The OpenAPI 3 document is generated from the route schemas; `/docs` serves an interactive page over it. */
export async function installOpenApi(app, publicUrl) {
    await app.register(swagger, {
        openapi: {
            openapi: '3.0.3',
            info: {
                title: 'Casebook public API',
                version: 'v0',
                description: 'The QA Sphere public API v0, served by Casebook. Authenticate with `Authorization: ApiKey <key>` (or `Bearer <key>`).',
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
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
//# sourceMappingURL=openapi.js.map