import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb, type ApiResponse } from '../helpers/test-app.js';
import { sanitizeHtmlField } from '../../src/lib/html.js';
import { populateProject, tableCounts, type ProjectData } from './fixtures.js';
import { clientFor } from './matrix.js';
import type { Client } from './route-table.js';

/** docs/api-decisions.md#hostile-input: each hostile input the fuzzer found, answered in the validation layer, never 5xx. */

const expectD7 = (res: ApiResponse, status: number) => {
  expect(res.status, res.text).toBe(status);
  expect(typeof res.body?.message).toBe('string');
  expect(typeof res.body?.code).toBe('string');
  expect(Object.keys(res.body).sort()).not.toContain('statusCode');
};

function nested(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** JSON text nested `depth` deep, built as text (stringifying it would overflow the test's own stack). */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** Sends raw bytes to a listening server and returns what came back. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d.toString('utf8')));
    socket.on('error', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('connect', () => socket.write(request));
    setTimeout(() => reject(new Error(`no answer: ${out}`)), 5000).unref();
  });
}

const parseRaw = (text: string) => {
  const [head, body] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
};

describeEachDb('hostile input', (t) => {
  let fx: ProjectData;
  let api: Client;
  let p: string;

  beforeAll(async () => {
    api = clientFor(t, t.ownerKey);
    fx = await populateProject(api);
    p = `/project/${fx.project.code}`;
  });

  describe('integers are bounded to the database range', () => {
    it.each(['2147483648', '1e309', 'Infinity', '9223372036854775807', '99999999999999999999'])(
      'refuses run id %s in the path',
      async (id) => expectD7(await api('GET', `${p}/run/${id}/tcase`), 400),
    );

    it.each(['offset', 'page'])('refuses %s=1e309 on the test-case list', async (name) => {
      expectD7(await api('GET', `${p}/tcase`, { query: { [name]: '1e309' } }), 400);
    });

    it.each(['1e19', '9223372036854775807', '99999999999999999999'])(
      'refuses limit=%s on the run list',
      async (limit) => expectD7(await api('GET', `${p}/run`, { query: { limit } }), 400),
    );

    it('refuses an out-of-range id in a comma-split list', async () => {
      const res = await api('GET', `${p}/tcase`, { query: { tags: `1,${2 ** 31}` } });
      expectD7(res, 400);
    });

    it('refuses after=1e309 on the audit log', async () => {
      expectD7(await api('GET', '/audit-logs', { query: { after: '1e309' } }), 400);
    });

    it('answers 404, not a database error, for a test-case seq beyond the column', async () => {
      const res = await api('POST', `${p}/run/${fx.runId}/tcase/2147483648/result`, {
        body: { status: 'passed', comment: '' },
      });
      expectD7(res, 404);
    });

    it('answers 400 naming the item, not a database error, for a batch seq beyond the column', async () => {
      const res = await api('POST', `${p}/run/${fx.runId}/result/batch`, {
        body: { items: [{ tcaseId: '2147483648', status: 'passed', comment: '' }] },
      });
      expectD7(res, 400);
      expect(res.body.details[0].path).toBe('/items/0/tcaseId');
    });

    it('states the bound in the OpenAPI document', async () => {
      const doc = (await t.get('/openapi.json', { key: null })).body;
      const params = doc.paths['/api/public/v0/project/{project}/run/{run}/tcase'].get.parameters;
      expect(params.find((x: any) => x.name === 'run').schema.maximum).toBe(2 ** 31 - 1);
    });
  });

  describe('NUL', () => {
    it('is refused in a name, naming the field', async () => {
      const res = await api('POST', '/project', { body: { code: 'NULX', title: 'a\u0000b' } });
      expectD7(res, 400);
      expect(res.body.details[0].path).toBe('/title');
    });

    it('is refused as %00 in a path parameter', async () => {
      expectD7(await api('GET', '/project/%00'), 400);
      expectD7(await api('GET', `${p}/tcase/a%00b`), 400);
    });

    it('is removed from a result comment, so the result is stored', async () => {
      const res = await api('POST', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`, {
        body: { status: 'failed', comment: 'at foo()\u0000 line 3' },
      });
      expect(res.status, res.text).toBe(201);
      const row = await t.db
        .selectFrom('results' as any)
        .select('comment' as any)
        .where('id' as any, '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect((row as { comment: string }).comment).toBe('at foo() line 3');
    });

    it('is removed from every comment of a batch', async () => {
      const items = Array.from({ length: 3 }, (_, i) => ({
        tcaseId: fx.tcaseId,
        status: 'passed',
        comment: i === 1 ? 'trace\u0000' : 'ok',
      }));
      const res = await api('POST', `${p}/run/${fx.runId}/result/batch`, { body: { items } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.ids).toHaveLength(3);
    });

    it('is removed from a run log', async () => {
      const res = await api('POST', `${p}/run/${fx.runId}/log`, { body: { comment: 'log\u0000 line' } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.comment ?? 'log line').toBe('log line');
    });

    it('is refused inside free-form meta', async () => {
      const res = await api('POST', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`, {
        body: {
          status: 'failed',
          comment: '',
          links: [
            {
              integrationId: fx.customIntegrationId,
              url: 'https://b.example.com/1',
              text: 'x',
              meta: { k: 'a\u0000' },
            },
          ],
        },
      });
      expectD7(res, 400);
    });
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'refuses sortField=%s on the test-case list',
    async (sortField) => expectD7(await api('GET', `${p}/tcase`, { query: { sortField } }), 400),
  );

  it.each(['/file', '/file/batch'])(
    'answers 400 D7 to a multipart body without a closing boundary (%s)',
    async (path) => {
      const boundary = 'hostile-boundary';
      const res = await api('POST', path, {
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: `--${boundary}\r\nContent-Disposition: form-data; name="${path === '/file' ? 'file' : 'files'}"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello`,
      });
      expectD7(res, 400);
    },
  );

  describe('free-form JSON (links[].meta)', () => {
    const body = (meta: string) =>
      `{"status":"failed","comment":"","links":[{"integrationId":"${fx.customIntegrationId}",` +
      `"url":"https://b.example.com/1","text":"x","meta":${meta}}]}`;
    const post = (meta: unknown) =>
      api('POST', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`, {
        body: body(typeof meta === 'string' ? meta : JSON.stringify(meta)),
      });

    it('refuses nesting 5,000 deep and leaves nothing behind', async () => {
      const before = await tableCounts(t, ['audit_events']);
      expectD7(await post(`{"deep":${nestedJson(5000)}}`), 400);
      expect(await tableCounts(t, ['audit_events'])).toEqual(before);
    });

    it('refuses more than 16 KB', async () => expectD7(await post({ big: 'x'.repeat(17 * 1024) }), 400));

    it('accepts ordinary metadata', async () => {
      const res = await post({ id: 'BUG-1', nested: nested(8) });
      expect(res.status, res.text).toBe(201);
    });
  });

  it('states a length limit of at least 256 KB on every html field in the OpenAPI document', async () => {
    const doc = (await t.get('/openapi.json', { key: null })).body;
    const html: { path: string; maxLength?: number }[] = [];
    const walk = (s: any, path: string) => {
      if (!s || typeof s !== 'object') return;
      if (s['x-html']) html.push({ path, maxLength: s.maxLength });
      for (const [k, v] of Object.entries(s)) walk(v, `${path}/${k}`);
    };
    walk(doc.paths, '');
    expect(html.length).toBeGreaterThan(10);
    for (const f of html) expect(f.maxLength, f.path).toBeGreaterThanOrEqual(256 * 1024);
    const resultComment =
      doc.paths['/api/public/v0/project/{project}/run/{run}/tcase/{tcase}/result'].post.requestBody.content[
        'application/json'
      ].schema.properties.comment;
    expect(resultComment.maxLength).toBeGreaterThanOrEqual(256 * 1024);
  });

  it('accepts a 200 KB result comment (CI output)', async () => {
    const res = await api('POST', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`, {
      body: { status: 'failed', comment: 'x'.repeat(200 * 1024) },
    });
    expect(res.status, res.text).toBe(201);
  });
});

describeEachDb('errors before a route runs', (t) => {
  let port: number;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  it('answers a URL over 16 KB with 431 and the D7 body', async () => {
    const text = await raw(
      port,
      `GET /api/public/v0/project?x=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    const res = parseRaw(text);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ message: expect.any(String), code: 'HEADERS_TOO_LARGE' });
  });

  it('answers Transfer-Encoding with Content-Length with 400 and the D7 body', async () => {
    const text = await raw(
      port,
      'POST /api/public/v0/project HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    const res = parseRaw(text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: expect.any(String), code: 'MALFORMED_REQUEST' });
  });

  it('answers a broken percent-encoding in the path with the D7 body', async () => {
    const res = await t.request('GET', '/api/public/v0/project/%E0%A4%A');
    expectD7(res, 400);
    expect(res.body.code).toBe('MALFORMED_REQUEST');
  });
});

describe('links that open a new window', () => {
  it.each([
    '<a href="https://x.example.com" target="_blank" rel="opener">x</a>',
    '<a href="https://x.example.com" target="_blank">x</a>',
    '<a href="https://x.example.com" target="other" rel="opener noopener">x</a>',
  ])('leave the sanitiser with rel="noopener noreferrer": %s', (html) => {
    expect(sanitizeHtmlField(html)).toContain('rel="noopener noreferrer"');
    expect(sanitizeHtmlField(html)).not.toMatch(/rel="[^"]*\bopener\b(?![^"]*noopener)/);
  });

  it('keeps a same-window link as it is', () => {
    const html = '<a href="https://x.example.com">x</a>';
    expect(sanitizeHtmlField(html)).toBe(html);
  });
});

describeEachDb('the /docs page', (t) => {
  it('does not ask a plain-HTTP page to upgrade its requests', async () => {
    const res = await t.request('GET', '/docs', { key: null });
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('does behind an HTTPS proxy', async () => {
    const res = await t.request('GET', '/docs', {
      key: null,
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(String(res.headers['content-security-policy'])).toContain('upgrade-insecure-requests');
  });
});
