import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { cases, runWith, type Project } from '../../../test/helpers/report-factories.js';
import { FLAKY_DECAY, flakyScore } from './flaky-score.js';

describe('flakyScore', () => {
  it('weighs each change by its age and answers the share that flipped', () => {
    // Changes, oldest first: flip, steady, flip → weights d², d, 1.
    const d = FLAKY_DECAY;
    expect(flakyScore(['passed', 'failed', 'failed', 'passed'])).toEqual({
      flips: 2,
      score: Math.round(((d * d + 1) / (d * d + d + 1)) * 1000) / 1000,
    });
    // Other statuses neither flip nor count; fewer than two passed/failing results score 0.
    expect(flakyScore(['passed', 'skipped', 'blocked', 'open'])).toEqual({ flips: 1, score: 1 });
    expect(flakyScore(['failed'])).toEqual({ flips: 0, score: 0 });
    expect(flakyScore(['passed', 'passed', 'passed'])).toEqual({ flips: 0, score: 0 });
  });
});

describeEachDb('the flaky score on the flaky report and per run', (t) => {
  const configuration = async (p: Project, title: string) => {
    const res = await t.post(`/project/${p.code}/configuration`, { title });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  type Row = {
    tcaseId: string;
    flips: number;
    score: number;
    configurations: {
      configurationId: string | null;
      configurationTitle: string | null;
      flips: number;
      runs: number;
      score: number;
      history: { runId: number; title: string; status: string; createdAt: string }[];
    }[];
  };
  const flaky = async (p: Project, query: Record<string, number> = {}) => {
    const res = await t.get(`/project/${p.code}/report/flaky`, { query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.tcases as Row[];
  };

  it('scores a case that flips in recent runs above one that flipped long ago, and answers the runs in order', async () => {
    const p = await createProject(t);
    const [recent, old] = await cases(t, p, 2);
    // Both flip twice over eight runs: `old` in its first three, `recent` in its last three.
    const statuses: [string, string][] = [
      ['passed', 'passed'],
      ['passed', 'failed'],
      ['passed', 'passed'],
      ['passed', 'passed'],
      ['passed', 'passed'],
      ['passed', 'passed'],
      ['failed', 'passed'],
      ['passed', 'passed'],
    ];
    const runIds: number[] = [];
    for (const [i, [a, b]] of statuses.entries())
      runIds.push(
        await runWith(
          t,
          p,
          [
            [recent, a],
            [old, b],
          ],
          { title: `Nightly ${i + 1}` },
        ),
      );
    const rows = await flaky(p);
    const of = (id: string) => rows.find((r) => r.tcaseId === id)!;
    expect(of(recent.id).flips).toBe(2);
    expect(of(old.id).flips).toBe(2);
    expect(of(recent.id).score).toBeGreaterThan(of(old.id).score);
    expect(of(recent.id).score).toBeGreaterThan(0.4);
    expect(of(old.id).score).toBeLessThan(0.2);
    // The runs that show it: one configuration (none), every run oldest first with its title and status.
    expect(of(recent.id).configurations).toEqual([
      {
        configurationId: null,
        configurationTitle: null,
        flips: 2,
        runs: 8,
        score: of(recent.id).score,
        history: statuses.map(([a], i) => ({
          runId: runIds[i],
          title: `Nightly ${i + 1}`,
          status: a,
          createdAt: expect.any(String),
        })),
      },
    ]);
  });

  it('scores each configuration apart: a case flipping on one is steady on the other', async () => {
    const p = await createProject(t);
    const [c] = await cases(t, p, 1);
    const linux = await configuration(p, 'Chrome on Linux');
    const windows = await configuration(p, 'Edge on Windows');
    // Alternating runs: Linux flips every time, Windows always fails; mixed, the sequence flips three times.
    const plan: [string, string][] = [
      [linux, 'passed'],
      [windows, 'failed'],
      [linux, 'failed'],
      [windows, 'failed'],
      [linux, 'passed'],
      [windows, 'failed'],
    ];
    const ids: number[] = [];
    for (const [configurationId, status] of plan)
      ids.push(await runWith(t, p, [[c, status]], { configurationId }));
    const [row] = await flaky(p);
    expect(row.tcaseId).toBe(c.id);
    expect(row.flips).toBe(3);
    expect(
      row.configurations.map((x) => [
        x.configurationTitle,
        x.flips,
        x.runs,
        x.score,
        x.history.map((h) => h.runId),
      ]),
    ).toEqual([
      ['Chrome on Linux', 2, 3, 1, [ids[0], ids[2], ids[4]]],
      ['Edge on Windows', 0, 3, 0, [ids[1], ids[3], ids[5]]],
    ]);
    expect(row.score).toBe(1);

    // Per run: the run's configuration alone, up to that run.
    const score = async (runId: number, query: Record<string, number> = {}) => {
      const res = await t.get(`/project/${p.code}/run/${runId}/flaky-score`, { query });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    expect(await score(ids[4])).toEqual({
      runId: ids[4],
      configurationId: linux,
      last: 20,
      tcases: [{ tcaseId: c.id, score: 1, flips: 2, runs: 3 }],
    });
    expect((await score(ids[5])).tcases).toEqual([]);
    // Up to the run: the second Linux run has one flip behind it, and the window of one run has none.
    expect((await score(ids[2])).tcases).toEqual([{ tcaseId: c.id, score: 1, flips: 1, runs: 2 }]);
    expect((await score(ids[4], { last: 1 })).tcases).toEqual([]);
  });

  it('answers 404 for a run of another project and 400 for a bad window, as JSON errors', async () => {
    const p = await createProject(t);
    const q = await createProject(t);
    const [c] = await cases(t, q, 1);
    const other = await runWith(t, q, [[c, 'failed']]);
    const missing = await t.get(`/project/${p.code}/run/${other}/flaky-score`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/not found/);
    for (const last of ['0', '201', 'x']) {
      const bad = await t.get(`/project/${q.code}/run/${other}/flaky-score`, { query: { last } });
      expect(bad.status, last).toBe(400);
      expect(bad.body).toHaveProperty('message');
    }
  });
});
