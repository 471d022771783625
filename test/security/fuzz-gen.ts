import { fc } from '@fast-check/vitest';

/**
 * Hostile requests generated from the service's own OpenAPI document (docs/api-decisions.md#hostile-input): for each operation,
 * requests whose path parameters, query parameters or body carry values an attacker would try.
 */

export interface Param {
  name: string;
  in: 'path' | 'query';
  schema: any;
}

export interface Operation {
  method: string;
  /** OpenAPI form: `/api/public/v0/project/{project}`. */
  path: string;
  params: Param[];
  /** The JSON body's schema, when the operation takes one. */
  body?: any;
  multipart: boolean;
}

export interface HostileRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** What was hostile, for the failure message. */
  what: string;
}

/** Every operation of the document; `extra` adds routes the document hides (`METHOD /path/:param`). */
export function operationsFrom(doc: any, extra: string[] = []): Operation[] {
  const ops: Operation[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).filter((p: Param) => p.in === 'path' || p.in === 'query'),
        body: content['application/json']?.schema,
        multipart: 'multipart/form-data' in content,
      });
      seen.add(`${method.toUpperCase()} ${path}`);
    }
  }
  for (const route of extra) {
    const [method, raw] = route.split(' ');
    const path = raw.replace(/:(\w+)/g, '{$1}');
    if (seen.has(`${method} ${path}`) || path.includes('*')) continue;
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path' as const,
      schema: { type: 'string' },
    }));
    ops.push({ method, path, params, multipart: false, body: method === 'GET' ? undefined : {} });
  }
  return ops;
}

/** Strings that reached the database or the serialiser unchecked (before docs/api-decisions.md#hostile-input), and their relatives. */
export const HOSTILE_STRINGS = [
  '1e309',
  '-1e309',
  'Infinity',
  'NaN',
  '2147483648',
  '-2147483649',
  '9223372036854775807',
  '99999999999999999999',
  '1e19',
  '0x10',
  '-1',
  '0',
  '1.5',
  '',
  '\u0000',
  'a\u0000b',
  '%00',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '../../etc/passwd',
  "' OR 1=1 --",
  '💥',
  'x'.repeat(300),
  'true',
  'null',
  '[]',
  '{}',
  ',,,',
  '1,2147483648',
  'a,\u0000',
];

const hostileString = fc.constantFrom(...HOSTILE_STRINGS);

/** Placeholders for what JSON.stringify cannot write: a number literal that parses to Infinity, and
 * nesting 5,000 deep (its own stack would overflow); `toPayload` puts the text in. */
const INFINITE = '\u0001INFINITE';
const DEEP = '\u0001DEEP';
const DEEP_TEXT = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;

export const toPayload = (body: unknown): string =>
  JSON.stringify(body)
    .replaceAll(JSON.stringify(INFINITE), '1e309')
    .replaceAll(JSON.stringify(DEEP), DEEP_TEXT);

/** JSON values of every type and odd size; `deep` ones are built as text (see bodyText). */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(
    1e308,
    -1e308,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    -1,
    0,
    0.5,
    true,
    false,
    null,
    [],
    {},
    [null],
    { __proto__: 1 },
    JSON.parse('{"__proto__":{"x":1}}'),
    { constructor: 'x' },
    ['\u0000'],
    { a: '\u0000' },
  ),
  fc.constantFrom(INFINITE, DEEP),
  fc.integer(),
  fc.string({ maxLength: 20 }),
);

/** A plausible value for a schema, so that a request reaches past the first field. */
function plausible(schema: any): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object') return fc.constant('x');
  if (schema.anyOf) return plausible(schema.anyOf[0]);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'integer':
      return fc.integer({ min: 0, max: 5 });
    case 'number':
      return fc.double({ min: 0, max: 10, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(plausible(schema.items), { maxLength: 2 });
    case 'object':
      return bodyObject(schema, 0);
    default:
      return fc.string({ minLength: 1, maxLength: 8 });
  }
}

/** An object for a body schema: every property either plausible or hostile, at any depth. */
function bodyObject(schema: any, depth: number): fc.Arbitrary<unknown> {
  const props = Object.entries<any>(schema?.properties ?? {});
  if (props.length === 0 || depth > 2) return fc.dictionary(hostileString, hostileJson, { maxKeys: 3 });
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, s] of props) {
    const inner =
      s?.type === 'object'
        ? bodyObject(s, depth + 1)
        : s?.type === 'array' && s.items?.type === 'object'
          ? fc.array(bodyObject(s.items, depth + 1), { maxLength: 2 })
          : plausible(s);
    record[name] = fc.oneof({ weight: 2, arbitrary: inner }, { weight: 1, arbitrary: hostileJson });
  }
  return fc.record(record, { requiredKeys: [] });
}

/** Bodies that are not what the route expects at all. */
const rawBodies: fc.Arbitrary<{ payload: string; type: string; what: string }> = fc.constantFrom(
  { payload: '{"a":', type: 'application/json', what: 'truncated JSON' },
  { payload: '{"a":1,}', type: 'application/json', what: 'trailing comma' },
  { payload: '\u0000', type: 'application/json', what: 'NUL body' },
  { payload: 'null', type: 'application/json', what: 'null body' },
  { payload: '[]', type: 'application/json', what: 'array body' },
  { payload: '"str"', type: 'application/json', what: 'string body' },
  { payload: '1e309', type: 'application/json', what: 'number body' },
  { payload: `${'['.repeat(5000)}${']'.repeat(5000)}`, type: 'application/json', what: 'deep array' },
  { payload: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, type: 'application/json', what: 'deep object' },
  { payload: '{"__proto__":{"admin":true}}', type: 'application/json', what: '__proto__ key' },
  { payload: 'a=1&b=2', type: 'application/x-www-form-urlencoded', what: 'form body' },
  { payload: 'hello', type: 'text/plain', what: 'text body' },
  { payload: '<x/>', type: 'application/xml', what: 'xml body' },
  { payload: '{}', type: 'application/json; charset=latin1', what: 'odd charset' },
  {
    payload: '--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
    type: 'multipart/form-data; boundary=b',
    what: 'multipart without closing boundary',
  },
  { payload: 'abc', type: 'multipart/form-data', what: 'multipart without boundary' },
);

const encode = (v: string) => encodeURIComponent(v);

/** How a value goes into a URL: encoded, or `%00` kept as the three characters a client sends. */
const inUrl = (v: string) => (v === '%00' ? '%00' : encode(v));

/**
 * A hostile request for `op`: one hostile path parameter, hostile query parameters, a hostile JSON
 * body (when the operation takes one), or a body of the wrong kind. `valid` gives a working value for
 * a path parameter by name, so the other parts reach the route's code.
 */
export function hostileRequest(op: Operation, valid: (name: string) => string): fc.Arbitrary<HostileRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const buildPath = (override?: { name: string; value: string }) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      override && override.name === name ? inUrl(override.value) : encode(valid(name)),
    );
  const kinds: fc.Arbitrary<HostileRequest>[] = [];
  if (pathParams.length > 0) {
    kinds.push(
      fc.tuple(fc.constantFrom(...pathParams), hostileString).map(([p, value]) => ({
        method: op.method,
        url: buildPath({ name: p.name, value }),
        headers: {},
        what: `path ${p.name}=${JSON.stringify(value)}`,
      })),
    );
  }
  if (queryParams.length > 0) {
    kinds.push(
      fc
        .uniqueArray(fc.tuple(fc.constantFrom(...queryParams.map((p) => p.name)), hostileString), {
          minLength: 1,
          maxLength: 3,
          selector: ([n]) => n,
        })
        .map((pairs) => ({
          method: op.method,
          url: `${buildPath()}?${pairs.map(([n, v]) => `${n}=${inUrl(v)}`).join('&')}`,
          headers: {},
          what: `query ${JSON.stringify(Object.fromEntries(pairs))}`,
        })),
    );
  }
  if (op.body) {
    kinds.push(
      bodyObject(op.body, 0).map((body) => ({
        method: op.method,
        url: buildPath(),
        headers: { 'content-type': 'application/json' },
        payload: toPayload(body),
        what: `body ${JSON.stringify(body).slice(0, 300)}`,
      })),
    );
  }
  if (op.method !== 'GET' && op.method !== 'DELETE') {
    kinds.push(
      rawBodies.map((b) => ({
        method: op.method,
        url: buildPath(),
        headers: { 'content-type': b.type },
        payload: b.payload,
        what: b.what,
      })),
    );
  }
  if (kinds.length === 0) {
    kinds.push(
      fc.tuple(hostileString, hostileString).map(([n, v]) => ({
        method: op.method,
        url: `${buildPath()}?${inUrl(n)}=${inUrl(v)}`,
        headers: {},
        what: `unknown query ${JSON.stringify(n)}=${JSON.stringify(v)}`,
      })),
    );
  }
  return fc.oneof(...kinds);
}

/** The values every parameter and body field gets in the sweep: the cases the hostile-input rules were written for. */
export const SWEEP_STRINGS = [
  '1e309',
  'Infinity',
  '2147483648',
  '99999999999999999999',
  '\u0000',
  '%00',
  '__proto__',
  'toString',
];
const SWEEP_JSON: unknown[] = [
  INFINITE,
  2 ** 31,
  '2147483648',
  1e19,
  '\u0000',
  'a\u0000b',
  DEEP,
  JSON.parse('{"__proto__":{"x":1}}'),
  [],
];

/** Working values of body fields by name, so that a request gets as far as storing the swept field. */
export type KnownFields = Record<string, unknown>;

/** A plausible body for a schema (one fixed sample; known fields by name; arrays of objects empty). */
function baseBody(schema: any, known: KnownFields): any {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries<any>(schema?.properties ?? {})) {
    if (Object.hasOwn(known, name)) out[name] = known[name];
    else if (s?.type === 'object' && s.properties) out[name] = baseBody(s, known);
    else if (s?.type === 'array' && s.items?.type === 'object') out[name] = [];
    else out[name] = fc.sample(plausible(s), { numRuns: 1, seed: 1 })[0];
  }
  return out;
}

/** Bodies of the wrong kind every writing route gets in the sweep. */
const SWEEP_RAW = [
  { payload: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, type: 'application/json', what: 'deep object' },
  { payload: '{"a":', type: 'application/json', what: 'truncated JSON' },
  { payload: 'hello', type: 'text/plain', what: 'text body' },
  {
    payload: '--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
    type: 'multipart/form-data; boundary=b',
    what: 'multipart without closing boundary (file)',
  },
  {
    payload: '--b\r\nContent-Disposition: form-data; name="files"; filename="a"\r\n\r\nabc',
    type: 'multipart/form-data; boundary=b',
    what: 'multipart without closing boundary (files)',
  },
];

/**
 * The deterministic part: every path and query parameter of `op` with each SWEEP_STRINGS value; every
 * body field (top level, and fields of an element of arrays of objects, e.g. `links[0].meta`) with each
 * SWEEP_JSON value, the rest of the body plausible; and bodies of the wrong kind.
 */
export function sweep(op: Operation, valid: (name: string) => string, known: KnownFields): HostileRequest[] {
  const out: HostileRequest[] = [];
  const path = (override?: { name: string; value: string }) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      override && override.name === name ? inUrl(override.value) : encode(valid(name)),
    );
  // A parameter is swept with a plausible body, so that a write gets past body validation to use it.
  const body: Pick<HostileRequest, 'headers' | 'payload'> = op.body
    ? { headers: { 'content-type': 'application/json' }, payload: toPayload(baseBody(op.body, known)) }
    : { headers: {} };
  for (const p of op.params) {
    for (const value of SWEEP_STRINGS) {
      const url = p.in === 'path' ? path({ name: p.name, value }) : `${path()}?${p.name}=${inUrl(value)}`;
      out.push({ method: op.method, url, ...body, what: `${p.in} ${p.name}=${JSON.stringify(value)}` });
    }
  }
  if (op.body) {
    const base = baseBody(op.body, known);
    const fields: { set: (b: any, v: unknown) => void; name: string }[] = [];
    for (const [name, s] of Object.entries<any>(op.body.properties ?? {})) {
      fields.push({ name, set: (b, v) => (b[name] = v) });
      const item = s?.type === 'array' && s.items?.type === 'object' ? s.items : undefined;
      for (const inner of Object.keys(item?.properties ?? {})) {
        fields.push({
          name: `${name}[0].${inner}`,
          set: (b, v) => (b[name] = [{ ...baseBody(item, known), [inner]: v }]),
        });
      }
    }
    for (const f of fields) {
      for (const value of SWEEP_JSON) {
        const body = structuredClone(base);
        f.set(body, value);
        out.push({
          method: op.method,
          url: path(),
          headers: { 'content-type': 'application/json' },
          payload: toPayload(body),
          what: `body ${f.name}=${JSON.stringify(value).slice(0, 40)}`,
        });
      }
    }
  }
  if (op.method !== 'GET' && op.method !== 'DELETE') {
    for (const b of SWEEP_RAW) {
      out.push({
        method: op.method,
        url: path(),
        headers: { 'content-type': b.type },
        payload: b.payload,
        what: b.what,
      });
    }
  }
  return out;
}
