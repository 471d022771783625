import { filter as compileFilter, parse as parseFilter, type Filter } from 'scim2-parse-filter';
import { AppError, type ErrorCode } from '../../errors.js';

/*
 * What SCIM 2.0 (RFC 7643, RFC 7644) fixes whatever the resource: schema URNs, the error's scimType, filters and
 * paging of list answers. Filters are parsed and evaluated by scim2-parse-filter, never by hand.
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType =
  | 'invalidFilter'
  | 'invalidValue'
  | 'invalidPath'
  | 'invalidSyntax'
  | 'noTarget'
  | 'mutability'
  | 'uniqueness';

/** An AppError that also says SCIM's `scimType` (RFC 7644 §3.12); the SCIM routes answer it in SCIM's shape. */
export class ScimError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly scimType?: ScimType,
  ) {
    super(code, message);
  }
}

export const invalidValue = (message: string) => new ScimError('VALIDATION_FAILED', message, 'invalidValue');
export const uniqueness = (message: string) => new ScimError('CONFLICT', message, 'uniqueness');

/** Attributes compared exactly (RFC 7643: externalId is caseExact); every other string ignores case. */
const CASE_EXACT = /(^|\.)externalId$/i;

/** Lower-cases string values of a compare, except those of case-exact attributes. */
function foldCase(f: Filter): Filter {
  switch (f.op) {
    case 'and':
    case 'or':
      return { ...f, filters: f.filters.map(foldCase) };
    case 'not':
      return { ...f, filter: foldCase(f.filter) };
    case '[]':
      return { ...f, valFilter: foldCase(f.valFilter) };
    case 'pr':
      return f;
    default:
      return typeof f.compValue === 'string' && !CASE_EXACT.test(f.attrPath)
        ? { ...f, compValue: f.compValue.toLowerCase() }
        : f;
  }
}

/** The same object with every string lower-cased, except under case-exact keys: what filters are tested on. */
function folded(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return CASE_EXACT.test(key) ? value : value.toLowerCase();
  if (Array.isArray(value)) return value.map((v) => folded(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, folded(v, k)]));
  }
  return value;
}

/** Parses a filter (400 invalidFilter when it is not one) into a test of resources. */
export function resourceFilter(text: string | undefined): (resource: object) => boolean {
  if (text === undefined || text.trim() === '') return () => true;
  let parsed: Filter;
  try {
    parsed = parseFilter(text);
  } catch (err) {
    throw new ScimError(
      'VALIDATION_FAILED',
      `filter ${JSON.stringify(text)} is not a SCIM filter: ${(err as Error).message}`,
      'invalidFilter',
    );
  }
  const test = compileFilter(foldCase(parsed));
  return (resource) => test(folded(resource));
}

/** Parses a filter inside a PATCH path's brackets (`members[value eq "7"]`): 400 invalidPath when it is not one. */
export function valueFilter(text: string): (value: unknown) => boolean {
  try {
    const test = compileFilter(foldCase(parseFilter(text)));
    return (value) => test(folded(value));
  } catch (err) {
    throw new ScimError('VALIDATION_FAILED', `path filter ${text}: ${(err as Error).message}`, 'invalidPath');
  }
}

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
}

export const DEFAULT_COUNT = 100;
export const MAX_COUNT = 500;

/** RFC 7644 §3.4.2: filters, then a 1-based page; startIndex below 1 is 1, a negative count is 0. */
export function listResponse<T extends object>(all: T[], query: ListQuery) {
  const matching = all.filter(resourceFilter(query.filter));
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(MAX_COUNT, Math.max(0, query.count ?? DEFAULT_COUNT));
  const page = matching.slice(startIndex - 1, startIndex - 1 + count);
  return {
    schemas: [LIST_SCHEMA],
    totalResults: matching.length,
    startIndex,
    itemsPerPage: page.length,
    Resources: page,
  };
}

/**
 * A PATCH operation as every provider writes it: `op` in any letter case (Entra ID sends `Replace`), a path or
 * none (then `value` is an object of attributes).
 */
export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

export function patchOperations(body: unknown): PatchOperation[] {
  const b = body as { schemas?: unknown; Operations?: unknown };
  if (!Array.isArray(b?.schemas) || !b.schemas.includes(PATCH_SCHEMA) || !Array.isArray(b.Operations)) {
    throw new ScimError(
      'VALIDATION_FAILED',
      `a PATCH body has schemas ["${PATCH_SCHEMA}"] and Operations`,
      'invalidSyntax',
    );
  }
  return b.Operations.map((raw: unknown) => {
    const o = raw as { op?: unknown; path?: unknown; value?: unknown };
    const op = typeof o?.op === 'string' ? o.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError('VALIDATION_FAILED', `op must be add, replace or remove`, 'invalidSyntax');
    }
    if (o.path !== undefined && typeof o.path !== 'string') {
      throw new ScimError('VALIDATION_FAILED', 'path must be a string', 'invalidPath');
    }
    if (op === 'remove' && o.path === undefined) {
      throw new ScimError('VALIDATION_FAILED', 'remove needs a path', 'noTarget');
    }
    return { op, path: o.path as string | undefined, value: o.value };
  });
}

/**
 * A PATCH path split up: `emails[type eq "work"].value` → attribute `emails`, filter `type eq "work"`, sub-attribute
 * `value`. A path under a schema's URN keeps the URN apart (`urn:…:enterprise:2.0:User:department`).
 */
export interface PatchPath {
  schema?: string;
  attribute: string;
  filter?: string;
  subAttribute?: string;
}

export function splitPath(path: string): PatchPath {
  let rest = path.trim();
  let schema: string | undefined;
  if (rest.toLowerCase().startsWith('urn:')) {
    const bracket = rest.indexOf('[');
    const head = bracket === -1 ? rest : rest.slice(0, bracket);
    const colon = head.lastIndexOf(':');
    schema = rest.slice(0, colon);
    rest = rest.slice(colon + 1);
  }
  const m = /^([A-Za-z][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z][\w$-]*))?$/.exec(rest);
  if (!m)
    throw new ScimError(
      'VALIDATION_FAILED',
      `path ${JSON.stringify(path)} is not a SCIM path`,
      'invalidPath',
    );
  const [, attribute, filter, subAttribute] = m;
  return { schema, attribute, filter, subAttribute };
}

/** A User's SCIM id as the Casebook user id it is: undefined unless it is one (users.id is a 32-bit integer). */
export function userIdOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^[1-9]\d{0,9}$/.test(value)) return undefined;
  const n = Number(value);
  return n <= 2_147_483_647 ? n : undefined;
}

/** `true`, `false`, or the strings Entra ID sends (`"True"`, `"False"`): else 400 invalidValue. */
export function scimBoolean(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${name} must be true or false`);
}
