import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { sanitizeHtmlField } from '../../src/lib/html.js';
import { populateProject, type ProjectData } from './fixtures.js';
import { clientFor, unique } from './matrix.js';
import type { Client } from './route-table.js';
import { uniqueProjectCode } from '../helpers/codes.js';

/**
 * D22: every `html` field of every resource goes through the one allow-list on write, and what was stored
 * is what is returned. Each payload is sent through each html field; the answer read back must be clean
 * and equal to the sanitised payload, and no row in the database may hold anything dangerous.
 */

export const XSS_PAYLOADS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://evil.example.com/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<img src="https://ok.example.com/a.png" onerror="alert(1)">',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html,<script>alert(1)</script>">x</a>',
  '<a href="//evil.example.com/">protocol-relative</a>',
  '<p style="background:url(javascript:alert(1))">styled</p>',
  '<span style="position:fixed;top:0">overlay</span>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<iframe src="https://evil.example.com"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<body onload=alert(1)>',
  '<div onclick="alert(1)">click</div>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<input onfocus=alert(1) autofocus>',
  '<details open ontoggle=alert(1)>',
  '<style>@import "https://evil.example.com/x.css";</style>',
  '<link rel="stylesheet" href="https://evil.example.com/x.css">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="https://evil.example.com/">',
  '"><script>alert(1)</script>',
  '<scr<script>ipt>alert(1)</script>',
  '<table background="javascript:alert(1)"><tr><td>cell</td></tr></table>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>',
  '<a href="https://ok.example.com" target="_blank" onmouseover="alert(1)">fine link</a>',
  '<p>kept <b>bold</b> <a href="https://ok.example.com">link</a></p>',
];

/** What must never be found in stored or returned HTML. */
const DANGEROUS: [string, RegExp][] = [
  ['script element', /<\s*script/i],
  ['event handler attribute', /<[^>]*\son[a-z]+\s*=/i],
  ['script URL', /(href|src|action|data|background|formaction)\s*=\s*["']?\s*(javascript|vbscript|data):/i],
  ['style attribute', /<[^>]*\sstyle\s*=/i],
  ['style element', /<\s*style/i],
  ['frame', /<\s*(iframe|frame|frameset)/i],
  ['svg or math', /<\s*(svg|math)/i],
  ['plugin', /<\s*(object|embed|applet)/i],
  ['form control', /<\s*(form|input|button|textarea|select)/i],
  ['document element', /<\s*(meta|link|base|body|html|head)\b/i],
  ['protocol-relative URL', /(href|src)\s*=\s*["']?\/\//i],
];

export function dangerIn(text: string): string[] {
  return DANGEROUS.filter(([, re]) => re.test(text)).map(([name]) => name);
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
}

/** Request body fields whose schema description says HTML (the house style for html fields: `Html()`, D22). */
function htmlBodyFields(doc: OpenApiDoc): string[] {
  const out: string[] = [];
  const walk = (schema: any, pointer: string, where: string) => {
    if (!schema || typeof schema !== 'object') return;
    if (typeof schema.description === 'string' && /\bhtml\b/i.test(schema.description))
      out.push(`${where} ${pointer}`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) walk(sub, `${pointer}/${key}`, where);
    if (schema.items) walk(schema.items, `${pointer}/*`, where);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
      walk(schema.additionalProperties, `${pointer}/*`, where);
    for (const sub of Object.values(schema.patternProperties ?? {})) walk(sub, `${pointer}/*`, where);
    for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
      walk(alt, pointer, where);
  };
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      walk(op.requestBody?.content?.['application/json']?.schema, '', `${method.toUpperCase()} ${path}`);
    }
  }
  return [...new Set(out)].sort();
}

interface HtmlField {
  name: string;
  /** The request body fields it exercises, as `METHOD /openapi/path /json/pointer` (`*` for any item or key). */
  covers: string[];
  /** Writes `html` through the field and returns what a client reads back afterwards. */
  roundTrip: (html: string) => Promise<unknown>;
}

describe('the D22 allow-list', () => {
  it.each(XSS_PAYLOADS)('cleans %s', (payload) => {
    expect(dangerIn(sanitizeHtmlField(payload))).toEqual([]);
  });

  it('keeps formatting, lists, tables, code, http(s) links and images', () => {
    const html =
      '<p><b>b</b><i>i</i><u>u</u><s>s</s></p><ul><li>a</li></ul><ol start="2"><li>b</li></ol>' +
      '<table><tbody><tr><td colspan="2">c</td></tr></tbody></table><pre class="language-ts"><code class="language-ts">x</code></pre>' +
      '<a href="https://example.com" title="t">l</a><a href="mailto:a@example.com">m</a><img src="https://example.com/i.png" alt="i" />';
    expect(sanitizeHtmlField(html)).toBe(html);
  });

  it('recognises the dangerous patterns it looks for (the checks can fail)', () => {
    for (const raw of [
      '<script>x</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">x</a>',
      '<p style="color:red">x</p>',
      '<svg onload=alert(1)>',
      '<iframe src="https://e.example.com">',
      '<a href="//e.example.com">x</a>',
      '<img src="data:image/png;base64,AA">',
    ]) {
      expect(dangerIn(raw), raw).not.toEqual([]);
    }
  });
});

describeEachDb('XSS payloads through every html field', (t) => {
  let api: Client;
  let fx: ProjectData;
  let p: string;
  let richtextField: string;
  const fields: HtmlField[] = [];

  const body = async (res: Promise<{ status: number; body: any; text: string }>, status?: number) => {
    const r = await res;
    if (status !== undefined) expect(r.status, r.text).toBe(status);
    else expect(r.status, r.text).toBeLessThan(300);
    return r.body;
  };

  beforeAll(async () => {
    api = clientFor(t, t.ownerKey);
    fx = await populateProject(api);
    p = `/project/${fx.project.code}`;
    richtextField = `rt${unique()}`;
    await body(
      api('POST', '/custom-field', {
        body: { type: 'richtext', systemName: richtextField, name: `Rich ${unique()}` },
      }),
      201,
    );
    const newCase = async (extra: Record<string, unknown>) =>
      (
        await body(
          api('POST', `${p}/tcase`, {
            body: {
              title: `X ${unique()}`,
              type: 'standalone',
              folderId: fx.folderId,
              priority: 'low',
              ...extra,
            },
          }),
          201,
        )
      ).id as string;
    const getCase = (id: string) => body(api('GET', `${p}/tcase/${id}`));
    const newRun = async (description: string) =>
      (
        await body(
          api('POST', `${p}/run`, {
            body: {
              title: `R ${unique()}`,
              type: 'static_struct',
              description,
              queryPlans: [{ tcaseIds: [fx.tcaseId] }],
            },
          }),
          201,
        )
      ).id as number;
    const runs = () => body(api('GET', `${p}/run`));

    fields.push(
      {
        name: 'project overviewDescription',
        covers: ['POST /api/public/v0/project /overviewDescription'],
        roundTrip: async (html) => {
          const code = uniqueProjectCode('X');
          const { id } = await body(
            api('POST', '/project', { body: { code, title: `X ${unique()}`, overviewDescription: html } }),
            201,
          );
          return body(api('GET', `/project/${id}`));
        },
      },
      {
        name: 'project description (deprecated alias)',
        covers: ['POST /api/public/v0/project /description'],
        roundTrip: async (html) => {
          const code = uniqueProjectCode('Y');
          const { id } = await body(
            api('POST', '/project', { body: { code, title: `Y ${unique()}`, description: html } }),
            201,
          );
          return body(api('GET', `/project/${id}`));
        },
      },
      {
        name: 'folder comment',
        covers: ['POST /api/public/v0/project/{project}/tcase/folder/bulk /folders/*/comment'],
        roundTrip: async (html) => {
          await body(
            api('POST', `${p}/tcase/folder/bulk`, {
              body: { folders: [{ path: ['XSS', unique()], comment: html }] },
            }),
          );
          return body(api('GET', `${p}/tcase/folders`));
        },
      },
      {
        name: 'project overviewDescription on edit',
        covers: ['PATCH /api/public/v0/project/{project} /overviewDescription'],
        roundTrip: async (html) => {
          const code = uniqueProjectCode('E');
          const { id } = await body(api('POST', '/project', { body: { code, title: `E ${unique()}` } }), 201);
          return body(api('PATCH', `/project/${id}`, { body: { overviewDescription: html } }));
        },
      },
      {
        name: 'folder comment on edit',
        covers: ['PATCH /api/public/v0/project/{project}/tcase/folder/{folderId} /comment'],
        roundTrip: async (html) => {
          const { ids } = await body(
            api('POST', `${p}/tcase/folder/bulk`, { body: { folders: [{ path: ['XSS edit', unique()] }] } }),
          );
          const id = (ids as number[][])[0][1];
          await body(api('PATCH', `${p}/tcase/folder/${id}`, { body: { comment: html } }));
          return body(api('GET', `${p}/tcase/folders`));
        },
      },
      {
        name: 'test case precondition',
        covers: ['POST /api/public/v0/project/{project}/tcase /precondition/text'],
        roundTrip: async (html) => getCase(await newCase({ precondition: { text: html } })),
      },
      {
        name: 'test case comment (deprecated precondition)',
        covers: ['POST /api/public/v0/project/{project}/tcase /comment'],
        roundTrip: async (html) => getCase(await newCase({ comment: html })),
      },
      {
        name: 'test case step description and expected',
        covers: [
          'POST /api/public/v0/project/{project}/tcase /steps/*/description',
          'POST /api/public/v0/project/{project}/tcase /steps/*/expected',
        ],
        roundTrip: async (html) => getCase(await newCase({ steps: [{ description: html, expected: html }] })),
      },
      {
        name: 'test case steps on update',
        covers: [
          'PATCH /api/public/v0/project/{project}/tcase/{id} /precondition/text',
          'PATCH /api/public/v0/project/{project}/tcase/{id} /steps/*/description',
          'PATCH /api/public/v0/project/{project}/tcase/{id} /steps/*/expected',
        ],
        roundTrip: async (html) => {
          const id = await newCase({});
          await body(
            api('PATCH', `${p}/tcase/${id}`, {
              body: { steps: [{ description: html, expected: html }], precondition: { text: html } },
            }),
          );
          return getCase(id);
        },
      },
      {
        name: 'test case richtext custom field',
        covers: ['POST /api/public/v0/project/{project}/tcase /customFields/*/value'],
        roundTrip: async (html) =>
          getCase(await newCase({ customFields: { [richtextField]: { value: html } } })),
      },
      {
        name: 'custom field richtext default value',
        covers: ['POST /api/public/v0/custom-field /defaultValue'],
        roundTrip: async (html) => {
          const { id } = await body(
            api('POST', '/custom-field', {
              body: {
                type: 'richtext',
                systemName: `d${unique()}`,
                name: `D ${unique()}`,
                defaultValue: html,
              },
            }),
            201,
          );
          return body(api('GET', `/custom-field/${id}`));
        },
      },
      {
        name: 'custom field richtext default value on update',
        covers: ['PATCH /api/public/v0/custom-field/{id} /defaultValue'],
        roundTrip: async (html) => {
          const { id } = await body(
            api('POST', '/custom-field', {
              body: { type: 'richtext', systemName: `e${unique()}`, name: `E ${unique()}` },
            }),
            201,
          );
          await body(api('PATCH', `/custom-field/${id}`, { body: { defaultValue: html } }));
          return body(api('GET', `/custom-field/${id}`));
        },
      },
      {
        name: 'shared step sub-steps',
        covers: [
          'POST /api/public/v0/project/{project}/shared-step /subSteps/*/description',
          'POST /api/public/v0/project/{project}/shared-step /subSteps/*/expected',
        ],
        roundTrip: async (html) => {
          const { id } = await body(
            api('POST', `${p}/shared-step`, {
              body: { title: `S ${unique()}`, subSteps: [{ description: html, expected: html }] },
            }),
            201,
          );
          return body(api('GET', `${p}/shared-step/${id}`));
        },
      },
      {
        name: 'shared step sub-steps on update',
        covers: [
          'PATCH /api/public/v0/project/{project}/shared-step/{id} /subSteps/*/description',
          'PATCH /api/public/v0/project/{project}/shared-step/{id} /subSteps/*/expected',
        ],
        roundTrip: async (html) => {
          await body(
            api('PATCH', `${p}/shared-step/${fx.sharedStepId}`, {
              body: { subSteps: [{ description: html, expected: html }] },
            }),
          );
          return body(api('GET', `${p}/shared-step/${fx.sharedStepId}`));
        },
      },
      {
        name: 'shared precondition text',
        covers: ['POST /api/public/v0/project/{project}/shared-precondition /text'],
        roundTrip: async (html) => {
          const { id } = await body(
            api('POST', `${p}/shared-precondition`, { body: { title: `P ${unique()}`, text: html } }),
            201,
          );
          return body(api('GET', `${p}/shared-precondition/${id}`));
        },
      },
      {
        name: 'shared precondition text on update',
        covers: ['PATCH /api/public/v0/project/{project}/shared-precondition/{id} /text'],
        roundTrip: async (html) => {
          await body(
            api('PATCH', `${p}/shared-precondition/${fx.sharedPreconditionId}`, { body: { text: html } }),
          );
          return body(api('GET', `${p}/shared-precondition/${fx.sharedPreconditionId}`));
        },
      },
      {
        name: 'run description',
        covers: ['POST /api/public/v0/project/{project}/run /description'],
        roundTrip: async (html) => {
          await newRun(html);
          return runs();
        },
      },
      {
        name: 'edited run description',
        covers: ['PATCH /api/public/v0/project/{project}/run/{run} /description'],
        roundTrip: async (html) => {
          const runId = await newRun('first');
          await body(api('PATCH', `${p}/run/${runId}`, { body: { description: html } }), 200);
          return runs();
        },
      },
      {
        name: 'cloned run description',
        covers: ['POST /api/public/v0/project/{project}/run/clone /description'],
        roundTrip: async (html) => {
          await body(
            api('POST', `${p}/run/clone`, {
              body: { runId: fx.runId, title: `C ${unique()}`, description: html },
            }),
            201,
          );
          return runs();
        },
      },
      {
        name: 'run log comment',
        covers: ['POST /api/public/v0/project/{project}/run/{run}/log /comment'],
        roundTrip: async (html) => {
          await body(api('POST', `${p}/run/${fx.runId}/log`, { body: { comment: `${html} log` } }), 201);
          return body(api('GET', `${p}/run/${fx.runId}/log`));
        },
      },
      {
        name: 'result comment',
        covers: ['POST /api/public/v0/project/{project}/run/{run}/tcase/{tcase}/result /comment'],
        roundTrip: async (html) => {
          await body(
            api('POST', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`, {
              body: { status: 'failed', comment: html },
            }),
            201,
          );
          return body(api('GET', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}`));
        },
      },
      {
        name: 'batch result comment',
        covers: ['POST /api/public/v0/project/{project}/run/{run}/result/batch /items/*/comment'],
        roundTrip: async (html) => {
          await body(
            api('POST', `${p}/run/${fx.runId}/result/batch`, {
              body: { items: [{ tcaseId: fx.tcaseId, status: 'blocked', comment: html }] },
            }),
            201,
          );
          return body(api('GET', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}`));
        },
      },
      {
        name: 'step outcome comments, single and batch',
        covers: [
          'POST /api/public/v0/project/{project}/run/{run}/tcase/{tcase}/result /steps/*/comment',
          'POST /api/public/v0/project/{project}/run/{run}/result/batch /items/*/steps/*/comment',
        ],
        roundTrip: async (html) => {
          await body(
            api('POST', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}/result`, {
              body: { status: 'failed', steps: [{ position: 1, status: 'failed', comment: html }] },
            }),
            201,
          );
          await body(
            api('POST', `${p}/run/${fx.runId}/result/batch`, {
              body: {
                items: [
                  {
                    tcaseId: fx.tcaseId,
                    status: 'failed',
                    steps: [{ position: 2, status: 'blocked', comment: html }],
                  },
                ],
              },
            }),
            201,
          );
          return body(api('GET', `${p}/run/${fx.runId}/tcase/${fx.tcaseId}`));
        },
      },
      {
        name: 'plan description and plan run description',
        covers: [
          'POST /api/public/v0/project/{project}/plan /description',
          'POST /api/public/v0/project/{project}/plan /runs/*/description',
        ],
        roundTrip: async (html) => {
          const { id } = await body(
            api('POST', `${p}/plan`, {
              body: {
                title: `Plan ${unique()}`,
                description: html,
                runs: [{ title: 'r', description: html, queryPlans: [{ tcaseIds: [fx.tcaseId] }] }],
              },
            }),
            201,
          );
          return { plan: await body(api('GET', `${p}/plan/${id}`)), runs: await runs() };
        },
      },
      {
        name: 'plan description changed later, and runs added to a plan later',
        covers: [
          'PATCH /api/public/v0/project/{project}/plan/{plan} /description',
          'POST /api/public/v0/project/{project}/plan/{plan}/run /runs/*/description',
        ],
        roundTrip: async (html) => {
          const { id } = await body(
            api('POST', `${p}/plan`, {
              body: {
                title: `Plan ${unique()}`,
                runs: [{ title: 'r', queryPlans: [{ tcaseIds: [fx.tcaseId] }] }],
              },
            }),
            201,
          );
          await body(api('PATCH', `${p}/plan/${id}`, { body: { description: html } }));
          await body(
            api('POST', `${p}/plan/${id}/run`, {
              body: {
                runs: [{ title: 'added', description: html, queryPlans: [{ tcaseIds: [fx.tcaseId] }] }],
              },
            }),
          );
          return { plan: await body(api('GET', `${p}/plan/${id}`)), runs: await runs() };
        },
      },
    );
  }, 120_000);

  it('covers every request field the API documents as HTML (a new one without a case here fails)', async () => {
    await t.app.ready();
    const documented = htmlBodyFields(t.app.swagger() as OpenApiDoc);
    expect(documented.length).toBeGreaterThan(10);
    const covered = new Set(fields.flatMap((f) => f.covers));
    expect(documented.filter((f) => !covered.has(f))).toEqual([]);
  });

  it('sends every payload through every html field and reads back only clean, sanitised html', async () => {
    const problems: string[] = [];
    for (const field of fields) {
      for (const payload of XSS_PAYLOADS) {
        // Visible text after the payload: fields that must not be empty stay valid once it is cleaned.
        const html = `${payload}<p>visible</p>`;
        let answer: unknown;
        try {
          answer = await field.roundTrip(html);
        } catch (err) {
          problems.push(
            `${field.name} ← ${payload}: request failed: ${(err as Error).message.slice(0, 200)}`,
          );
          continue;
        }
        const texts = strings(answer);
        const dirty = texts.flatMap((s) =>
          dangerIn(s).map((d) => `${d} in ${JSON.stringify(s).slice(0, 120)}`),
        );
        if (dirty.length > 0) problems.push(`${field.name} ← ${payload}: ${dirty.join('; ')}`);
        // D22: what was stored is what is returned — the sanitised payload itself is there.
        const clean = sanitizeHtmlField(html);
        if (!texts.some((s) => s.includes(clean.trim()))) {
          problems.push(
            `${field.name} ← ${payload}: the sanitised value ${JSON.stringify(clean)} is not returned`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('leaves nothing dangerous in any text column of any table', async () => {
    const problems: string[] = [];
    for (const table of await t.db.introspection.getTables()) {
      const rows = await t.db
        .selectFrom(table.name as any)
        .selectAll()
        .execute();
      for (const row of rows) {
        for (const [column, value] of Object.entries(row as Record<string, unknown>)) {
          if (typeof value !== 'string') continue;
          const dirty = dangerIn(value);
          if (dirty.length > 0)
            problems.push(`${table.name}.${column}: ${dirty.join(', ')} in ${value.slice(0, 120)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
