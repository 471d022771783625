import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { cases, runWith, type Project } from '../../../test/helpers/report-factories.js';
import * as m0020 from '../../db/migrations/0020_result_link_runs.js';

/*
 * The reports over the last N runs read by run, not through the history: result links carry their run (migration
 * 0020, written with the result), and flaky and slowest name only the cases they show. What each write leaves
 * behind must keep the answers right.
 */
describeEachDb('reports over the last N runs', (t) => {
  const bug = (n: number | string) => ({ url: `https://bugs.example/${n}`, text: `BUG-${n}` });

  /** The stored links of these runs' results (found through the results), with the run each link names. */
  const storedLinkRuns = async (runIds: number[]) =>
    (
      await t.db
        .selectFrom('result_links as l')
        .innerJoin('results as r', 'r.id', 'l.result_id')
        .select(['l.url', 'l.run_id'])
        .where('r.run_id', 'in', runIds)
        .orderBy('l.id')
        .execute()
    ).map((l) => [l.url, Number(l.run_id)]);

  async function linkedHistory(p: Project) {
    const [x, y] = await cases(t, p, 2);
    // A batch and single results: both write paths store the link's run.
    const { id: batchRun } = await createRun(t, p, { tcaseIds: [x.id, y.id] });
    const batch = await t.post(`/project/${p.code}/run/${batchRun}/result/batch`, {
      items: [
        { tcaseId: x.id, status: 'failed', links: [bug(1)] },
        { tcaseId: y.id, status: 'passed' },
      ],
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    const singleRun = await runWith(t, p, [
      [x, 'failed', { links: [bug(1), bug(2)] }],
      [y, 'blocked', { links: [bug(2)] }],
    ]);
    return { x, y, batchRun, singleRun };
  }

  it('stores each link with its run, from batches and single results, and the defects report reads them by run', async () => {
    const p = await createProject(t);
    const { x, y, batchRun, singleRun } = await linkedHistory(p);
    expect(await storedLinkRuns([batchRun, singleRun])).toEqual([
      [bug(1).url, batchRun],
      [bug(1).url, singleRun],
      [bug(2).url, singleRun],
      [bug(2).url, singleRun],
    ]);
    const all = (await t.get(`/project/${p.code}/report/defects`)).body.defects;
    expect(
      all.map((d: { url: string; runs: number[]; tcases: number[] }) => [d.url, d.runs, d.tcases]),
    ).toEqual([
      [bug(2).url, [singleRun], [x.seq, y.seq].sort((a, b) => a - b)],
      [bug(1).url, [batchRun, singleRun], [x.seq]],
    ]);
    const newest = (await t.get(`/project/${p.code}/report/defects`, { query: { last: 1 } })).body.defects;
    expect(newest.map((d: { url: string; runs: number[] }) => [d.url, d.runs])).toEqual([
      [bug(2).url, [singleRun]],
      [bug(1).url, [singleRun]],
    ]);
  });

  it("never shows another project's links, and a deleted project's runs take their links with them", async () => {
    const p = await createProject(t);
    const other = await createProject(t);
    const { singleRun } = await linkedHistory(p);
    const [z] = await cases(t, other, 1);
    const otherRun = await runWith(t, other, [[z, 'failed', { links: [bug('other')] }]]);

    const urls = async (q: Project) =>
      (await t.get(`/project/${q.code}/report/defects`)).body.defects.map((d: { url: string }) => d.url);
    expect(await urls(p)).toEqual([bug(2).url, bug(1).url]);
    expect(await urls(other)).toEqual([bug('other').url]);

    expect((await t.del(`/project/${other.code}`)).status).toBe(200);
    expect(await storedLinkRuns([otherRun])).toEqual([]);
    expect(
      await t.db.selectFrom('result_links').select('id').where('run_id', '=', otherRun).execute(),
    ).toEqual([]);
    expect(await urls(p)).toEqual([bug(2).url, bug(1).url]);
    expect(await storedLinkRuns([singleRun])).toHaveLength(3);
  });

  it('migration 0020 gives the links written before it the run of their result', async () => {
    const p = await createProject(t);
    const { batchRun, singleRun } = await linkedHistory(p);
    const before = await t.get(`/project/${p.code}/report/defects`);
    await m0020.down(t.db);
    await m0020.up(t.db);
    expect(await storedLinkRuns([batchRun, singleRun])).toEqual([
      [bug(1).url, batchRun],
      [bug(1).url, singleRun],
      [bug(2).url, singleRun],
      [bug(2).url, singleRun],
    ]);
    expect((await t.get(`/project/${p.code}/report/defects`)).body).toEqual(before.body);
  });

  describe('flaky and slowest name only the cases they show', () => {
    it('cuts flaky cases at the limit with ties in flips and runs ordered by seq', async () => {
      const p = await createProject(t);
      const [a, b, c, d] = await cases(t, p, 4);
      // a flips twice; b, c and d once each in the same two runs: a tie that seq breaks.
      await runWith(t, p, [
        [a, 'passed'],
        [b, 'passed'],
        [c, 'passed'],
        [d, 'passed'],
      ]);
      await runWith(t, p, [
        [a, 'failed'],
        [b, 'failed'],
        [c, 'blocked'],
        [d, 'failed'],
      ]);
      await runWith(t, p, [
        [a, 'passed'],
        [b, 'failed'],
        [c, 'blocked'],
        [d, 'skipped'],
      ]);
      const r = (await t.get(`/project/${p.code}/report/flaky`, { query: { limit: 3 } })).body;
      expect(
        r.tcases.map((x: { seq: number; flips: number; runs: number }) => [x.seq, x.flips, x.runs]),
      ).toEqual([
        [a.seq, 2, 3],
        [b.seq, 1, 3],
        [c.seq, 1, 3],
      ]);
    });

    it('cuts the slowest cases at the limit with equal times ordered by seq', async () => {
      const p = await createProject(t);
      const [a, b, c, d] = await cases(t, p, 4);
      await runWith(t, p, [
        [a, 'passed', { timeTaken: 50 }],
        [b, 'passed', { timeTaken: 900 }],
        [c, 'passed', { timeTaken: 50 }],
        [d, 'passed', { timeTaken: 50 }],
      ]);
      const shown = async (limit: number) =>
        (await t.get(`/project/${p.code}/report/slowest`, { query: { limit } })).body.tcases.map(
          (x: { seq: number; medianMs: number }) => [x.seq, x.medianMs],
        );
      expect(await shown(3)).toEqual([
        [b.seq, 900],
        [a.seq, 50],
        [c.seq, 50],
      ]);
    });
  });
});
