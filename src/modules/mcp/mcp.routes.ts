import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { AppError } from '../../errors.js';
import { hardenSchema } from '../../http/hostile-input.js';
import { toErrorDetails, validatorCompiler } from '../../http/validation.js';
import { buildMcpServer, MCP_TOOLS } from './mcp.server.js';
import { ToolSet, type CompileArgs } from './mcp.tools.js';

/** A tool's arguments are checked as a route's query or body is: the same compiler, limits and messages. */
const compileArgs: CompileArgs = (schema, like) => {
  const validate = validatorCompiler({
    schema: hardenSchema(schema) as object,
    httpPart: like === 'query' ? 'querystring' : 'body',
    method: 'POST',
    url: '/api/mcp',
  }) as ValidateFunction;
  return (input) =>
    validate(input) ? undefined : toErrorDetails((validate.errors ?? []) as ErrorObject[], 'arguments');
};

/** The request as the SDK's web-standard transport reads it; the body Fastify parsed is handed over apart. */
function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://mcp.invalid${req.url}`, { method: req.method, headers });
}

/**
 * QA Sphere's MCP endpoint (streamable HTTP, stateless). Authentication is the API's own (http/auth.ts: API
 * keys as `Bearer` or `ApiKey`, tenants, suspension) and so are the rate limits; each tool then checks the role
 * of the route it stands for.
 */
export const mcpRoutes: FastifyPluginAsync = async (app) => {
  const { db, ctx, config } = app;
  const tools = new ToolSet(MCP_TOOLS, compileArgs);

  // MCP authorization (RFC 9728 §5.1): a 401 names where the client finds how to sign a person in. The body stays
  // the API's JSON error. `invalid_token` when a token was sent and refused (expired, revoked).
  app.addHook('onError', async (req, reply, error) => {
    if (!(error instanceof AppError) || error.code !== 'UNAUTHORIZED') return;
    const origin = req.host
      ? new URL(`${req.protocol}://${req.host}`).origin
      : new URL(config.publicUrl).origin;
    const invalid = req.headers.authorization ? ', error="invalid_token"' : '';
    reply.header(
      'www-authenticate',
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api/mcp"${invalid}`,
    );
  });

  app.post(
    '/mcp',
    // JSON-RPC, not a REST shape: out of the OpenAPI document (docs/routes.md still lists it).
    { schema: { hide: true } },
    async (req, reply) => {
      const server = buildMcpServer(tools, { db, ctx, actor: req.actor }, req.log);
      // Stateless with JSON answers: no session to keep between requests, so any process can answer any call.
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        const answer = await transport.handleRequest(webRequest(req), { parsedBody: req.body });
        return await relay(answer, reply);
      } finally {
        await server.close();
      }
    },
  );

  // A stateless server keeps no stream open for server-initiated messages nor sessions to end: 405, as the
  // transport specification allows (clients then use POST alone).
  const notHere = { schema: { hide: true } };
  const methodNotAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send POST' },
        id: null,
      });
  app.get('/mcp', notHere, methodNotAllowed);
  app.delete('/mcp', notHere, methodNotAllowed);
};

/** The transport's answer through Fastify's reply, so the request log, request id and metrics see it. */
async function relay(answer: Response, reply: FastifyReply) {
  reply.code(answer.status);
  answer.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  const body = await answer.text();
  return reply.send(body === '' ? undefined : body);
}
