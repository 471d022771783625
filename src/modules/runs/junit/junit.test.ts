import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { recordJUnit } from './junit.service.js';
import { idempotencyClaim } from '../../idempotency/idempotency.service.js';
import { getUserByEmail } from '../../users/users.service.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/junit/${name}`, import.meta.url), 'utf8');
const BODY_LIMIT = 256 * 1024;

describeEachDb(
  'JUnit XML into a run',
  (t) => {
    const code = 'SHOP';
    let cases: { id: string; seq: number }[] = [];
    let runCounter = 0;

    beforeAll(async () => {
      expect((await t.post('/project', { code, title: 'Shop' })).status).toBe(201);
      const res = await t.post(`/project/${code}/tcase/bulk`, {
        folderPath: ['Checkout'],
        tcases: Array.from({ length: 12 }, (_, i) => ({ title: `checkout case ${i + 1}` })),
      });
      expect(res.status).toBe(201);
      cases = res.body.tcases;
    });

    /** A static_struct run holding the cases of these seqs. */
    async function makeRun(seqs: number[]) {
      const res = await t.post(`/project/${code}/run`, {
        title: `CI ${++runCounter}`,
        type: 'static_struct',
        queryPlans: [{ tcaseIds: seqs.map((s) => cases[s - 1].id) }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as number;
    }
    const allButLast = () => makeRun([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);

    const postXml = (
      runId: number,
      xml: string,
      o: { query?: string; headers?: Record<string, string> } = {},
    ) =>
      t.request('POST', `/project/${code}/run/${runId}/junit${o.query ?? ''}`, {
        body: xml,
        headers: { 'content-type': 'application/xml', ...o.headers },
      });

    function multipart(xml: string, field = 'file') {
      const boundary = '----casebook-junit-test';
      const body =
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="TEST-report.xml"\r\n` +
        `Content-Type: text/xml\r\n\r\n${xml}\r\n--${boundary}--\r\n`;
      return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
    }

    /** Each case of the run by seq: status and the latest result's comment and time. */
    async function runState(runId: number) {
      const rows = await t.db
        .selectFrom('run_tcases as rt')
        .innerJoin('tcases as tc', 'tc.id', 'rt.tcase_id')
        .leftJoin('results as r', 'r.id', 'rt.latest_result_id')
        .select(['tc.seq', 'tc.title', 'rt.status', 'r.comment', 'r.time_taken'])
        .where('rt.run_id', '=', runId)
        .where('rt.in_run', '=', 1)
        .execute();
      return new Map(rows.map((r) => [r.seq, r]));
    }
    const resultCount = async (runId: number) =>
      Number(
        (
          await t.db
            .selectFrom('results')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('run_id', '=', runId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('records a pytest report: hyphenless and hyphenated markers, the uploader mapping, unmatched names', async () => {
      const runId = await allButLast();
      const res = await postXml(runId, fixture('pytest.xml'));
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ results: 4, unmatched: ['test_health_endpoint'], created: 0 });
      const state = await runState(runId);
      expect([1, 2, 3, 4, 5].map((s) => state.get(s)!.status)).toEqual([
        'passed',
        'failed',
        'skipped',
        'blocked',
        'open',
      ]);
      expect(state.get(1)!.time_taken).toBe(12);
      expect(state.get(2)!.comment).toContain('&gt;       assert cart.total() == Decimal("12.10")');
      expect(state.get(2)!.comment).toContain(
        '<h4>Output (stdout):</h4><pre><code>computed total for region=eu &lt;cart id=7&gt;</code></pre>',
      );
      const run = (await t.get(`/project/${code}/run`)).body.runs.find((r: { id: number }) => r.id === runId);
      expect(run.statusCounts).toMatchObject({
        all: 11,
        open: 7,
        passed: 1,
        failed: 1,
        skipped: 1,
        blocked: 1,
      });
    });

    it('records a Surefire report sent as a multipart file: camel-case markers, unicode, no nameless setup entry', async () => {
      const runId = await allButLast();
      const m = multipart(fixture('surefire.xml'));
      const res = await t.request('POST', `/project/${code}/run/${runId}/junit`, m);
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ results: 3, unmatched: ['testSomethingUnmarked'], created: 0 });
      const state = await runState(runId);
      expect(state.get(5)).toMatchObject({ status: 'passed', time_taken: 101 });
      expect(state.get(6)).toMatchObject({ status: 'passed', time_taken: 1_204_500 });
      expect(state.get(7)!.status).toBe('failed');
      expect(state.get(7)!.comment).toContain('shipping zone: ÅX &amp; &lt;island&gt;');
      expect(state.get(7)!.comment).toContain('<h4>Output (stderr):</h4>');
    });

    it('records a jest-junit report: lower-case markers, emoji and CJK names, a marker of no case unmatched', async () => {
      const runId = await allButLast();
      const res = await postXml(runId, fixture('jest-junit.xml'), {
        headers: { 'content-type': 'text/xml' },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ results: 3, unmatched: ['Cart checks out SHOP-099'], created: 0 });
      const state = await runState(runId);
      expect([8, 9, 10].map((s) => state.get(s)!.status)).toEqual(['passed', 'failed', 'passed']);
      expect(state.get(9)!.comment).toContain('Expected: 0\nReceived: 1');
    });

    it('reads nested suites; a test twice is two results, the later decides; a case outside the run is unmatched', async () => {
      const runId = await allButLast();
      const res = await postXml(runId, fixture('nested.xml'));
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ results: 2, unmatched: ['SHOP-012 keeps the cart'], created: 0 });
      expect(await resultCount(runId)).toBe(2);
      expect((await runState(runId)).get(11)).toMatchObject({ status: 'failed', time_taken: 4000 });
    });

    it('createTcases: brings project cases named by markers into the run and creates the rest in cli-import, once', async () => {
      const runId = await makeRun([1]);
      const res = await postXml(runId, fixture('jest-junit.xml'), { query: '?createTcases=true' });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ results: 4, unmatched: [], created: 1 });
      const state = await runState(runId);
      expect([...state.keys()].sort((a, b) => a - b).slice(0, 4)).toEqual([1, 8, 9, 10]);
      const createdCase = [...state.values()].find((r) => r.title === 'Cart checks out SHOP-099')!;
      expect(createdCase.status).toBe('passed');
      const folders = await t.get(`/project/${code}/tcase/folders?search=cli-import`);
      const folder = folders.body.data.find((f: { title: string }) => f.title === 'cli-import');
      const listed = await t.get(`/project/${code}/tcase?folders=${folder.id}`);
      expect(listed.body.data.map((c: { title: string }) => c.title)).toEqual(['Cart checks out SHOP-099']);

      // Again, into another run: the cli-import case of that title is reused, none created.
      const again = await makeRun([1]);
      const second = await postXml(again, fixture('jest-junit.xml'), { query: '?createTcases=true' });
      expect(second.body).toEqual({ results: 4, unmatched: [], created: 0 });
      expect((await t.get(`/project/${code}/tcase?folders=${folder.id}`)).body.data).toHaveLength(1);
    });

    it('createTcases: a draft named by a marker stays unmatched; a run that is not static_struct refuses', async () => {
      const draft = await t.post(`/project/${code}/tcase`, {
        title: 'draft case',
        type: 'standalone',
        folderId: (await t.get(`/project/${code}/tcase/folders`)).body.data[0].id,
        priority: 'medium',
        isDraft: true,
      });
      expect(draft.status, draft.text).toBe(201);
      const runId = await makeRun([1]);
      const marker = `SHOP-${String(draft.body.seq).padStart(3, '0')}`;
      const xml = `<testsuite><testcase name="${marker} drafted"/><testcase name="SHOP-001 ok"/></testsuite>`;
      const res = await postXml(runId, xml, { query: '?createTcases=true' });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ results: 1, unmatched: [`${marker} drafted`], created: 0 });

      const live = await t.post(`/project/${code}/run`, {
        title: `live ${++runCounter}`,
        type: 'live',
        queryPlans: [{ folderIds: [] }],
      });
      expect(live.status, live.text).toBe(201);
      const refused = await postXml(live.body.id, fixture('pytest.xml'), { query: '?createTcases=true' });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/only a static_struct run allows; run \d+ is live/);
      expect(await resultCount(live.body.id)).toBe(0);
    });

    it('refuses a DOCTYPE with entities (an XML bomb) with 400 and records nothing', async () => {
      const runId = await allButLast();
      const res = await postXml(runId, fixture('entity-bomb.xml'));
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/DOCTYPE declarations are refused/);
      expect(await resultCount(runId)).toBe(0);
    });

    it('refuses malformed XML, another root, an empty report, a missing file part and JSON, recording nothing', async () => {
      const runId = await allButLast();
      const truncated = await postXml(runId, fixture('truncated.xml'));
      expect(truncated.status).toBe(400);
      expect(truncated.body.message).toMatch(/^malformed XML: /);
      const other = await postXml(runId, '<html><body>SHOP-001</body></html>');
      expect(other.status).toBe(400);
      expect(other.body.message).toMatch(/not a JUnit XML report: the root element is <html>/);
      const empty = await postXml(runId, '<testsuites><testsuite name="none"/></testsuites>');
      expect(empty.status).toBe(400);
      expect(empty.body.message).toMatch(/no named <testcase>/);
      const m = multipart(fixture('pytest.xml'), 'report');
      const noFile = await t.request('POST', `/project/${code}/run/${runId}/junit`, m);
      expect(noFile.status).toBe(400);
      expect(noFile.body.message).toMatch(/no part "file"/);
      const json = await t.post(`/project/${code}/run/${runId}/junit`, { xml: fixture('pytest.xml') });
      expect(json.status).toBe(415);
      expect(json.body.message).toMatch(/application\/xml or text\/xml/);
      expect(await resultCount(runId)).toBe(0);
    });

    it('refuses a report over the body limit with 413, in either form, recording nothing', async () => {
      const runId = await allButLast();
      const big = `<testsuite><testcase name="SHOP-001"><system-out>${'x'.repeat(BODY_LIMIT)}</system-out></testcase></testsuite>`;
      const res = await postXml(runId, big);
      expect(res.status).toBe(413);
      expect(typeof res.body.message).toBe('string');
      const m = multipart(big);
      const asFile = await t.request('POST', `/project/${code}/run/${runId}/junit`, m);
      expect(asFile.status).toBe(413);
      expect(asFile.body.message).toMatch(/larger than the limit/);
      expect(await resultCount(runId)).toBe(0);
    });

    it('a closed run refuses with 409 and records nothing', async () => {
      const runId = await allButLast();
      expect((await t.post(`/project/${code}/run/${runId}/close`)).status).toBe(200);
      const res = await postXml(runId, fixture('pytest.xml'));
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(/closed/);
      expect(await resultCount(runId)).toBe(0);
    });

    it('a retry with the same Idempotency-Key answers the first answer and records nothing twice', async () => {
      const runId = await allButLast();
      const headers = { 'idempotency-key': 'ci-build-981' };
      const first = await postXml(runId, fixture('pytest.xml'), { headers });
      expect(first.status).toBe(201);
      const again = await postXml(runId, fixture('pytest.xml'), { headers });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await resultCount(runId)).toBe(4);
      // The same key with another file names another request: 409, nothing written.
      const other = await postXml(runId, fixture('nested.xml'), { headers });
      expect(other.status).toBe(409);
      expect(await resultCount(runId)).toBe(4);
    });

    it('writes in chunks; a retry after a failure part-way writes only the chunks still missing', async () => {
      const runId = await allButLast();
      const owner = await getUserByEmail(t.db, t.tenantId, 'owner@example.com');
      const actor = { tenantId: t.tenantId, userId: owner.id, apiKeyId: null, role: 'owner' } as never;
      const xml = fixture('pytest.xml');
      const claim = idempotencyClaim(actor, 'POST', `/x/${runId}`, 'chunked-1', { xml });
      const o = {
        createTcases: false,
        claim,
        tcasesChanged: async () => {},
        chunkSize: 2,
        parsers: t.app.ctx.parsers,
      };
      expect(await recordJUnit(t.db, actor, code, runId, xml, o)).toEqual({
        results: 4,
        unmatched: ['test_health_endpoint'],
        created: 0,
      });
      expect(await resultCount(runId)).toBe(4);
      // The second chunk's record and the request's answer forgotten: a retry writes that chunk alone again.
      await t.db
        .deleteFrom('idempotency_keys')
        .where('idem_key', '=', 'chunked-1')
        .where('route', 'in', [claim.route, `${claim.route} chunk 1`])
        .execute();
      await recordJUnit(t.db, actor, code, runId, xml, o);
      expect(await resultCount(runId)).toBe(6);
      // Now every chunk is recorded: a further retry writes nothing.
      await recordJUnit(t.db, actor, code, runId, xml, o);
      expect(await resultCount(runId)).toBe(6);
    });
  },
  { env: { CASEBOOK_BODY_LIMIT: String(BODY_LIMIT) } },
);
