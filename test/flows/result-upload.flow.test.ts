import { expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';

/**
 * docs/api-decisions.md#result-uploader-sequence: the result uploader's sequence, driven through the HTTP API the way the CLI does
 * (Bearer scheme, project code in lower case, JSON content type on a body-less GET), then the run checked.
 */

interface ReportedTest {
  name: string;
  status: 'passed' | 'failed' | 'skipped' | 'blocked';
  timeTaken: number | null;
}

const EXISTING = 300;
const UNMARKED = 200;

/** A test report of 500 tests: 300 with markers (`UPL-001: …`), 200 without. */
function report(code: string): ReportedTest[] {
  const out: ReportedTest[] = [];
  for (let seq = 1; seq <= EXISTING; seq++) {
    out.push({
      name: `${code}-${String(seq).padStart(3, '0')}: checkout step ${seq}`,
      status: seq % 10 === 0 ? 'failed' : seq % 25 === 1 ? 'skipped' : 'passed',
      timeTaken: seq % 7 === 0 ? null : seq * 3,
    });
  }
  // Tests without a marker: created in ["cli-import"] by the first upload, matched by title afterwards.
  for (let i = 0; i < UNMARKED; i++) {
    out.push({ name: `unmarked test ${i}`, status: i % 20 === 0 ? 'blocked' : 'passed', timeTaken: i });
  }
  return out;
}

describeEachDb('flow: result upload (the uploader sequence)', (t) => {
  const cli = (method: string, url: string, body?: unknown) =>
    t.request(method, url, {
      key: null,
      body,
      headers: { authorization: `Bearer ${t.ownerKey}`, 'content-type': 'application/json' },
    });

  /** Step 3 of §5 (`--create-tcases`): find or create the unmarked tests in the cli-import folder. */
  async function createMissing(code: string, names: string[]) {
    const folders = await cli('GET', `/project/${code}/tcase/folders?search=cli-import`);
    expect(folders.status).toBe(200);
    const folder = folders.body.data.find((f: { title: string }) => f.title === 'cli-import');
    const known = new Map<string, string>();
    if (folder) {
      const listed = await cli('GET', `/project/${code}/tcase?folders=${folder.id}&limit=5000`);
      expect(listed.status).toBe(200);
      expect(listed.body).toMatchObject({ total: expect.any(Number), offset: 0, limit: 5000, page: 1 });
      for (const tc of listed.body.data) known.set(tc.title, tc.id);
    }
    const missing = names.filter((n) => !known.has(n));
    if (missing.length > 0) {
      const created = await cli('POST', `/project/${code}/tcase/bulk`, {
        folderPath: ['cli-import'],
        tcases: missing.map((title) => ({ title, tags: ['cli-import'] })),
      });
      expect(created.status).toBe(201);
      expect(created.body.tcases).toHaveLength(missing.length);
      missing.forEach((title, i) => known.set(title, created.body.tcases[i].id));
    }
    return { known, created: missing.length, folderExisted: folder !== undefined };
  }

  async function upload(code: string, round: number, runTitle: string) {
    const tests = report(code);

    // 1. The project exists.
    expect((await cli('GET', `/project/${code.toLowerCase()}`)).status).toBe(200);

    // 2. Markers → test cases, 5000 a page; an unknown marker is simply absent.
    const markers = [
      ...tests.map((x) => /\b([A-Z0-9]+-\d{3,})\b/.exec(x.name)?.[1]).filter((m): m is string => !!m),
      `${code}-9999`,
    ];
    const bySeq = await cli('POST', `/project/${code}/tcase/seq`, { seqIds: markers, limit: 5000 });
    expect(bySeq.status).toBe(200);
    expect(bySeq.body).toMatchObject({ total: EXISTING, offset: 0, limit: 5000, page: 1 });
    const markerIds: string[] = bySeq.body.data.map((tc: { id: string }) => tc.id);

    // 3. Unmarked tests are found or created in ["cli-import"].
    const unmarked = tests.filter((x) => !/-\d{3,}:/.test(x.name)).map((x) => x.name);
    const imported = await createMissing(code, unmarked);

    // 4. The run: static_struct with duplicated ids; a taken title names the run to reuse.
    const tcaseIds = [...markerIds, ...imported.known.values(), ...markerIds.slice(0, 10)];
    let res = await cli('POST', `/project/${code}/run`, {
      title: runTitle,
      type: 'static_struct',
      queryPlans: [{ tcaseIds }],
    });
    let runId: number;
    if (res.status === 201) {
      runId = res.body.id;
    } else {
      expect(res.status).toBe(409);
      const match = /conflicting run id: (\d+)$/.exec(res.body.message);
      expect(match, res.body.message).not.toBeNull();
      runId = Number(match![1]);
    }

    // 5. The run's cases, matched by seq (markers) or title (imported).
    res = await cli('GET', `/project/${code}/run/${runId}/tcase`);
    expect(res.status).toBe(200);
    const runCases: { id: string; seq: number; title: string }[] = res.body.tcases;
    const caseFor = (x: ReportedTest) => {
      const marker = /-(\d{3,}):/.exec(x.name);
      return marker
        ? runCases.find((c) => c.seq === Number(marker[1]))
        : runCases.find((c) => c.title === x.name);
    };

    // 6. A suite-level failure goes to the run log.
    res = await cli('POST', `/project/${code}/run/${runId}/log`, {
      comment: `<p>round ${round}: <b>beforeAll</b> hook failed in suite "payments"</p>`,
    });
    expect(res.status).toBe(201);
    expect(typeof res.body.id).toBe('string');

    // 7. Results, 500 a batch.
    const items = tests.map((x) => ({
      tcaseId: caseFor(x)!.id,
      status: x.status,
      comment: x.status === 'failed' ? `<pre>AssertionError in ${x.name}</pre>` : '',
      timeTaken: x.timeTaken,
    }));
    const ids: number[] = [];
    for (let i = 0; i < items.length; i += 500) {
      res = await cli('POST', `/project/${code}/run/${runId}/result/batch`, {
        items: items.slice(i, i + 500),
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
      ids.push(...res.body.ids);
    }
    return { runId, tests, ids, imported, caseFor };
  }

  it('finds, creates, runs and records 500 results, then reuses the run on the next upload', async () => {
    const code = 'UPL';
    expect((await t.post('/project', { code, title: 'Uploads' })).status).toBe(201);
    const seeded = await t.post(`/project/${code}/tcase/bulk`, {
      folderPath: ['Checkout'],
      tcases: Array.from({ length: EXISTING }, (_, i) => ({ title: `checkout step ${i + 1}` })),
    });
    expect(seeded.status).toBe(201);

    const first = await upload(code, 1, 'CI build 42');
    expect(first.imported).toMatchObject({ created: UNMARKED, folderExisted: false });
    expect(first.ids).toHaveLength(500);
    expect(new Set(first.ids).size).toBe(500);

    // The run: one case per distinct id, statuses and counters as the report says.
    const runs = await t.get(`/project/${code}/run`);
    const run = runs.body.runs.find((r: { id: number }) => r.id === first.runId);
    const failed = first.tests.filter((x) => x.status === 'failed').length;
    const skipped = first.tests.filter((x) => x.status === 'skipped').length;
    const blocked = first.tests.filter((x) => x.status === 'blocked').length;
    const total = EXISTING + UNMARKED;
    expect(run.statusCounts).toEqual({
      all: total,
      open: 0,
      passed: total - failed - skipped - blocked,
      failed,
      skipped,
      blocked,
      custom1: 0,
      custom2: 0,
      custom3: 0,
      custom4: 0,
    });
    expect(run.isAutomated).toBe(true);
    const cases = (await t.get(`/project/${code}/run/${first.runId}/tcase`)).body.tcases;
    expect(cases).toHaveLength(total);
    for (const x of first.tests) {
      const c = cases.find((tc: { id: string }) => tc.id === first.caseFor(x)!.id);
      expect(c, x.name).toMatchObject({ status: x.status, isAutomated: true });
    }

    // The imported cases are tagged cli-import.
    const importedOne = await t.get(`/project/${code}/tcase/${first.imported.known.get('unmarked test 0')}`);
    expect(importedOne.body.tags.map((tag: { title: string }) => tag.title)).toEqual(['cli-import']);

    // Second upload with the same run title: the 409 names the run, which is reused, and the imported
    // cases are found in the existing cli-import folder instead of being created again.
    const conflict = await t.post(`/project/${code}/run`, {
      title: 'CI build 42',
      type: 'static_struct',
      queryPlans: [{ tcaseIds: [] }],
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toMatch(new RegExp(`conflicting run id: ${first.runId}$`));

    const second = await upload(code, 2, 'CI build 42');
    expect(second.runId).toBe(first.runId);
    expect(second.imported).toMatchObject({ created: 0, folderExisted: true });
    expect((await t.get(`/project/${code}/run/${first.runId}/log`)).body.logs).toHaveLength(2);

    // Every result of both uploads is stored; the counters still match the statuses.
    const stored = await t.db
      .selectFrom('results')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('run_id', '=', first.runId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(2 * total);
    const after = (await t.get(`/project/${code}/run`)).body.runs.find(
      (r: { id: number }) => r.id === first.runId,
    );
    expect(after.statusCounts).toEqual(run.statusCounts);
  });
});
