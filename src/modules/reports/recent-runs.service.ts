import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './reports.repository.js';
import type { DefectsReport, FailingReport, FlakyReport, SlowestReport } from './reports.schemas.js';

/*
 * The reports over the project's last N runs (extensions.md §6): flaky, failing, slowest, defects. Each reads the
 * rows of those runs alone, through the run indexes, never the project's whole history.
 */

/** What counts as a failure in every report (docs/api-decisions.md#reports). */
export const FAILING: readonly string[] = ['failed', 'blocked'];

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

/**
 * Cases that flip between passed and failing (failed or blocked) among the project's last N runs, from one run
 * holding the case to the next that has either (other statuses neither flip nor break a sequence); most first.
 */
export async function flakyReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  last: number,
  limit: number,
): Promise<FlakyReport> {
  const project = await resolveProject(db, actor, projectRef);
  const held = new Map<string, { runId: number; at: string; status: string }[]>();
  for (const r of await repo.listRecentRunStatuses(db, actor.tenantId, project.id, last)) {
    const runs = held.get(r.tcase_id) ?? [];
    runs.push({ runId: r.run_id, at: r.run_created_at, status: r.status });
    held.set(r.tcase_id, runs);
  }
  const flaky: { tcaseId: string; flips: number; runs: number; lastStatus: string }[] = [];
  for (const [tcaseId, runs] of held) {
    // Runs in time order (extensions.md §6: by createdAt, which may be backdated, then id).
    runs.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.runId - b.runId));
    let flips = 0;
    let prev: boolean | undefined;
    for (const { status } of runs) {
      const ok = status === 'passed' ? true : FAILING.includes(status) ? false : undefined;
      if (ok === undefined) continue;
      if (prev !== undefined && ok !== prev) flips++;
      prev = ok;
    }
    if (flips > 0)
      flaky.push({ tcaseId, flips, runs: runs.length, lastStatus: runs[runs.length - 1].status });
  }
  flaky.sort((a, b) => b.flips - a.flips || b.runs - a.runs);
  const shown = await withNames(
    db,
    actor.tenantId,
    cutWithTies(flaky, limit, (a, b) => a.flips === b.flips && a.runs === b.runs),
  );
  shown.sort((a, b) => b.flips - a.flips || b.runs - a.runs || a.seq - b.seq);
  return { tcases: shown.slice(0, limit) };
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
