import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Client, mapLimit } from './client.js';

/* The reports data set of issue 26 ("Speed"): a project of its own, so the other scenarios' data stays as it was. */

export interface ReportsSizes {
  tcases: number;
  runs: number;
  /** Runs that hold `perRun` cases each with a result for every case; the other runs hold 20 cases, no results. */
  resultRuns: number;
  perRun: number;
}

export interface ReportsDataset {
  projectCode: string;
  /** The newest run with results: the run report's subject (compared with the run before it). */
  lastResultRunId: number;
  milestoneId: number;
  planId: number;
  milestoneRuns: number;
  planRuns: number;
  results: number;
}

const REQUIREMENTS = 20;
/** Cases linked to each requirement (each case to two requirements, so 20 × 5 links over 50 cases). */
const PER_REQUIREMENT = 5;
const PLAN_RUNS = 4;
const MILESTONE_RUNS = 20;
/** Runs are dated this far apart (the API cannot backdate), so trend by day spans months, as a real history. */
const RUN_SPACING_MS = 6 * 3_600_000;

/**
 * A result per (run, case) that varies from run to run: mostly passed; every 50th case flips between passed and
 * failed (the flaky list); failures carry a link to one of 300 defects; times spread over 50 ms–2 s.
 */
function result(runIdx: number, caseIdx: number, tcaseId: string) {
  const h = (runIdx * 7919 + caseIdx * 104_729) % 1000;
  const status =
    caseIdx % 50 === 0
      ? runIdx % 2
        ? 'failed'
        : 'passed'
      : h < 70
        ? 'failed'
        : h < 100
          ? 'blocked'
          : h < 130
            ? 'skipped'
            : 'passed';
  const bug = (caseIdx + runIdx) % 300;
  return {
    tcaseId,
    status,
    timeTaken: 50 + ((caseIdx * 37 + runIdx * 11) % 1950),
    ...(status === 'failed'
      ? { links: [{ url: `https://bugs.example/BUG-${bug}`, text: `BUG-${bug}` }] }
      : {}),
  };
}

/**
 * Builds the data set through the API (bulk folder and case creation, runs, one result batch per run), then
 * spreads the runs' creation dates straight in the database, the one thing the API cannot do.
 */
export async function generateReportsDataset(
  client: Client,
  databaseUrl: string,
  options: { code: string; sizes: ReportsSizes; log: (s: string) => void },
): Promise<ReportsDataset> {
  const { code, sizes, log } = options;
  await client.post('/project', { code, title: `Reports ${code}` });
  const paths: string[][] = [];
  for (let a = 0; a < 4; a++)
    for (let b = 0; b < 7; b++)
      for (let c = 0; c < 7; c++) paths.push([`Area ${a}`, `Feature ${b}`, `Suite ${c}`]);
  const { ids } = await client.post<{ ids: number[][] }>(`/project/${code}/tcase/folder/bulk`, {
    folders: paths.map((path) => ({ path })),
  });

  // Cases linked to requirements first (bulk creation takes no requirements), one by one.
  const linked = await mapLimit(
    Array.from({ length: (REQUIREMENTS * PER_REQUIREMENT) / 2 }, (_, i) => i),
    4,
    async (i) =>
      (
        await client.post<{ id: string }>(`/project/${code}/tcase`, {
          title: `Requirement case ${i}`,
          type: 'standalone',
          priority: 'medium',
          folderId: ids[i % ids.length][2],
          requirements: [i % REQUIREMENTS, (i + 7) % REQUIREMENTS].map((r) => ({
            text: `REQ-${r} requirement ${r}`,
            url: `https://req.example/${r}`,
          })),
        })
      ).id,
  );
  const perLeaf = Math.ceil((sizes.tcases - linked.length) / paths.length);
  const created = await mapLimit(paths, 4, async (path, i) => {
    const n = Math.max(0, Math.min(perLeaf, sizes.tcases - linked.length - i * perLeaf));
    if (n === 0) return [];
    const res = await client.post<{ tcases: { id: string }[] }>(`/project/${code}/tcase/bulk`, {
      folderPath: path,
      tcases: Array.from({ length: n }, (_, j) => ({ title: `Case ${i}-${j} of ${path.join(' / ')}` })),
    });
    return res.tcases.map((t) => t.id);
  });
  const tcaseIds = [...linked, ...created.flat()];
  log(`  reports: ${tcaseIds.length} test cases, ${REQUIREMENTS} requirements`);

  const milestone = await client.post<{ id: number }>(`/project/${code}/milestone`, { title: 'Release 1' });
  const slice = (i: number, n: number) => {
    const start = (i * 137) % Math.max(1, tcaseIds.length - n);
    return { start, ids: tcaseIds.slice(start, start + n) };
  };
  // The newest runs hold the results (so every "last 20 runs" report reads 20 full runs, the heaviest case), the
  // older ones 20 cases each and none; the newest MILESTONE_RUNS with results belong to the milestone.
  const regular = sizes.runs - PLAN_RUNS;
  const regularWithResults = sizes.resultRuns - PLAN_RUNS;
  const withResults = (i: number) => i >= regular - regularWithResults;
  const lastResultIdx = regular - 1;
  const runs = await mapLimit(
    Array.from({ length: regular }, (_, i) => i),
    8,
    async (i) => {
      const full = withResults(i);
      const { start, ids: caseIds } = slice(i, full ? sizes.perRun : 20);
      const inMilestone = lastResultIdx - i < MILESTONE_RUNS;
      const res = await client.post<{ id: number }>(`/project/${code}/run`, {
        title: `Nightly ${i}`,
        type: 'static_struct',
        queryPlans: [{ tcaseIds: caseIds }],
        ...(inMilestone ? { milestoneId: milestone.id } : {}),
      });
      return { id: res.id, idx: i, start, caseIds, full };
    },
  );
  const plan = await client.post<{ id: number }>(`/project/${code}/plan`, {
    title: 'Sprint plan',
    runs: Array.from({ length: PLAN_RUNS }, (_, k) => ({
      title: `Plan run ${k}`,
      queryPlans: [{ tcaseIds: slice(regular + k, sizes.perRun).ids }],
    })),
  });
  const planRunIds = (await client.get<{ runIds: number[] }>(`/project/${code}/plan/${plan.id}`)).runIds;
  const planRuns = planRunIds.map((id, k) => {
    const { start, ids: caseIds } = slice(regular + k, sizes.perRun);
    return { id, idx: regular + k, start, caseIds, full: true };
  });
  log(`  reports: ${runs.length + planRuns.length} runs`);

  const full = [...runs.filter((r) => r.full), ...planRuns];
  let results = 0;
  await mapLimit(full, 2, async (run) => {
    await client.post(`/project/${code}/run/${run.id}/result/batch`, {
      items: run.caseIds.map((id, j) => result(run.idx, run.start + j, id)),
    });
    results += run.caseIds.length;
    if (results % (sizes.perRun * 50) === 0) log(`  reports: ${results} results`);
  });
  log(`  reports: ${results} results in ${full.length} runs`);
  await spreadRunDates(databaseUrl, code);
  const lastResultRunId = runs.find((r) => r.idx === lastResultIdx)!.id;
  const milestoneRuns = Math.min(MILESTONE_RUNS, regularWithResults);
  return {
    projectCode: code,
    lastResultRunId,
    milestoneId: milestone.id,
    planId: plan.id,
    milestoneRuns,
    planRuns: PLAN_RUNS,
    results,
  };
}

/** Dates each run of the project RUN_SPACING_MS after the one before it (by id), the newest now. */
async function spreadRunDates(databaseUrl: string, code: string): Promise<void> {
  const now = Date.now();
  const ofProject = `project_id = (select id from projects where code = '${code}')`;
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    db.pragma('busy_timeout = 30000');
    const rows = db.prepare(`select id from runs where ${ofProject}`).all() as { id: number }[];
    const max = Math.max(...rows.map((r) => r.id));
    const update = db.prepare('update runs set created_at = ? where id = ?');
    db.transaction(() => {
      for (const { id } of rows) update.run(new Date(now - (max - id) * RUN_SPACING_MS).toISOString(), id);
    })();
    db.close();
    return;
  }
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(
      `update runs set created_at = to_char((now() at time zone 'utc') - ((select max(id) from runs where ${ofProject}) - id) * interval '${RUN_SPACING_MS} milliseconds', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') where ${ofProject}`,
    );
  } finally {
    await c.end();
  }
}
