import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../errors.js';
import { addHostileInputKeywords } from './hostile-input.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    // D8: bodies are never coerced and unknown fields are errors; query strings are coerced.
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    // docs/api-decisions.md (hostile input): NaN and Infinity (`1e309`) are not numbers a client may send.
    strictNumbers: true,
  });
  addFormats(ajv);
  addHostileInputKeywords(ajv);
  ajv.addKeyword({ keyword: 'x-split-commas' });
  return ajv;
}

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

/** Property names of a query schema whose value is an array: `include=a,b` is split into `['a','b']`. */
function arrayProps(schema: QuerySchema | undefined): string[] {
  const props = schema?.properties ?? {};
  return Object.keys(props).filter((k) => props[k]?.type === 'array');
}

/** What the query-string wrapper reads of a route's schema: which properties (or patterns) take lists. */
interface QuerySchema {
  properties?: Record<string, { type?: unknown } | undefined>;
  patternProperties?: Record<string, { type?: unknown } | undefined>;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return strictAjv.compile(schema as object);
  const validate: ValidateFunction = coercingAjv.compile(schema as object);
  if (httpPart !== 'querystring') return validate;
  const query = schema as QuerySchema | undefined;
  const lists = arrayProps(query);
  const patternLists = Object.entries(query?.patternProperties ?? {})
    .filter(([, s]) => s?.type === 'array')
    .map(([p]) => new RegExp(p));
  const wrapped = ((data: Record<string, unknown>) => {
    if (data && typeof data === 'object') {
      for (const key of Object.keys(data)) {
        if (!lists.includes(key) && !patternLists.some((re) => re.test(key))) continue;
        const value = data[key];
        const values = Array.isArray(value) ? value : [value];
        data[key] = values.flatMap((v) =>
          typeof v === 'string' ? v.split(',').filter((s) => s !== '') : [v],
        );
      }
    }
    const ok = validate(data);
    (wrapped as { errors?: ValidateFunction['errors'] }).errors = validate.errors;
    return ok;
  }) as unknown as ValidateFunction;
  return wrapped;
};

/** Turns Ajv errors into D7 details with JSON-pointer paths that name the offending field. */
export function toErrorDetails(errors: ErrorObject[], part: string): ErrorDetail[] {
  return errors.map((e) => {
    const base = e.instancePath || '';
    if (e.keyword === 'additionalProperties') {
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      return { path: `${base}/${field}`, message: `unknown field "${field}"` };
    }
    if (e.keyword === 'required') {
      const field = (e.params as { missingProperty: string }).missingProperty;
      return { path: `${base}/${field}`, message: `"${field}" is required` };
    }
    const where = base === '' ? part : `"${base.slice(1)}"`;
    return { path: base || '/', message: `${where} ${e.message ?? 'is invalid'}` };
  });
}
