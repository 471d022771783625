import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { notFound } from '../../errors.js';
import { STATUS_IDS, type StatusId } from '../../lib/statuses.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './reports.repository.js';
import { findRunOr404 } from './run-lookup.js';
import { FAILING } from './recent-runs.service.js';
import type {
  CoverageReport,
  MilestoneReport,
  PlanReport,
  ReportCounts,
  ReportStep,
  RunFailure,
  RunReport,
  TrendReport,
} from './reports.schemas.js';

export const emptyCounts = (): ReportCounts =>
  Object.fromEntries([['all', 0], ...STATUS_IDS.map((s) => [s, 0])]) as ReportCounts;

const isStatus = (s: string): s is StatusId => (STATUS_IDS as readonly string[]).includes(s);

export function addCount(counts: ReportCounts, status: string, n: number): void {
  if (!isStatus(status)) return;
  counts[status] += n;
  counts.all += n;
}

function countsOfRun(row: repo.CounterRow): ReportCounts {
  const counts = emptyCounts();
  for (const s of STATUS_IDS) addCount(counts, s, Number(row[`cnt_${s}`]));
  return counts;
}

function addCounts(into: ReportCounts, more: ReportCounts): void {
  for (const s of STATUS_IDS) addCount(into, s, more[s]);
}

/** extensions.md §6: passed ÷ (all − open − skipped); null when nothing counts. */
export function passRate(c: ReportCounts): number | null {
  const counted = c.all - c.open - c.skipped;
  return counted > 0 ? c.passed / counted : null;
}

/** Folder id → its whole path of titles, root first, from one read of the project's folders. */
export async function folderPaths(db: Db, tenantId: string, projectId: string) {
  const byId = new Map((await repo.listFolders(db, tenantId, projectId)).map((f) => [f.id, f]));
  const memo = new Map<number, string[]>();
  const pathOf = (id: number): string[] => {
    const known = memo.get(id);
    if (known) return known;
    const path: string[] = [];
    const seen = new Set<number>();
    for (let f = byId.get(id); f && !seen.has(f.id); f = byId.get(f.parent_id)) {
      seen.add(f.id);
      path.unshift(f.title);
    }
    memo.set(id, path);
    return path;
  };
  return pathOf;
}

export const comparePaths = (a: string[], b: string[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
};

/**
 * The run `since` compares with by default (extensions.md §6): the run of the same title in the newest earlier
 * plan when the run is in a plan; failing that, the newest earlier run with the same milestone and configuration.
 */
async function defaultSince(db: Db, tenantId: string, projectId: string, run: repo.ReportRunRow) {
  if (run.plan_id !== null) {
    const inPlan = await repo.findSameTitleRunInEarlierPlan(db, tenantId, projectId, run.title, run.plan_id);
    if (inPlan) return inPlan.id;
  }
  return (await repo.findEarlierComparableRun(db, tenantId, projectId, run))?.id ?? null;
}

/** The run a run is compared with by default (defaultSince), by id; null when there is none (or no such run). */
export async function comparableRunId(db: Db, tenantId: string, projectId: string, runId: number) {
  const run = await repo.findRun(db, tenantId, projectId, runId);
  return run ? defaultSince(db, tenantId, projectId, run) : null;
}

/** A run case with its latest result, as the run report's failures and its CSV rows show it. */
export interface RunCaseLine {
  tcaseId: string;
  seq: number;
  title: string;
  folderPath: string[];
  status: string;
  comment: string | null;
  links: { text: string; url: string }[];
  author?: { id: number; name: string };
  at: string | null;
  timeTaken: number | null;
  /** The latest result's step outcomes (extensions.md §8), when it has any. */
  steps?: ReportStep[];
}

function toRunCases(
  rows: Awaited<ReturnType<typeof repo.listRunCases>>,
  links: Awaited<ReturnType<typeof repo.listRunCaseLinks>>,
  steps: Awaited<ReturnType<typeof repo.listRunCaseSteps>>,
  pathOf: (folderId: number) => string[],
): RunCaseLine[] {
  const stepsOf = new Map<number, ReportStep[]>();
  for (const st of steps) {
    const list = stepsOf.get(st.result_id) ?? [];
    list.push({ stepId: st.step_id, position: st.position, status: st.status, comment: st.comment });
    stepsOf.set(st.result_id, list);
  }
  const linksOf = new Map<number, { text: string; url: string }[]>();
  for (const l of links) {
    const list = linksOf.get(l.result_id) ?? [];
    list.push({ text: l.text, url: l.url });
    linksOf.set(l.result_id, list);
  }
  return rows.map((f) => {
    const line: RunCaseLine = {
      tcaseId: f.tcase_id,
      seq: f.seq,
      title: f.title,
      folderPath: pathOf(Number(f.folder_id)),
      status: f.status,
      comment: f.comment,
      links: f.result_id === null ? [] : (linksOf.get(f.result_id) ?? []),
      at: f.created_at,
      timeTaken: f.time_taken === null ? null : Number(f.time_taken),
    };
    if (f.author_id !== null && f.author_name !== null)
      line.author = { id: f.author_id, name: f.author_name };
    const recorded = f.result_id === null ? undefined : stepsOf.get(f.result_id);
    if (recorded) line.steps = recorded;
    return line;
  });
}

/**
 * Every case of a run with its latest result (extensions.md §7, "CSV of a run's results": the run report's CSV),
 * in seq order, with the project's code for the cases' markers; an open case has no result. Bounded by the run's size,
 * not the project's history.
 */
export async function runCaseLines(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
): Promise<{ code: string; lines: RunCaseLine[] }> {
  const project = await resolveProject(db, actor, projectRef);
  const run = await findRunOr404(db, actor.tenantId, project.id, project.code, runId);
  const [pathOf, rows, links, steps] = await Promise.all([
    folderPaths(db, actor.tenantId, project.id),
    repo.listRunCases(db, actor.tenantId, run.id),
    repo.listRunCaseLinks(db, actor.tenantId, run.id),
    repo.listRunCaseSteps(db, actor.tenantId, run.id),
  ]);
  return { code: project.code, lines: toRunCases(rows, links, steps, pathOf) };
}

/** A run's report: counters, folders with whole paths, failures, and what changed since a comparable run. */
export async function runReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  sinceRunId?: number,
): Promise<RunReport> {
  const project = await resolveProject(db, actor, projectRef);
  const { tenantId } = actor;
  const run = await findRunOr404(db, tenantId, project.id, project.code, runId);
  const sinceId = sinceRunId !== undefined ? sinceRunId : await defaultSince(db, tenantId, project.id, run);
  const since = sinceId === null ? null : await findRunOr404(db, tenantId, project.id, project.code, sinceId);
  const [pathOf, byFolder, failureRows, links, steps] = await Promise.all([
    folderPaths(db, tenantId, project.id),
    repo.countRunCasesByFolder(db, tenantId, run.id),
    repo.listRunCases(db, tenantId, run.id, FAILING),
    repo.listRunCaseLinks(db, tenantId, run.id, FAILING),
    repo.listRunCaseSteps(db, tenantId, run.id, FAILING),
  ]);

  const folderCounts = new Map<number, ReportCounts>();
  for (const row of byFolder) {
    const id = Number(row.folder_id);
    const counts = folderCounts.get(id) ?? emptyCounts();
    addCount(counts, row.status, Number(row.n));
    folderCounts.set(id, counts);
  }
  const folders = [...folderCounts].map(([id, counts]) => ({ path: pathOf(id), counts }));
  folders.sort((a, b) => comparePaths(a.path, b.path));

  const failures = toRunCases(failureRows, links, steps, pathOf).map(
    ({ timeTaken: _, ...f }): RunFailure => ({
      ...f,
      comment: f.comment ?? '',
      at: f.at ?? '',
    }),
  );

  let sinceReport: RunReport['since'] = null;
  if (since !== null) {
    const before = await repo.listRunStatuses(db, tenantId, since.id, [...FAILING, 'passed']);
    const failedBefore = new Set(before.filter((r) => FAILING.includes(r.status)).map((r) => r.tcase_id));
    const passedNow = await repo.listRunStatuses(db, tenantId, run.id, ['passed']);
    const fixedCases = passedNow
      .filter((r) => failedBefore.has(r.tcase_id))
      .map((r) => ({ seq: r.seq, title: r.title }))
      .sort((a, b) => a.seq - b.seq);
    sinceReport = {
      runId: since.id,
      title: since.title,
      newFailures: failureRows.filter((f) => !failedBefore.has(f.tcase_id)).map((f) => f.seq),
      fixed: fixedCases.map((c) => c.seq),
      fixedCases,
    };
  }

  const counts = countsOfRun(run);
  return {
    run: {
      id: run.id,
      title: run.title,
      closed: run.closed_at !== null,
      createdAt: run.created_at,
      closedAt: run.closed_at,
    },
    counts,
    passRate: passRate(counts),
    timeSpent: Number(run.time_spent ?? 0),
    folders,
    failures,
    since: sinceReport,
  };
}

interface RunFilter {
  milestoneId?: number;
  configurationId?: string;
}

/** Pass-rate trend by run (the last N runs, oldest first) or by UTC day of the runs' creation. */
export async function trendReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  by: 'run' | 'day',
  last: number,
  filter: RunFilter,
): Promise<TrendReport> {
  const project = await resolveProject(db, actor, projectRef);
  if (by === 'run') {
    const runs = (await repo.listLastRuns(db, actor.tenantId, project.id, last, filter)).reverse();
    return {
      points: runs.map((r) => {
        const counts = countsOfRun(r);
        return { key: String(r.id), label: r.title, at: r.created_at, counts, passRate: passRate(counts) };
      }),
    };
  }
  const runs = await repo.listRunsOfLastDays(db, actor.tenantId, project.id, last, filter);
  return {
    points: byDay(runs).map(({ date, counts, at }) => ({
      key: date,
      label: date,
      at,
      counts,
      passRate: passRate(counts),
    })),
  };
}

/** Runs' counters summed per UTC day of their creation, oldest day first; `at` is the day's last run. */
function byDay(runs: repo.ReportRunRow[]) {
  const days = new Map<string, { date: string; counts: ReportCounts; at: string }>();
  for (const r of runs) {
    const date = r.created_at.slice(0, 10);
    const day = days.get(date) ?? { date, counts: emptyCounts(), at: r.created_at };
    addCounts(day.counts, countsOfRun(r));
    if (r.created_at > day.at) day.at = r.created_at;
    days.set(date, day);
  }
  return [...days.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
}

// The reports over the project's last N runs live beside this file; routes and shares find them all here.
export {
  defectsReport,
  failingReport,
  flakyReport,
  runFlakyScores,
  slowestReport,
} from './recent-runs.service.js';

/** Requirement coverage: each requirement's live cases with their newest recorded status. */
export async function coverageReport(db: Db, actor: Actor, projectRef: string): Promise<CoverageReport> {
  const project = await resolveProject(db, actor, projectRef);
  const [requirements, covering, uncovered] = await Promise.all([
    repo.listRequirements(db, actor.tenantId, project.id),
    repo.listCoveringTcases(db, actor.tenantId, project.id),
    repo.countUncoveredTcases(db, actor.tenantId, project.id),
  ]);
  const byRequirement = new Map(
    requirements.map((r) => [
      r.id,
      {
        id: r.id,
        text: r.text,
        url: r.url,
        tcases: [] as CoverageReport['requirements'][number]['tcases'],
        counts: emptyCounts(),
      },
    ]),
  );
  for (const c of covering) {
    const req = byRequirement.get(c.requirement_id);
    if (!req) continue;
    const lastStatus = c.last_status ?? 'open';
    req.tcases.push({ tcaseId: c.tcase_id, seq: c.seq, title: c.title, lastStatus });
    addCount(req.counts, lastStatus, 1);
  }
  return { requirements: [...byRequirement.values()], uncovered };
}

const reportRun = (r: repo.ReportRunRow) => {
  const counts = countsOfRun(r);
  return { id: r.id, title: r.title, closed: r.closed_at !== null, counts, passRate: passRate(counts) };
};

/** A milestone's runs with their counters, their sum, and the sum per UTC day of the runs' creation. */
export async function milestoneReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  milestoneId: number,
): Promise<MilestoneReport> {
  const project = await resolveProject(db, actor, projectRef);
  const milestone = await repo.findMilestone(db, actor.tenantId, project.id, milestoneId);
  if (!milestone) throw notFound(`milestone ${milestoneId} not found in project ${project.code}`);
  const runs = await repo.listRunsOf(db, actor.tenantId, project.id, 'milestone_id', milestoneId);
  const counts = emptyCounts();
  for (const r of runs) addCounts(counts, countsOfRun(r));
  return {
    milestone: {
      id: milestone.id,
      title: milestone.title,
      archived: milestone.archived_at !== null,
      createdAt: milestone.created_at,
    },
    counts,
    passRate: passRate(counts),
    runs: runs.map(reportRun),
    points: byDay(runs).map(({ date, counts: c }) => ({ date, counts: c })),
  };
}

/** A plan's runs with their counters and their sum. */
export async function planReport(
  db: Db,
  actor: Actor,
  projectRef: string,
  planId: number,
): Promise<PlanReport> {
  const project = await resolveProject(db, actor, projectRef);
  const plan = await repo.findPlan(db, actor.tenantId, project.id, planId);
  if (!plan) throw notFound(`plan ${planId} not found in project ${project.code}`);
  const runs = await repo.listRunsOf(db, actor.tenantId, project.id, 'plan_id', planId);
  const counts = emptyCounts();
  for (const r of runs) addCounts(counts, countsOfRun(r));
  const shownPlan: PlanReport['plan'] = { id: plan.id, title: plan.title, createdAt: plan.created_at };
  if (plan.milestone_id !== null) shownPlan.milestoneId = plan.milestone_id;
  return { plan: shownPlan, counts, passRate: passRate(counts), runs: runs.map(reportRun) };
}
