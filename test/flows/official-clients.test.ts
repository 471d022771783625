import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { createProject } from '../helpers/factories.js';

/**
 * Requests the official clients send, replayed as they send them (their headers, their bodies and
 * nothing more), each with the answer the client needs and what was stored.
 * - the upload CLI (qas-cli): `Authorization: ApiKey …`, `Accept` and `Content-Type: application/json` on
 *   every request (a GET too), and its `User-Agent`;
 * - the MCP server (qasphere-mcp): `Authorization: ApiKey …` and `Content-Type: application/json`.
 */
describeEachDb('flow: the official clients', (t) => {
  const cliHeaders = () => ({
    authorization: `ApiKey ${t.ownerKey}`,
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': 'qas-cli/0.4.0',
  });
  /** A request as qas-cli sends it: the body is the exact JSON text given. */
  const cli = (method: string, url: string, body?: string) =>
    t.request(method, url, { key: null, headers: cliHeaders(), body });

  let P: { id: string; code: string };
  let tcases: { id: string; seq: number }[];
  let runId: number;

  beforeAll(async () => {
    P = await createProject(t);
    const bulk = await t.post(`/project/${P.code}/tcase/bulk`, {
      folderPath: ['Checkout'],
      tcases: ['Pay by card', 'Pay by invoice', 'Apply coupon'].map((title) => ({ title, tags: [] })),
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    tcases = bulk.body.tcases;
    const run = await t.post(`/project/${P.code}/run`, {
      title: 'Nightly',
      type: 'static_struct',
      queryPlans: [{ tcaseIds: tcases.map((c) => c.id) }],
    });
    expect(run.status).toBe(201);
    runId = run.body.id;
  });

  const storedResult = (id: number) =>
    t.db
      .selectFrom('results')
      .select(['tcase_id', 'status', 'comment'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  describe('results without comment (D26)', () => {
    it('POST …/tcase/{tcaseId}/result {"status":"passed"} answers 201 {id} and stores comment ""', async () => {
      const res = await cli(
        'POST',
        `/api/public/v0/project/${P.code}/run/${runId}/tcase/${tcases[0].id}/result`,
        '{"status":"passed"}',
      );
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number) });
      expect(await storedResult(res.body.id)).toEqual({
        tcase_id: tcases[0].id,
        status: 'passed',
        comment: '',
      });
      const detail = await cli('GET', `/api/public/v0/project/${P.code}/run/${runId}/tcase/${tcases[0].id}`);
      expect(detail.status).toBe(200);
      expect(detail.body.status).toBe('passed');
      expect(detail.body.results.at(-1)).toMatchObject({ id: res.body.id, status: 'passed', comment: '' });
    });

    it('POST …/result/batch with items {tcaseId, status} answers 201 {ids} and stores comment ""', async () => {
      const body = JSON.stringify({
        items: [
          { tcaseId: tcases[1].id, status: 'failed' },
          { tcaseId: tcases[2].id, status: 'skipped' },
        ],
      });
      const res = await cli('POST', `/api/public/v0/project/${P.code}/run/${runId}/result/batch`, body);
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ ids: [expect.any(Number), expect.any(Number)] });
      expect(await storedResult(res.body.ids[0])).toEqual({
        tcase_id: tcases[1].id,
        status: 'failed',
        comment: '',
      });
      expect(await storedResult(res.body.ids[1])).toEqual({
        tcase_id: tcases[2].id,
        status: 'skipped',
        comment: '',
      });
    });
  });

  describe('result links without an integration (D24)', () => {
    it('POST …/result with links [{text, url}] answers 201; the detail shows the link without integration keys', async () => {
      const body = JSON.stringify({
        status: 'failed',
        links: [{ text: 'CI job #512', url: 'https://ci.example.com/jobs/512' }],
      });
      const res = await cli(
        'POST',
        `/api/public/v0/project/${P.code}/run/${runId}/tcase/${tcases[1].id}/result`,
        body,
      );
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number) });
      const stored = await t.db
        .selectFrom('result_links')
        .select(['integration_id', 'text', 'url', 'meta'])
        .where('result_id', '=', res.body.id)
        .execute();
      expect(stored).toEqual([
        { integration_id: null, text: 'CI job #512', url: 'https://ci.example.com/jobs/512', meta: '{}' },
      ]);

      const detail = await cli('GET', `/api/public/v0/project/${P.code}/run/${runId}/tcase/${tcases[1].id}`);
      expect(detail.status).toBe(200);
      const result = detail.body.results.find((r: { id: number }) => r.id === res.body.id);
      expect(result.links).toEqual([
        {
          id: expect.any(Number),
          resultId: res.body.id,
          url: 'https://ci.example.com/jobs/512',
          text: 'CI job #512',
          meta: {},
        },
      ]);
    });

    it('POST …/result/batch with items carrying plain links answers 201 and stores them', async () => {
      const body = JSON.stringify({
        items: [
          {
            tcaseId: tcases[0].id,
            status: 'passed',
            links: [{ text: 'Allure report', url: 'http://reports.example.com/42/index.html' }],
          },
        ],
      });
      const res = await cli('POST', `/api/public/v0/project/${P.code}/run/${runId}/result/batch`, body);
      expect(res.status, res.text).toBe(201);
      const stored = await t.db
        .selectFrom('result_links')
        .select(['integration_id', 'url'])
        .where('result_id', '=', res.body.ids[0])
        .execute();
      expect(stored).toEqual([{ integration_id: null, url: 'http://reports.example.com/42/index.html' }]);
    });
  });

  it('the OpenAPI document makes comment and a link’s integrationId optional', async () => {
    const res = await t.request('GET', '/api/public/v0/openapi.json', { key: null });
    const paths = res.body.paths;
    const single =
      paths['/api/public/v0/project/{project}/run/{run}/tcase/{tcase}/result'].post.requestBody.content[
        'application/json'
      ].schema;
    expect(single.required).toEqual(['status']);
    expect(single.properties.links.items.required.sort()).toEqual(['text', 'url']);
    const batch =
      paths['/api/public/v0/project/{project}/run/{run}/result/batch'].post.requestBody.content[
        'application/json'
      ].schema;
    expect(batch.properties.items.items.required.sort()).toEqual(['status', 'tcaseId']);
  });

  it('MCP list_folders: GET …/tcase/folders?limit=100 answers total, offset, limit and page (D12)', async () => {
    const res = await t.request('GET', `/api/public/v0/project/${P.code}/tcase/folders?limit=100`, {
      key: null,
      headers: { authorization: `ApiKey ${t.ownerKey}`, 'content-type': 'application/json' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      total: 1,
      offset: 0,
      limit: 100,
      page: 1,
      data: [
        { id: expect.any(Number), projectId: P.id, parentId: 0, pos: 0, title: 'Checkout', comment: '' },
      ],
    });
  });

  it('GET …/run lists each run with closed beside closedAt', async () => {
    const other = await t.post(`/project/${P.code}/run`, {
      title: 'To close',
      type: 'static',
      queryPlans: [{ tcaseIds: [tcases[0].id] }],
    });
    expect((await t.post(`/project/${P.code}/run/${other.body.id}/close`)).status).toBe(200);
    const res = await cli('GET', `/api/public/v0/project/${P.code}/run`);
    expect(res.status).toBe(200);
    const byId = new Map(
      res.body.runs.map((r: { id: number; closed: boolean; closedAt: string | null }) => [
        r.id,
        { closed: r.closed, closedAt: r.closedAt },
      ]),
    );
    expect(byId.get(runId)).toEqual({ closed: false, closedAt: null });
    expect(byId.get(other.body.id)).toEqual({ closed: true, closedAt: expect.any(String) });
  });

  it('POST …/plan with two runs of one title answers 409 naming both by index (D10) and stores nothing', async () => {
    const body = JSON.stringify({
      title: 'Release 2.0',
      runs: [
        { title: 'Regression', type: 'static', queryPlans: [{ tcaseIds: [tcases[0].id] }] },
        { title: 'Smoke', type: 'static', queryPlans: [{ tcaseIds: [tcases[1].id] }] },
        { title: 'Regression', type: 'static', queryPlans: [{ tcaseIds: [tcases[2].id] }] },
      ],
    });
    const runsBefore = await t.db.selectFrom('runs').select('id').where('project_id', '=', P.id).execute();
    const res = await cli('POST', encodeURI(`/api/public/v0/project/${P.code}/plan`), body);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      code: 'CONFLICT',
      message: 'runs/0 and runs/2 are both titled "Regression"; run titles are unique within a test plan',
    });
    expect(await t.db.selectFrom('plans').select('id').where('project_id', '=', P.id).execute()).toEqual([]);
    expect(await t.db.selectFrom('runs').select('id').where('project_id', '=', P.id).execute()).toEqual(
      runsBefore,
    );
  });
});
