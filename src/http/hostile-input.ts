import type { Ajv, SchemaValidateFunction } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';

/**
 * docs/api-decisions.md#hostile-input: what a request may carry is decided once, here, for every route — not route by route. Each
 * route's params, query and body schema is rewritten when the route is registered (app.ts, onRoute),
 * so validation and the OpenAPI document state the same limits:
 *
 * - integers without a stated maximum (minimum) are bounded to the 32-bit integer columns of both
 *   databases; a field whose column is wider says so with its own `maximum`;
 * - strings without the `x-html` mark (names, titles, codes, ids, search terms) refuse NUL, which
 *   PostgreSQL cannot store; `x-html` strings (HTML fields, result and run-log comments: free text that
 *   comes from test output) have their NULs removed instead, so one NUL in a stack trace fails nothing;
 * - free-form JSON (a schema that allows anything, e.g. `links[].meta`) is bounded in depth and size.
 *
 * Ajv's `strictNumbers` (validation.ts) refuses NaN and Infinity (`1e309`).
 */

export const INT32_MAX = 2_147_483_647;
export const INT32_MIN = -2_147_483_648;
/** Nesting and serialised size allowed to free-form JSON values. */
export const FREE_JSON_MAX_DEPTH = 16;
export const FREE_JSON_MAX_BYTES = 16 * 1024;
/** Every HTML field: generous enough for CI output (a stack trace in a result comment). */
export const HTML_MAX_LENGTH = 256 * 1024;

// eslint-disable-next-line no-control-regex -- NUL is exactly what is looked for
const NUL = /\u0000/;
// eslint-disable-next-line no-control-regex -- NUL is exactly what is removed
const NULS = /\u0000/g;

// A JSON schema walked generically: its keywords hold values of every kind.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

/** A schema that allows any value (TypeBox's `Type.Unknown()` / `Type.Any()`): free-form JSON. */
function isFree(schema: Schema): boolean {
  return (
    schema.type === undefined &&
    schema.anyOf === undefined &&
    schema.oneOf === undefined &&
    schema.allOf === undefined &&
    schema.enum === undefined &&
    schema.const === undefined &&
    schema.$ref === undefined &&
    schema.not === undefined
  );
}

/** A record of anything (`Type.Record(Type.String(), Type.Unknown())`): limited as one free value. */
function freeValues(s: Schema): boolean {
  const values = [
    ...Object.values(s.patternProperties ?? {}),
    ...(s.additionalProperties === undefined ? [] : [s.additionalProperties]),
  ];
  return values.length > 0 && values.every((v) => v === true || (typeof v === 'object' && isFree(v)));
}

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/** A copy of a request schema with the limits above; shared schema objects are never changed. */
export function hardenSchema(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s: Schema = { ...(schema as Schema) };
  if (isFree(s)) {
    s['x-free-json'] = true;
    return s;
  }
  const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('number') || types.includes('integer')) s['x-finite'] = true;
  if (types.includes('integer')) {
    if (s.maximum === undefined && s.exclusiveMaximum === undefined) s.maximum = INT32_MAX;
    if (s.minimum === undefined && s.exclusiveMinimum === undefined) s.minimum = INT32_MIN;
  }
  if (types.includes('string') && s.enum === undefined && s.const === undefined) {
    if (s['x-html']) s['x-strip-nul'] = true;
    else s['x-no-nul'] = true;
  }
  if (s.properties) {
    s.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, hardenSchema(v)]));
  }
  if (s.patternProperties) {
    s.patternProperties = Object.fromEntries(
      Object.entries(s.patternProperties).map(([k, v]) => [k, hardenSchema(v)]),
    );
  }
  // `true` or a schema: both may hold anything the client sends.
  if (s.additionalProperties === true) s.additionalProperties = { 'x-free-json': true };
  else if (typeof s.additionalProperties === 'object')
    s.additionalProperties = hardenSchema(s.additionalProperties);
  if (s.propertyNames) s.propertyNames = hardenSchema(s.propertyNames);
  if (s.items) s.items = Array.isArray(s.items) ? s.items.map(hardenSchema) : hardenSchema(s.items);
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(s[key])) s[key] = s[key].map(hardenSchema);
  if (types.includes('object') && !s.properties && freeValues(s)) s['x-free-json'] = true;
  // An object's keys are strings that reach the database too (custom-field names, meta keys).
  if (types.includes('object') && !s.propertyNames) s.propertyNames = { 'x-no-nul': true };
  return s;
}

/** Depth of a JSON value, stopping as soon as it passes `max` (never recursing deeper than that). */
function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    if (deeperThan(v, max - 1)) return true;
  }
  return false;
}

/** Whether a free JSON value holds a NUL in any string or key (depth already bounded). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return NUL.test(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  return Object.entries(value).some(([k, v]) => NUL.test(k) || holdsNul(v));
}

/** The keywords hardenSchema adds, on an Ajv instance. */
export function addHostileInputKeywords(ajv: Ajv): void {
  ajv.addKeyword({ keyword: 'x-html' });
  // Untyped on purpose: a query string `1e309` is coerced to Infinity, which Ajv (strictNumbers) then no
  // longer counts as a number, so its own number keywords (maximum) are skipped; this one still runs.
  const finite: SchemaValidateFunction = (_schema: boolean, data: unknown) => {
    if (typeof data !== 'number' || Number.isFinite(data)) return true;
    finite.errors = [{ keyword: 'x-finite', message: 'must be a finite number' }];
    return false;
  };
  ajv.addKeyword({ keyword: 'x-finite', schemaType: 'boolean', errors: true, validate: finite });
  const noNul: SchemaValidateFunction = (_schema: boolean, data: string) => {
    if (!NUL.test(data)) return true;
    noNul.errors = [{ keyword: 'x-no-nul', message: 'must not contain a NUL character' }];
    return false;
  };
  ajv.addKeyword({
    keyword: 'x-no-nul',
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: noNul,
  });
  ajv.addKeyword({
    keyword: 'x-strip-nul',
    type: 'string',
    schemaType: 'boolean',
    modifying: true,
    validate: (_schema: boolean, data: string, _parent?: unknown, ctx?: DataValidationCxt) => {
      if (ctx?.parentData !== undefined && NUL.test(data)) {
        ctx.parentData[ctx.parentDataProperty] = data.replace(NULS, '');
      }
      return true;
    },
  });
  const freeJson: SchemaValidateFunction = (_schema: boolean, data: unknown) => {
    if (deeperThan(data, FREE_JSON_MAX_DEPTH)) {
      freeJson.errors = [
        { keyword: 'x-free-json', message: `must not be nested deeper than ${FREE_JSON_MAX_DEPTH} levels` },
      ];
      return false;
    }
    if (Buffer.byteLength(JSON.stringify(data) ?? '') > FREE_JSON_MAX_BYTES) {
      freeJson.errors = [
        { keyword: 'x-free-json', message: `must not be larger than ${FREE_JSON_MAX_BYTES} bytes as JSON` },
      ];
      return false;
    }
    if (holdsNul(data)) {
      freeJson.errors = [{ keyword: 'x-free-json', message: 'must not contain a NUL character' }];
      return false;
    }
    return true;
  };
  ajv.addKeyword({ keyword: 'x-free-json', schemaType: 'boolean', errors: true, validate: freeJson });
}
