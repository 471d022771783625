import { Type, type Static } from 'typebox';
import { HTML_MAX_LENGTH } from './hostile-input.js';

/** D7: the body of every non-2xx answer. */
export const ErrorBody = Type.Object({
  message: Type.String(),
  code: Type.String(),
  requestId: Type.Optional(Type.String()),
  details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
});
export type ErrorBody = Static<typeof ErrorBody>;

/** Every error status a route can answer, for the OpenAPI document. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  402: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
};

export const MessageBody = Type.Object({ message: Type.String() });
export const IdString = Type.Object({ id: Type.String() });
export const IdNumber = Type.Object({ id: Type.Integer() });

/** `{project_id}` in a path: the project code (any case) or its id. */
export const ProjectParams = Type.Object({ project: Type.String({ minLength: 1, maxLength: 64 }) });
export type ProjectParams = Static<typeof ProjectParams>;

export const SortOrder = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);

/** A list query parameter: repeated keys or one comma-separated value. */
export const QueryList = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Array(item);

/**
 * HTML fields are strings sanitised on write (D22). `x-html` marks them as free text from test output:
 * NULs are removed rather than refused (hostile-input.ts); the length limit is generous for CI output.
 */
export const Html = (options: { maxLength?: number; description?: string } = {}) =>
  Type.String({ maxLength: HTML_MAX_LENGTH, ...options, 'x-html': true });

export const TimestampString = Type.String({ description: 'ISO 8601' });
