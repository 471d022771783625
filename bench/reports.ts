import type { Client } from './lib/client.js';
import { generateReportsDataset, type ReportsSizes } from './lib/generate-reports.js';
import type { Measured, SequentialRequest } from './lib/measure.js';
import { QUICK, want } from './lib/options.js';
import { analyzePostgres } from './lib/postgres.js';
import { fmt, log, ms, type Row } from './lib/report.js';

/*
 * The reports scenarios of issue 26 ("Speed"): each report endpoint, one client, one request at a time, on the
 * reports data set. `--only reports` runs them all; `--only reports-flaky,reports-run` some (the names below).
 */

const SIZES: ReportsSizes = QUICK
  ? { tcases: 1_000, runs: 100, resultRuns: 20, perRun: 200 }
  : { tcases: 10_000, runs: 1_000, resultRuns: 200, perRun: 500 };
const P50_MS = 50;
const P99_MS = 150;

const NAMES = [
  'run',
  'trend-run',
  'trend-day',
  'flaky',
  'failing',
  'slowest',
  'coverage',
  'defects',
  'milestone',
  'plan',
] as const;
const wanted = (name: (typeof NAMES)[number]) => want('reports') || want(`reports-${name}`);
export const wantReports = () => NAMES.some(wanted);

export interface ReportsContext {
  dbName: 'sqlite' | 'postgres';
  databaseUrl: string;
  client: Client;
  api: string;
  auth: Record<string, string>;
  baselineP50: number;
  sequential: (req: SequentialRequest) => Promise<Measured>;
  add: (scenario: string, r: Omit<Partial<Row>, 'met' | 'cpu'> & { met: boolean | undefined }) => void;
}

export async function runReportScenarios(ctx: ReportsContext): Promise<void> {
  const { dbName, api, auth } = ctx;
  log(
    `== ${dbName}: reports data set: ${fmt(SIZES.tcases)} cases, ${fmt(SIZES.runs)} runs, ` +
      `${SIZES.resultRuns} of ${SIZES.perRun} cases with results`,
  );
  const t0 = Date.now();
  const data = await generateReportsDataset(ctx.client, ctx.databaseUrl, { code: 'REP', sizes: SIZES, log });
  log(`  generated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (dbName === 'postgres') await analyzePostgres(ctx.databaseUrl);
  const p = `${api}/project/${data.projectCode}`;
  const scenarios: [(typeof NAMES)[number], string, string][] = [
    [
      'run',
      `run report of a ${SIZES.perRun}-case run (vs the previous)`,
      `${p}/run/${data.lastResultRunId}/report`,
    ],
    ['trend-run', 'trend by run, last 20', `${p}/report/trend?by=run`],
    ['trend-day', 'trend by day, last 20', `${p}/report/trend?by=day`],
    ['flaky', 'flaky cases, last 20 runs', `${p}/report/flaky`],
    ['failing', 'most failing cases, last 20 runs', `${p}/report/failing`],
    ['slowest', 'slowest cases, last 20 runs', `${p}/report/slowest`],
    ['coverage', 'requirement coverage, 20 requirements', `${p}/report/coverage`],
    ['defects', 'defects, last 20 runs', `${p}/report/defects`],
    [
      'milestone',
      `milestone report, ${data.milestoneRuns} runs`,
      `${p}/milestone/${data.milestoneId}/report`,
    ],
    ['plan', `plan report, ${data.planRuns} runs`, `${p}/plan/${data.planId}/report`],
  ];
  const rows = `${fmt(data.results)} results`;
  for (const [name, title, url] of scenarios) {
    if (!wanted(name)) continue;
    // One look first: a report that answered nothing (or an error) would measure nothing.
    const first = await fetch(url, { headers: auth });
    const body = await first.text();
    log(`== ${dbName}: reports: ${title}: ${first.status}, ${fmt(body.length / 1024, 1)} KB`);
    const m = await ctx.sequential({ url, headers: auth });
    ctx.add(`report: ${title} (${rows})`, {
      throughput: `${fmt(m.rps, 1)} req/s`,
      p50: ms(m.p50),
      p99: ms(m.p99),
      target: `p50 ≤ ${P50_MS} ms, p99 ≤ ${P99_MS} ms`,
      ratio: `${fmt(m.p50 / ctx.baselineP50, 1)}× baseline p50`,
      met: m.p50 <= P50_MS && m.p99 <= P99_MS,
    });
  }
}
