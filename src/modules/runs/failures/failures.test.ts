import { expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { addResult, createRun } from '../../../../test/helpers/run-factories.js';
import { cases } from '../../../../test/helpers/report-factories.js';
import { failureSignature, SIGNATURE_VERSION } from '../../../lib/failure-signature.js';
import { backfillFailureSignatures } from './failures.service.js';
import { timeout } from '../../../../test/helpers/triage-factories.js';

const TIMEOUT = (ms: number) => timeout('#checkout', ms);

describeEachDb('failure signatures stored with results', (t) => {
  const stored = (runId: number) =>
    t.db
      .selectFrom('failure_signatures')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('result_id')
      .execute();

  it('signs a single failed or blocked result as it is recorded, and no other status', async () => {
    const p = await createProject(t);
    const [a, b, c] = await cases(t, p, 3);
    const { id: runId } = await createRun(t, p, { tcaseIds: [a.id, b.id, c.id] });
    const failed = await addResult(t, p, runId, a.id, 'failed', { comment: TIMEOUT(30000) });
    const blocked = await addResult(t, p, runId, b.id, 'blocked', { comment: TIMEOUT(5000) });
    await addResult(t, p, runId, c.id, 'passed', { comment: TIMEOUT(1) });
    const rows = await stored(runId);
    const expected = failureSignature(TIMEOUT(1));
    expect(rows).toEqual([
      expect.objectContaining({ result_id: failed, project_id: p.id, tcase_id: a.id, ...expected }),
      expect.objectContaining({ result_id: blocked, project_id: p.id, tcase_id: b.id, ...expected }),
    ]);
    expect(rows[0].label).toBe('locator.click: Timeout <n>ms exceeded.');
  });

  it('signs every failed item of a batch in its transaction', async () => {
    const p = await createProject(t);
    const [a, b] = await cases(t, p, 2);
    const { id: runId } = await createRun(t, p, { tcaseIds: [a.id, b.id] });
    const res = await t.post(`/project/${p.code}/run/${runId}/result/batch`, {
      items: [
        { tcaseId: a.id, status: 'failed', comment: '<p>AssertionError: expected 3 to equal 4</p>' },
        { tcaseId: b.id, status: 'failed', comment: '<p>AssertionError: expected 7 to equal 9</p>' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const rows = await stored(runId);
    expect(rows.map((r) => r.result_id)).toEqual(res.body.ids);
    expect(new Set(rows.map((r) => r.signature)).size).toBe(1);
    expect(rows[0].label).toBe('AssertionError: expected <n> to equal <n>');
  });

  it('signs the failures of a JUnit upload from the message and stack the endpoint writes', async () => {
    const p = await createProject(t, { code: 'JUNT' });
    const [a, b] = await cases(t, p, 2);
    const { id: runId } = await createRun(t, p, { tcaseIds: [a.id, b.id] });
    const xml = `<testsuite name="s"><testcase name="${p.code}-00${a.seq} pays" time="1">
      <failure message="expected: &lt;200&gt; but was: &lt;500&gt;">org.opentest4j.AssertionFailedError: expected: &lt;200&gt; but was: &lt;500&gt;
\tat com.shop.OrdersTest.pays(OrdersTest.java:42)</failure></testcase>
      <testcase name="${p.code}-00${b.seq} lists"><error message="boom">java.lang.IllegalStateException: boom</error></testcase></testsuite>`;
    const res = await t.request('POST', `/project/${p.code}/run/${runId}/junit`, {
      body: xml,
      headers: { 'content-type': 'application/xml' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ results: 2, unmatched: [] });
    const rows = await stored(runId);
    expect(rows.map((r) => [r.tcase_id, r.label])).toEqual([
      [a.id, 'org.opentest4j.AssertionFailedError: expected: <<n>> but was: <<n>>'],
      [b.id, 'java.lang.IllegalStateException: boom'],
    ]);
  });

  it('backfills failures stored without a signature (recorded before migration 0041), once', async () => {
    const p = await createProject(t);
    const [a] = await cases(t, p, 1);
    const { id: runId } = await createRun(t, p, { tcaseIds: [a.id] });
    const id = await addResult(t, p, runId, a.id, 'failed', { comment: TIMEOUT(100) });
    await t.db.deleteFrom('failure_signatures').where('result_id', '=', id).execute();
    const first = await backfillFailureSignatures(t.db);
    expect(first.signed).toBe(1);
    expect(await stored(runId)).toEqual([
      expect.objectContaining({ result_id: id, ...failureSignature(TIMEOUT(1)) }),
    ]);
    expect((await backfillFailureSignatures(t.db)).signed).toBe(0);
    expect((await backfillFailureSignatures(t.db, first.checkedUpTo)).checkedUpTo).toBe(first.checkedUpTo);
  });

  it('signs again what an older normaliser signed, so old and new failures of one problem keep one signature', async () => {
    const p = await createProject(t);
    const [a, b] = await cases(t, p, 2);
    const { id: runId } = await createRun(t, p, { tcaseIds: [a.id, b.id] });
    const old = await addResult(t, p, runId, a.id, 'failed', { comment: TIMEOUT(100) });
    const fresh = await addResult(t, p, runId, b.id, 'failed', { comment: TIMEOUT(200) });
    // As a version 1 normaliser stored it: another signature and label, no version (the column's default).
    await t.db
      .updateTable('failure_signatures')
      .set({ signature: 'f'.repeat(32), label: 'old label', version: 1 })
      .where('result_id', '=', old)
      .execute();
    const out = await backfillFailureSignatures(t.db);
    expect(out.signed).toBe(1);
    const rows = await t.db
      .selectFrom('failure_signatures')
      .select(['result_id', 'signature', 'label', 'version'])
      .where('run_id', '=', runId)
      .orderBy('result_id')
      .execute();
    const now = failureSignature(TIMEOUT(1));
    expect(rows).toEqual([
      { result_id: old, ...now, version: SIGNATURE_VERSION },
      { result_id: fresh, ...now, version: SIGNATURE_VERSION },
    ]);
    expect((await backfillFailureSignatures(t.db)).signed).toBe(0);
  });
});
