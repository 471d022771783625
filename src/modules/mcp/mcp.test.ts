import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';

/** The tools of the standalone qasphere-mcp server at its last release: prompts written for it name these. */
const QASPHERE_MCP_TOOLS = [
  'get_project',
  'list_projects',
  'get_test_case',
  'list_test_cases',
  'create_test_case',
  'update_test_case',
  'list_folders',
  'upsert_folders',
  'list_test_cases_tags',
  'list_custom_fields',
  'list_requirements',
  'list_shared_preconditions',
  'get_shared_precondition',
  'list_shared_steps',
  'get_shared_step',
];

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

describeEachDb('MCP endpoint: the SDK client over /api/mcp', (t) => {
  let url: URL;
  const clients: Client[] = [];

  beforeAll(async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = new URL('/api/mcp', address);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
  });

  /** A client configured as QA Sphere's instructions say: the address and an Authorization header. */
  async function connect(key: string, scheme = 'Bearer'): Promise<Client> {
    const client = new Client({ name: 'casebook-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `${scheme} ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const res = (await client.callTool({ name, arguments: args })) as CallResult;
    const body = JSON.parse(res.content[0]!.text);
    return { isError: res.isError === true, body };
  }

  it('lists the qasphere-mcp tools under their names, and the run tools', async () => {
    const client = await connect(t.ownerKey);
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(QASPHERE_MCP_TOOLS));
    expect(names).toEqual(expect.arrayContaining(['create_run', 'add_test_result', 'add_test_results']));
    const create = tools.find((x) => x.name === 'create_test_case')!;
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['projectCode', 'title', 'folderId']));
    expect(client.getServerVersion()).toMatchObject({
      name: 'casebook',
      version: expect.stringMatching(/^\d+\.\d+/),
    });
  });

  it('drives a whole run: cases, a run from a query plan, single and batch results, the report', async () => {
    const project = await createProject(t);
    const client = await connect(t.ownerKey);
    const folder = await call(client, 'upsert_folders', {
      projectCode: project.code,
      folders: [{ path: ['Checkout', 'Payments'], comment: null }],
    });
    expect(folder.isError).toBe(false);
    const folderId = folder.body.ids[0][1];
    const seqs: number[] = [];
    for (const title of ['Pay by card', 'Pay by invoice', 'Refund']) {
      const created = await call(client, 'create_test_case', {
        projectCode: project.code,
        title,
        type: 'standalone',
        folderId,
        priority: 'high',
        steps: [{ description: 'Do it', expected: 'It is done' }],
      });
      expect(created.isError, JSON.stringify(created.body)).toBe(false);
      seqs.push(created.body.seq);
    }
    const got = await call(client, 'get_test_case', { marker: `${project.code}-${seqs[0]}` });
    expect(got.body).toMatchObject({ title: 'Pay by card', folderId });

    const run = await call(client, 'create_run', {
      projectCode: project.code,
      title: 'Release 1.0',
      type: 'static',
      queryPlans: [{ folderIds: [folderId] }],
    });
    expect(run.isError, JSON.stringify(run.body)).toBe(false);
    const runId = run.body.id;

    const single = await call(client, 'add_test_result', {
      projectCode: project.code,
      runId,
      tcaseId: String(seqs[0]),
      status: 'passed',
      timeTaken: 1200,
    });
    expect(single.isError, JSON.stringify(single.body)).toBe(false);
    const batch = await call(client, 'add_test_results', {
      projectCode: project.code,
      runId,
      items: [
        { tcaseId: String(seqs[1]), status: 'failed', comment: 'timeout at the bank' },
        { tcaseId: String(seqs[2]), status: 'blocked' },
      ],
    });
    expect(batch.isError, JSON.stringify(batch.body)).toBe(false);
    expect(batch.body.ids).toHaveLength(2);

    const report = await call(client, 'get_run_report', { projectCode: project.code, runId });
    expect(report.body.counts).toMatchObject({ all: 3, passed: 1, failed: 1, blocked: 1 });
    expect(report.body.failures.map((f: { seq: number }) => f.seq).sort()).toEqual([seqs[1], seqs[2]].sort());

    const failing = await call(client, 'list_failing_test_cases', { projectCode: project.code, last: 5 });
    expect(failing.body.tcases.map((c: { seq: number }) => c.seq)).toContain(seqs[1]);
    const trend = await call(client, 'get_pass_rate_trend', { projectCode: project.code });
    expect(trend.body.points).toEqual([expect.objectContaining({ key: String(runId) })]);

    // What was stored is what the REST API shows.
    const listed = await t.get(`/project/${project.code}/run/${runId}/tcase`);
    const statuses = Object.fromEntries(
      listed.body.tcases.map((c: { seq: number; status: string }) => [c.seq, c.status]),
    );
    expect(statuses).toEqual({ [seqs[0]!]: 'passed', [seqs[1]!]: 'failed', [seqs[2]!]: 'blocked' });

    const closed = await call(client, 'close_run', { projectCode: project.code, runId });
    expect(closed.isError, JSON.stringify(closed.body)).toBe(false);
    expect((await t.get(`/project/${project.code}/run/${runId}`)).body.closed).toBe(true);
  });

  /** A project with two cases tagged "smoke" in one folder, made through the tools. */
  async function seeded(client: Client, members: number[] = []) {
    const project = await createProject(t, {}, members);
    const folder = await call(client, 'upsert_folders', {
      projectCode: project.code,
      folders: [{ path: ['Smoke'], comment: null }],
    });
    const seqs: number[] = [];
    for (const title of ['Sign in', 'Sign out']) {
      const created = await call(client, 'create_test_case', {
        projectCode: project.code,
        title,
        type: 'standalone',
        folderId: folder.body.ids[0][0],
        priority: 'medium',
        tags: ['smoke'],
      });
      seqs.push(created.body.seq);
    }
    return { project, seqs };
  }

  it('takes arguments as qasphere-mcp sent them: one include value, offset and limit, a case by sequence number', async () => {
    const client = await connect(t.ownerKey);
    const { project } = await seeded(client);
    const tags = await call(client, 'list_test_cases_tags', {
      projectCode: project.code,
      include: 'tcaseCount',
    });
    expect(tags.body.tags).toEqual([expect.objectContaining({ title: 'smoke', tcaseCount: 2 })]);
    const page = await call(client, 'list_test_cases', {
      projectCode: project.code,
      offset: 1,
      limit: 1,
      sortField: 'seq',
      include: ['tags'],
    });
    expect(page.body).toMatchObject({ total: 2, offset: 1, limit: 1 });
    expect(page.body.data.map((c: { title: string }) => c.title)).toEqual(['Sign out']);

    const updated = await call(client, 'update_test_case', {
      projectCode: project.code,
      tcaseOrLegacyId: String(page.body.data[0].seq),
      title: 'Sign out everywhere',
      priority: 'high',
    });
    expect(updated.isError, JSON.stringify(updated.body)).toBe(false);
    const stored = await t.get(`/project/${project.code}/tcase/${page.body.data[0].seq}`);
    expect(stored.body).toMatchObject({ title: 'Sign out everywhere', priority: 'high' });
  });

  it('serves test cases and runs as resources and offers the triage and requirement prompts', async () => {
    const client = await connect(t.ownerKey);
    const { project, seqs } = await seeded(client);
    const run = await call(client, 'create_run', {
      projectCode: project.code,
      title: 'Nightly',
      type: 'static',
      queryPlans: [{ priorities: ['medium'] }],
    });
    await call(client, 'add_test_result', {
      projectCode: project.code,
      runId: run.body.id,
      tcaseId: String(seqs[0]),
      status: 'failed',
    });

    const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    expect(templates).toEqual([
      'casebook://project/{projectCode}/tcase/{tcase}',
      'casebook://project/{projectCode}/run/{runId}',
    ]);
    const tcase = await client.readResource({ uri: `casebook://project/${project.code}/tcase/${seqs[0]}` });
    expect(JSON.parse((tcase.contents[0] as { text: string }).text)).toMatchObject({
      title: 'Sign in',
      seq: seqs[0],
    });
    const runRes = await client.readResource({
      uri: `casebook://project/${project.code}/run/${run.body.id}`,
    });
    const shown = JSON.parse((runRes.contents[0] as { text: string }).text);
    expect(shown.run.title).toBe('Nightly');
    expect(shown.report.counts).toMatchObject({ all: 2, failed: 1 });
    await expect(
      client.readResource({ uri: `casebook://project/${project.code}/tcase/999` }),
    ).rejects.toThrow(/not found/);

    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(['triage_run_failures', 'write_test_cases_for_requirement']);
    const triage = await client.getPrompt({
      name: 'triage_run_failures',
      arguments: { projectCode: project.code, runId: String(run.body.id) },
    });
    const text = (triage.messages[0]!.content as { text: string }).text;
    expect(text).toContain(`runId ${run.body.id}`);
    expect(text).toContain('get_run_report');
    await expect(
      client.getPrompt({
        name: 'write_test_cases_for_requirement',
        arguments: { projectCode: project.code },
      }),
    ).rejects.toThrow(/requirement/);
  });

  it('takes the key as "ApiKey <key>" too', async () => {
    const client = await connect(t.ownerKey, 'ApiKey');
    const projects = await call(client, 'list_projects', {});
    expect(projects.isError).toBe(false);
    expect(Array.isArray(projects.body.projects)).toBe(true);
  });

  it('refuses a request without a valid key with the API’s 401', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('UNAUTHORIZED');
    await expect(connect('not-a-key')).rejects.toThrow();
  });

  it("a viewer's key lists only reading tools and gets a tool error from a writing one, which writes nothing", async () => {
    // A member of the project: only the role stands between the viewer and the write.
    const viewer = await userWithKey(t, 'viewer');
    const { project } = await seeded(await connect(t.ownerKey), [viewer.user.id]);
    const client = await connect(viewer.key);
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toContain('list_test_cases');
    expect(names).not.toContain('create_run');
    expect(names).not.toContain('create_test_case');

    const refused = await call(client, 'create_run', {
      projectCode: project.code,
      title: 'Viewer run',
      type: 'static',
      queryPlans: [{ priorities: ['medium'] }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
    expect(refused.body.message).toContain('test-runner');
    const runs = await t.get(`/project/${project.code}/run`);
    expect(runs.body.runs).toEqual([]);
  });

  it('answers bad arguments with the validation error naming the field, and changes nothing', async () => {
    const project = await createProject(t);
    const client = await connect(t.ownerKey);
    const bad = await call(client, 'create_test_case', {
      projectCode: project.code,
      title: 'No folder',
      type: 'standalone',
      priority: 'urgent',
    });
    expect(bad.isError).toBe(true);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(bad.body.details)).toMatch(/folderId|priority/);
    const unknown = await call(client, 'list_projects', { surprise: 1 });
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    const noTool = await call(client, 'delete_everything', {});
    expect(noTool).toMatchObject({ isError: true, body: { code: 'NOT_FOUND' } });
    const cases = await t.get(`/project/${project.code}/tcase`);
    expect(cases.body.total).toBe(0);
  });

  it('answers a project or import that is not there with the API’s not-found as a tool error', async () => {
    const client = await connect(t.ownerKey);
    const missing = await call(client, 'list_test_cases', { projectCode: 'NOPE9' });
    expect(missing).toMatchObject({ isError: true, body: { code: 'NOT_FOUND' } });
    const project = await createProject(t);
    const noImport = await call(client, 'get_import_status', { projectCode: project.code, importId: 999 });
    expect(noImport).toMatchObject({ isError: true, body: { code: 'NOT_FOUND' } });
    expect(noImport.body.message).toContain('import 999');
  });
});
