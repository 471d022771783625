import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { resolveProject } from '../projects/projects.service.js';
import { flakyScore } from './flaky-score.js';
import * as flakyRepo from './flaky.repository.js';
import * as repo from './reports.repository.js';
import type {
  DefectsReport,
  FailingReport,
  FlakyReport,
  RunFlakyScores,
  SlowestReport,
} from './reports.schemas.js';
import { findRunOr404 } from './run-lookup.js';

/*
 * The reports over the project's last N runs (extensions.md §6): flaky, failing, slowest, defects. Each reads the
 * rows of those runs alone, through the run indexes, never the project's whole history.
 */

export { FAILING } from './flaky-score.js';

/** The median of `values` (sorted here); the mean of the middle two for an even count. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The first `limit` of `sorted`, and every one after them that ties with the last (`same`): ties are then ordered
 * by seq, which only the shown cases are named with.
 */
function cutWithTies<T>(sorted: T[], limit: number, same: (a: T, b: T) => boolean): T[] {
  const cut = sorted.slice(0, limit);
  const lastShown = cut[cut.length - 1];
  for (let i = limit; lastShown !== undefined && i < sorted.length && same(sorted[i], lastShown); i++)
    cut.push(sorted[i]);
  return cut;
}

/** The cases with their seq and title, read for them alone (a deleted case's rows are gone with it). */
async function withNames<T extends { tcaseId: string }>(db: Db, tenantId: string, cases: T[]) {
  const names = new Map(
    (
      await repo.listTcaseNames(
        db,
        tenantId,
        cases.map((c) => c.tcaseId),
      )
    ).map((t) => [t.id, t]),
  );
  return cases.flatMap((c) => {
    const name = names.get(c.tcaseId);
    return name ? [{ ...c, seq: name.seq, title: name.title }] : [];
  });
}

/** Runs in time order (extensions.md §6: by createdAt, which may be backdated, then id). */
const byRunTime = (a: { at: string; runId: number }, b: { at: string; runId: number }) =>
  a.at < b.at ? -1 : a.at > b.at ? 1 : a.runId - b.runId;

type Held = { runId: number; at: string; status: string; title: string; configurationId: string | null };

/**
 * Cases that flip between passed and failing (failed or blocked) among the project's last N runs, from one run
 * holding the case to the next that has either (other statuses neither flip nor break a sequence); most first.
 * Each also carries its flaky score per configuration of those runs (docs/api-decisions.md#flaky-score) with the
 * runs that show it, and `score`, the highest of them.
 */
export async function flakyReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  last: number,
  limit: number,
): Promise<FlakyReport> {
  const project = await resolveProject(db, actor, projectRef);
  const held = new Map<string, Held[]>();
  for (const r of await repo.listRecentRunStatuses(db, actor.tenantId, project.id, last)) {
    const runs = held.get(r.tcase_id) ?? [];
    runs.push({
      runId: r.run_id,
      at: r.run_created_at,
      status: r.status,
      title: r.run_title,
      configurationId: r.configuration_id,
    });
    held.set(r.tcase_id, runs);
  }
  const flaky: { tcaseId: string; flips: number; runs: number; lastStatus: string; held: Held[] }[] = [];
  for (const [tcaseId, runs] of held) {
    runs.sort(byRunTime);
    const { flips } = flakyScore(runs.map((r) => r.status));
    if (flips > 0)
      flaky.push({ tcaseId, flips, runs: runs.length, lastStatus: runs[runs.length - 1].status, held: runs });
  }
  flaky.sort((a, b) => b.flips - a.flips || b.runs - a.runs);
  const shown = await withNames(
    db,
    actor.tenantId,
    cutWithTies(flaky, limit, (a, b) => a.flips === b.flips && a.runs === b.runs),
  );
  shown.sort((a, b) => b.flips - a.flips || b.runs - a.runs || a.seq - b.seq);
  const kept = shown.slice(0, limit);
  const configIds = [...new Set(kept.flatMap((c) => c.held.map((r) => r.configurationId)))];
  const titles = new Map(
    (
      await flakyRepo.listConfigurationTitles(
        db,
        actor.tenantId,
        configIds.filter((id): id is string => id !== null),
      )
    ).map((c) => [c.id, c.title]),
  );
  return {
    tcases: kept.map(({ held: runs, ...c }) => {
      const byConfig = new Map<string | null, Held[]>();
      for (const r of runs) byConfig.set(r.configurationId, [...(byConfig.get(r.configurationId) ?? []), r]);
      const configurations = [...byConfig].map(([configurationId, rs]) => ({
        configurationId,
        configurationTitle: configurationId === null ? null : (titles.get(configurationId) ?? null),
        ...flakyScore(rs.map((r) => r.status)),
        runs: rs.length,
        history: rs.map((r) => ({ runId: r.runId, title: r.title, status: r.status, createdAt: r.at })),
      }));
      // The most flaky configuration first; then by title, runs without one last.
      configurations.sort(
        (a, b) =>
          b.score - a.score ||
          (a.configurationTitle ?? '\uffff').localeCompare(b.configurationTitle ?? '\uffff'),
      );
      return { ...c, score: Math.max(...configurations.map((x) => x.score)), configurations };
    }),
  };
}

/**
 * The flaky score of each case of a run (the run page's column): over the project's last N runs with the run's
 * configuration, up to the run itself. Only cases with a flip are answered (the others score 0), most flaky first.
 * One read of those runs' cases through the run index.
 */
export async function runFlakyScores(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  last: number,
): Promise<RunFlakyScores> {
  const project = await resolveProject(db, actor, projectRef);
  const run = await findRunOr404(db, actor.tenantId, project.id, project.code, runId);
  const rows = await flakyRepo.listStatusesOfRuns(
    db,
    actor.tenantId,
    flakyRepo.runsUpTo(db, actor.tenantId, project.id, run, last),
  );
  const held = new Map<string, { runId: number; at: string; status: string }[]>();
  const inRun = new Set<string>();
  for (const r of rows) {
    if (r.run_id === run.id) inRun.add(r.tcase_id);
    const runs = held.get(r.tcase_id) ?? [];
    runs.push({ runId: r.run_id, at: r.run_created_at, status: r.status });
    held.set(r.tcase_id, runs);
  }
  const tcases: RunFlakyScores['tcases'] = [];
  for (const tcaseId of inRun) {
    const runs = held.get(tcaseId)!.sort(byRunTime);
    const { flips, score } = flakyScore(runs.map((r) => r.status));
    if (flips > 0) tcases.push({ tcaseId, score, flips, runs: runs.length });
  }
  tcases.sort((a, b) => b.score - a.score || b.flips - a.flips || (a.tcaseId < b.tcaseId ? -1 : 1));
  return { runId: run.id, configurationId: run.configuration_id, last, tcases };
}

/** Cases failing most often among the project's last N runs. */
export async function failingReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  last: number,
  limit: number,
): Promise<FailingReport> {
  const project = await resolveProject(db, actor, projectRef);
  const rows = await repo.listFailingTcases(db, actor.tenantId, project.id, last, limit);
  return {
    tcases: rows.map((r) => ({
      tcaseId: r.tcase_id,
      seq: r.seq,
      title: r.title,
      failures: Number(r.failures),
      runs: Number(r.runs),
      lastFailedAt: r.last_failed_at,
    })),
  };
}

export async function slowestReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  last: number,
  limit: number,
): Promise<SlowestReport> {
  const project = await resolveProject(db, actor, projectRef);
  const timesOf = new Map<string, number[]>();
  for (const r of await repo.listRecentTimes(db, actor.tenantId, project.id, last)) {
    const times = timesOf.get(r.tcase_id) ?? [];
    times.push(Number(r.time_taken));
    timesOf.set(r.tcase_id, times);
  }
  const ranked = [...timesOf].map(([tcaseId, times]) => ({
    tcaseId,
    medianMs: median(times),
    maxMs: Math.max(...times),
    samples: times.length,
  }));
  ranked.sort((a, b) => b.medianMs - a.medianMs || b.maxMs - a.maxMs);
  const tcases = await withNames(
    db,
    actor.tenantId,
    cutWithTies(ranked, limit, (a, b) => a.medianMs === b.medianMs && a.maxMs === b.maxMs),
  );
  tcases.sort((a, b) => b.medianMs - a.medianMs || b.maxMs - a.maxMs || a.seq - b.seq);
  return { tcases: tcases.slice(0, limit) };
}

export async function defectsReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  last: number,
  limit: number,
): Promise<DefectsReport> {
  const project = await resolveProject(db, actor, projectRef);
  const byUrl = new Map<
    string,
    { text: string; tcases: Set<number>; runs: Set<number>; firstAt: string; lastAt: string }
  >();
  for (const l of await repo.listRecentLinks(db, actor.tenantId, project.id, last)) {
    const d = byUrl.get(l.url) ?? {
      text: l.text,
      tcases: new Set(),
      runs: new Set(),
      firstAt: l.created_at,
      lastAt: l.created_at,
    };
    // Rows come oldest result first: the newest text wins.
    d.text = l.text;
    d.tcases.add(l.seq);
    d.runs.add(l.run_id);
    if (l.created_at < d.firstAt) d.firstAt = l.created_at;
    if (l.created_at > d.lastAt) d.lastAt = l.created_at;
    byUrl.set(l.url, d);
  }
  const defects = [...byUrl].map(([url, d]) => ({
    url,
    text: d.text,
    tcases: [...d.tcases].sort((a, b) => a - b),
    runs: [...d.runs].sort((a, b) => a - b),
    firstAt: d.firstAt,
    lastAt: d.lastAt,
  }));
  defects.sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : a.url < b.url ? -1 : 1));
  return { defects: defects.slice(0, limit) };
}
