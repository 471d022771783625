import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { Actor } from '../../auth/actor.js';
import { atLeast, type Role } from '../../auth/roles.js';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/create-db.js';
import { AppError, type ErrorDetail } from '../../errors.js';

/** What a tool is handed: the same database, context and caller a route's handler has. */
export interface ToolEnv {
  db: Db;
  ctx: AppContext;
  actor: Actor;
}

/**
 * One MCP tool: the arguments are a route's own TypeBox schemas (params, query or body) under the names the
 * QA Sphere MCP server gave them, and `run` calls the route's service with the caller's actor.
 */
export interface McpTool<S extends TObject = TObject> {
  name: string;
  description: string;
  input: S;
  /** The route's minimum role (D3); every tool that writes names the role its route does. */
  minRole: Role;
  /** Arguments that mirror a query string are read as the route reads its query (lists may be one value). */
  argsLike: 'query' | 'body';
  /** The route's response schema: the answer carries what the API's would, nothing a service keeps inside. */
  output?: TSchema;
  run: (env: ToolEnv, args: Static<S>) => Promise<unknown>;
}

/** Declares a tool with its arguments typed by its schema. */
export const tool = <S extends TObject>(t: McpTool<S>): McpTool => t as unknown as McpTool;

/**
 * Compiles a tool's argument check as the API compiles a route's (the route file hands it over: http/ is the
 * routes' business): `query` as a query string is read, `body` as a body. The check answers the problems found.
 */
export type CompileArgs = (
  schema: TObject,
  like: 'query' | 'body',
) => (input: unknown) => ErrorDetail[] | undefined;

/** The API's `{message}` and `{id}` answers, for the tools that stand for routes answering them. */
export const MessageBody = Type.Object({ message: Type.String() });
export const IdNumber = Type.Object({ id: Type.Integer() });

/** A project as QA Sphere's tools name it (`projectCode`); like the API, its id or any case of its code also works. */
export const ProjectCode = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Project code identifier (e.g., BDI); the project id works too',
});

type PropsOf<P> = P extends TObject<infer Q> ? Q : P;
/** The properties of several parts, a later part's winning as at run time. */
type Merged<Ps extends unknown[], Acc = object> = Ps extends [infer H, ...infer R]
  ? Merged<R, Omit<Acc, keyof PropsOf<H>> & PropsOf<H>>
  : { [K in keyof Acc]: Acc[K] };

type AsProps<T> = T extends TProperties ? T : never;

/** Arguments made of a route's schemas: their properties merged, unknown fields refused as the body's are. */
export function args<Ps extends Array<TObject | TProperties>>(...parts: Ps): TObject<AsProps<Merged<Ps>>> {
  const properties: Record<string, TSchema> = {};
  for (const part of parts) {
    const props = (part as TObject).type === 'object' ? (part as TObject).properties : part;
    Object.assign(properties, props);
  }
  return Type.Object(properties, { additionalProperties: false }) as unknown as TObject<AsProps<Merged<Ps>>>;
}

/** The result of a tool call as MCP carries it: JSON text, or the D7 error body with `isError`. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

const errorResult = (error: AppError): ToolResult => ({
  content: [
    {
      type: 'text',
      text: JSON.stringify({
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      }),
    },
  ],
  isError: true,
});

/** A registry of tools with their validators compiled once, as Fastify compiles a route's. */
export class ToolSet {
  private readonly validators = new Map<string, (input: unknown) => ErrorDetail[] | undefined>();

  constructor(
    readonly tools: McpTool[],
    compile: CompileArgs,
  ) {
    for (const t of tools) {
      if (this.validators.has(t.name)) throw new Error(`MCP tool "${t.name}" is declared twice`);
      this.validators.set(t.name, compile(t.input, t.argsLike));
    }
  }

  /** The tools a role may call (QA Sphere's hosted server lists only those). */
  listFor(role: Role): McpTool[] {
    return this.tools.filter((t) => atLeast(role, t.minRole));
  }

  /**
   * Calls a tool as the route would run: role first (403's message), then the arguments (400's), then the
   * service. Errors a client can act on come back as tool errors with the D7 body; others are thrown.
   */
  async call(env: ToolEnv, name: string, rawArgs: unknown): Promise<ToolResult> {
    const t = this.tools.find((x) => x.name === name);
    const validate = this.validators.get(name);
    if (!t || !validate) return errorResult(new AppError('NOT_FOUND', `there is no tool named "${name}"`));
    if (!atLeast(env.actor.role, t.minRole)) {
      return errorResult(
        new AppError('FORBIDDEN', `this needs the role ${t.minRole} or higher; you are ${env.actor.role}`),
      );
    }
    // The validator fills defaults and splits query lists in place: it gets a copy of the client's arguments.
    const input = structuredClone(rawArgs ?? {}) as Record<string, unknown>;
    const details = validate(input);
    if (details) {
      return errorResult(
        new AppError(
          'VALIDATION_FAILED',
          `Invalid arguments: ${details.map((d) => d.message).join('; ')}`,
          details,
        ),
      );
    }
    try {
      const answer = await t.run(env, input as never);
      const shown =
        t.output && answer !== null && typeof answer === 'object' ? clean(t.output, answer) : answer;
      return { content: [{ type: 'text', text: JSON.stringify(shown ?? null) }] };
    } catch (err) {
      if (err instanceof AppError) return errorResult(err);
      throw err;
    }
  }
}

/** What the route's serializer would keep of an answer: the properties its response schema names. */
export function clean(schema: TSchema, answer: object): unknown {
  return Value.Clean(schema, JSON.parse(JSON.stringify(answer)));
}
