import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { auditRows, createProject, memberWithKey } from '../../../../test/helpers/factories.js';
import { createRun } from '../../../../test/helpers/run-factories.js';
import { cases } from '../../../../test/helpers/report-factories.js';

/** extensions.md §7a: backdated history, docs/api-decisions.md#backdated-history. */
describeEachDb('backdated history', (t) => {
  it('a scripted migration of three runs created out of id order is read in time order by trend, flaky and history', async () => {
    const p = await createProject(t);
    const [c1, c2] = await cases(t, p, 2);
    // Created March, then January, then February: ids and times disagree.
    const plan = [
      { day: '2024-03-01', s1: 'passed', s2: 'failed' },
      { day: '2024-01-01', s1: 'failed', s2: 'passed' },
      { day: '2024-02-01', s1: 'passed', s2: 'passed' },
    ];
    const runIds: number[] = [];
    for (const [i, r] of plan.entries()) {
      const { id } = await createRun(t, p, {
        tcaseIds: [c1.id, c2.id],
        createdAt: `${r.day}T09:00:00Z`,
      });
      runIds.push(id);
      const at = `${r.day}T10:00:00.000Z`;
      if (i === 0) {
        // One batch and one single result: both paths take createdAt.
        const res = await t.post(`/project/${p.code}/run/${id}/result/batch`, {
          items: [{ tcaseId: c1.id, status: r.s1, createdAt: at }],
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      } else {
        const res = await t.post(`/project/${p.code}/run/${id}/tcase/${c1.seq}/result`, {
          status: r.s1,
          createdAt: at,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
      const res = await t.post(`/project/${p.code}/run/${id}/tcase/${c2.seq}/result`, {
        status: r.s2,
        createdAt: `${r.day}T11:00:00+01:00`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const [march, january, february] = runIds;

    const stored = await t.db
      .selectFrom('results')
      .select(['run_id', 'created_at'])
      .where('tcase_id', '=', c2.id)
      .orderBy('id')
      .execute();
    expect(stored).toEqual([
      { run_id: march, created_at: '2024-03-01T10:00:00.000Z' },
      { run_id: january, created_at: '2024-01-01T10:00:00.000Z' },
      { run_id: february, created_at: '2024-02-01T10:00:00.000Z' },
    ]);

    const trend = await t.get(`/project/${p.code}/report/trend`, { query: { by: 'run' } });
    expect(trend.status).toBe(200);
    expect(trend.body.points.map((pt: { key: string; at: string }) => [pt.key, pt.at])).toEqual([
      [String(january), '2024-01-01T09:00:00.000Z'],
      [String(february), '2024-02-01T09:00:00.000Z'],
      [String(march), '2024-03-01T09:00:00.000Z'],
    ]);
    const byDay = await t.get(`/project/${p.code}/report/trend`, { query: { by: 'day' } });
    expect(byDay.body.points.map((pt: { key: string }) => pt.key)).toEqual([
      '2024-01-01',
      '2024-02-01',
      '2024-03-01',
    ]);

    // In time order c1 went failed → passed → passed (one flip; by id it would be two), c2 passed → passed →
    // failed (one flip, last failed; by id the last would be passed).
    const flaky = await t.get(`/project/${p.code}/report/flaky`);
    expect(flaky.status).toBe(200);
    expect(flaky.body.tcases.map((c: any) => [c.seq, c.flips, c.lastStatus])).toEqual([
      [c1.seq, 1, 'passed'],
      [c2.seq, 1, 'failed'],
    ]);

    const history = await t.get(`/project/${p.code}/tcase/${c1.seq}/results`);
    expect(history.body.results.map((r: any) => [r.run.id, r.createdAt])).toEqual([
      [march, '2024-03-01T10:00:00.000Z'],
      [february, '2024-02-01T10:00:00.000Z'],
      [january, '2024-01-01T10:00:00.000Z'],
    ]);

    const events = (await auditRows(t, 'history.backdated', t.ownerId)).map((e) => JSON.parse(e.meta!));
    const ofMarch = events.filter((e) => e.run_id === march);
    expect(ofMarch).toEqual([
      expect.objectContaining({ project_code: p.code, run_backdated: true, results: 0 }),
      expect.objectContaining({ run_backdated: false, results: 1, earliest: '2024-03-01T10:00:00.000Z' }),
      expect.objectContaining({ run_backdated: false, results: 1 }),
    ]);
    expect(events).toHaveLength(9);
  });

  describe('refusals', () => {
    it('answers 403 to a test-runner, 400 for a future time or one before the run, and stores nothing', async () => {
      const p = await createProject(t);
      const [c1] = await cases(t, p, 1);
      const runner = await memberWithKey(t, 'test-runner', p);
      const body = { title: 'Old run', type: 'static_struct', queryPlans: [{ tcaseIds: [c1.id] }] };
      const old = { ...body, createdAt: '2024-01-01T00:00:00Z' };

      const asRunner = await t.post(`/project/${p.code}/run`, old, { key: runner.key });
      expect(asRunner.status).toBe(403);
      expect(asRunner.body.message).toMatch(/admin or owner/);

      const future = await t.post(`/project/${p.code}/run`, { ...body, createdAt: '2999-01-01T00:00:00Z' });
      expect(future.status).toBe(400);
      expect(future.body.message).toMatch(/createdAt 2999-01-01T00:00:00Z is in the future/);
      expect(
        await t.db.selectFrom('runs').select('id').where('project_id', '=', p.id).execute(),
      ).toHaveLength(0);

      const { id: runId } = await createRun(t, p, { ...old, title: 'Old run' });
      const result = `/project/${p.code}/run/${runId}/tcase/${c1.seq}/result`;
      const runnerResult = await t.post(
        result,
        { status: 'passed', createdAt: '2024-02-01T00:00:00Z' },
        { key: runner.key },
      );
      expect(runnerResult.status).toBe(403);
      const before = await t.post(result, { status: 'passed', createdAt: '2023-12-31T23:59:59Z' });
      expect(before.status).toBe(400);
      expect(before.body.message).toMatch(
        new RegExp(
          `createdAt 2023-12-31T23:59:59Z is before run ${runId}, created at 2024-01-01T00:00:00.000Z`,
        ),
      );
      const batch = await t.post(`/project/${p.code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: c1.id, status: 'passed', createdAt: '2024-02-01T00:00:00Z' },
          { tcaseId: c1.id, status: 'failed', createdAt: '2999-01-01T00:00:00Z' },
        ],
      });
      expect(batch.status).toBe(400);
      expect(batch.body.details).toEqual([
        { path: '/items/1/createdAt', message: expect.stringMatching(/is in the future/) },
      ]);
      expect(
        await t.db.selectFrom('results').select('id').where('run_id', '=', runId).execute(),
      ).toHaveLength(0);
      // Only the run's own creation was audited.
      const events = await auditRows(t, 'history.backdated');
      expect(events.filter((e) => JSON.parse(e.meta!).run_id === runId)).toHaveLength(1);
    });
  });
});
