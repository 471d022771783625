import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ErrorCode,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../errors.js';
import type { ToolSet, ToolEnv, ToolResult } from './mcp.tools.js';
import { repositoryTools } from './tools/repository.tools.js';
import { runTools } from './tools/runs.tools.js';
import { importTools } from './tools/imports.tools.js';
import { getPrompt, PROMPTS } from './mcp.prompts.js';
import { readResource, RESOURCE_TEMPLATES } from './mcp.resources.js';

/** The service's version, as the initialize answer names it (src/ and dist/ both sit three levels below it). */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The JSON-RPC error code MCP names for a resource that cannot be read. */
const RESOURCE_NOT_FOUND = -32002;

/** Every tool: QA Sphere's MCP server's first, then the runs' and the imports'. */
export const MCP_TOOLS = [...repositoryTools, ...runTools, ...importTools];

const INSTRUCTIONS =
  'Casebook serves the QA Sphere API: projects hold test cases in folders; runs hold results. Name a project by ' +
  'its code (projectCode) and a test case by its marker (BDI-123) or sequence number. The tools listed are ' +
  'those your role allows.';

/** A tool error for a failure the caller cannot act on: what happened is logged, not told. */
const internalError = (): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify({ code: 'INTERNAL', message: 'Internal server error' }) }],
  isError: true,
});

/**
 * The MCP server of one request: stateless (a new one per request, as the SDK's stateless servers are), holding
 * the caller authenticated like any API request, so every tool runs with that caller's tenant and role.
 */
export function buildMcpServer(mcpTools: ToolSet, env: ToolEnv, log: FastifyBaseLogger): Server {
  const server = new Server(
    { name: 'casebook', title: 'Casebook (QA Sphere API)', version: VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcpTools.listFor(env.actor.role).map((t) => ({
      name: t.name,
      description: t.description,
      // TypeBox schemas are plain JSON Schema: the same objects the routes validate with.
      inputSchema: JSON.parse(JSON.stringify(t.input)) as { type: 'object' },
      annotations: { readOnlyHint: t.minRole === 'viewer' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      return await mcpTools.call(env, request.params.name, request.params.arguments);
    } catch (err) {
      log.error({ err, tool: request.params.name }, 'MCP tool failed');
      return internalError();
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await readResource(env, request.params.uri);
    } catch (err) {
      // A resource that is not there is a protocol error (the spec's -32002), with the API's message.
      if (err instanceof AppError) throw new McpError(RESOURCE_NOT_FOUND, err.message);
      log.error({ err, uri: request.params.uri }, 'MCP resource read failed');
      throw new McpError(ErrorCode.InternalError, 'Internal server error');
    }
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) =>
    getPrompt(request.params.name, request.params.arguments ?? {}),
  );
  return server;
}
