import { expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { addResult, createRun } from '../../../../test/helpers/run-factories.js';
import { createTcase, getTcase } from '../../../../test/helpers/tcase-factories.js';

/** extensions.md §8 "Per-step results", docs/api-decisions.md#per-step-results. */
describeEachDb('per-step results', (t) => {
  async function caseWithSteps(p: { code: string }) {
    const c = await createTcase(t, p, {
      steps: [
        { description: 'open', expected: 'opened' },
        { description: 'pay', expected: 'paid' },
        { description: 'close', expected: 'closed' },
      ],
    });
    const stepIds = (await getTcase(t, p, c.id)).steps.map((s: { id: number }) => s.id);
    return { ...c, stepIds };
  }

  it('stores steps named by id or position and answers them on the result, history, run report and CSV', async () => {
    const p = await createProject(t);
    const c = await caseWithSteps(p);
    const plain = await createTcase(t, p);
    const { id: runId } = await createRun(t, p, { tcaseIds: [c.id, plain.id] });
    const first = await addResult(t, p, runId, c.seq, 'passed');
    const res = await t.post(`/project/${p.code}/run/${runId}/result/batch`, {
      items: [
        {
          tcaseId: c.id,
          status: 'failed',
          steps: [
            { stepId: c.stepIds[0], status: 'passed' },
            { position: 2, status: 'failed', comment: '<p>declined</p><script>x</script>' },
          ],
        },
        { tcaseId: plain.id, status: 'passed' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [withSteps] = res.body.ids;
    const expected = [
      { stepId: c.stepIds[0], position: 1, status: 'passed', comment: '' },
      { stepId: c.stepIds[1], position: 2, status: 'failed', comment: '<p>declined</p>' },
    ];
    const stored = await t.db
      .selectFrom('result_steps')
      .select(['result_id', 'run_id', 'position', 'step_id', 'status'])
      .orderBy('position')
      .where('run_id', '=', runId)
      .execute();
    expect(stored).toEqual(
      expected.map((s) => ({
        result_id: withSteps,
        run_id: runId,
        position: s.position,
        step_id: s.stepId,
        status: s.status,
      })),
    );

    const detail = await t.get(`/project/${p.code}/run/${runId}/tcase/${c.seq}`);
    expect(detail.status).toBe(200);
    expect(detail.body.results.map((r: any) => [r.id, r.steps])).toEqual([
      [first, undefined],
      [withSteps, expected],
    ]);
    expect('steps' in detail.body.results[0]).toBe(false);

    const history = await t.get(`/project/${p.code}/tcase/${c.seq}/results`);
    expect(history.body.results[0].steps).toEqual(expected);

    const report = await t.get(`/project/${p.code}/run/${runId}/report`);
    expect(report.body.failures).toEqual([expect.objectContaining({ seq: c.seq, steps: expected })]);
    const csv = await t.get(`/project/${p.code}/run/${runId}/report`, { query: { format: 'csv' } });
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0].endsWith(',timeTakenMs,steps')).toBe(true);
    expect(lines.find((l: string) => l.startsWith(`${c.seq},`))!.endsWith(',1:passed 2:failed')).toBe(true);
    expect(lines.find((l: string) => l.startsWith(`${plain.seq},`))!.endsWith(',')).toBe(true);
  });

  it('refuses unknown, repeated, unnamed and inactive steps with a 400 naming them, storing nothing', async () => {
    const p = await createProject(t);
    const c = await caseWithSteps(p);
    const { id: runId } = await createRun(t, p, { tcaseIds: [c.id] });
    const url = `/project/${p.code}/run/${runId}/tcase/${c.seq}/result`;

    const missing = await t.post(url, {
      status: 'failed',
      steps: [
        { position: 9, status: 'failed' },
        { stepId: 99999999, status: 'passed' },
      ],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(
      /steps not in version 1 of test case .* \(3 steps\): position 9, stepId 99999999/,
    );

    const twice = await t.post(url, {
      status: 'failed',
      steps: [
        { position: 1, status: 'failed' },
        { stepId: c.stepIds[0], status: 'passed' },
        { status: 'passed' },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.details).toEqual([
      { path: '/steps/1', message: 'step 1 is given more than once' },
      { path: '/steps/2', message: 'a step is named by stepId or position' },
    ]);

    const inactive = await t.post(`/project/${p.code}/run/${runId}/result/batch`, {
      items: [{ tcaseId: c.id, status: 'passed', steps: [{ position: 1, status: 'custom1' }] }],
    });
    expect(inactive.status).toBe(400);
    expect(inactive.body.details).toEqual([
      { path: '/items/0/steps/0/status', message: 'status custom1 is not active' },
    ]);
    expect(await t.db.selectFrom('results').select('id').where('run_id', '=', runId).execute()).toEqual([]);
    expect(
      await t.db.selectFrom('result_steps').select('result_id').where('run_id', '=', runId).execute(),
    ).toEqual([]);
  });
});
