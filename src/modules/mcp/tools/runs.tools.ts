import {
  BatchResultsBody,
  CreateResultBody,
  CreateRunBody,
  GetRunQuery,
  ListRunsQuery,
  ListRunTcasesQuery,
  ResultIdResponse,
  ResultIdsResponse,
  Run,
  RunList,
  RunParams,
  RunTcaseDetail,
  RunTcaseList,
  RunTcaseParams,
} from '../../runs/runs.schemas.js';
import * as runs from '../../runs/runs.service.js';
import * as runResults from '../../runs/run-results.service.js';
import {
  CoverageReport,
  FailingReport,
  FlakyReport,
  LastQuery,
  RunReport,
  RunReportQuery,
  SlowestReport,
  TrendQuery,
  TrendReport,
} from '../../reports/reports.schemas.js';
import * as reports from '../../reports/reports.service.js';
import { args, IdNumber, MessageBody, ProjectCode, tool, type McpTool } from '../mcp.tools.js';

/*
 * Running tests through MCP: the run routes' operations under the same schemas and roles. Reports answer JSON
 * only (the routes' `format=csv` is a download, not something a model reads).
 */

const write = 'test-runner' as const;
const runId = { ...RunParams.properties.run, description: 'the run id' };
const tcaseRef = {
  ...RunTcaseParams.properties.tcase,
  description: 'a test case of the run: id, seq or legacy id',
};
const { last, limit } = LastQuery.properties;
const DEFAULT_LAST = 20;
const DEFAULT_LIMIT = 100;

/** The recent-runs reports (flaky, failing, slowest): one tool each, as one route each. */
const recentRunsTool = (
  name: string,
  description: string,
  output: typeof FlakyReport | typeof FailingReport | typeof SlowestReport,
  build: typeof reports.flakyReport | typeof reports.failingReport | typeof reports.slowestReport,
) =>
  tool({
    name,
    description,
    input: args({ projectCode: ProjectCode, last, limit }),
    minRole: 'viewer',
    argsLike: 'query',
    output,
    run: ({ db, actor }, a) =>
      build(db, actor, a.projectCode, a.last ?? DEFAULT_LAST, a.limit ?? DEFAULT_LIMIT),
  });

export const runTools: McpTool[] = [
  tool({
    name: 'list_runs',
    description: 'List the test runs of a project, newest first (closed or open, by milestone).',
    input: args({ projectCode: ProjectCode }, ListRunsQuery),
    minRole: 'viewer',
    argsLike: 'query',
    output: RunList,
    run: async ({ db, actor }, a) => {
      const { projectCode, ...query } = a;
      return { runs: await runs.listRuns(db, actor, projectCode, query) };
    },
  }),
  tool({
    name: 'get_run',
    description: 'Get a test run with its status counts, milestone, configuration and assignee.',
    input: args({ projectCode: ProjectCode, runId }, GetRunQuery),
    minRole: 'viewer',
    argsLike: 'query',
    output: Run,
    run: ({ db, actor }, a) => runs.getRun(db, actor, a.projectCode, a.runId, { include: a.include }),
  }),
  tool({
    name: 'create_run',
    description:
      'Create a test run from a query plan: static (exactly one plan: tcaseIds, or folderIds/tagIds/priorities ' +
      'filters) or live (filters only; cases added later that match join the run). Answers the run id.',
    input: args({ projectCode: ProjectCode }, CreateRunBody),
    minRole: write,
    argsLike: 'body',
    output: IdNumber,
    run: ({ db, actor }, a) => {
      const { projectCode, ...body } = a;
      return runs.createRun(db, actor, projectCode, body);
    },
  }),
  tool({
    name: 'close_run',
    description: 'Close a test run: no more results are recorded in it.',
    input: args({ projectCode: ProjectCode, runId }),
    minRole: write,
    argsLike: 'body',
    output: MessageBody,
    run: ({ db, actor }, a) => runs.closeRun(db, actor, a.projectCode, a.runId),
  }),
  tool({
    name: 'list_run_test_cases',
    description: 'List the test cases of a run with their latest status, folder and assignee.',
    input: args({ projectCode: ProjectCode, runId }, ListRunTcasesQuery),
    minRole: 'viewer',
    argsLike: 'query',
    output: RunTcaseList,
    run: async ({ db, actor }, a) => {
      const { projectCode, runId: run, ...query } = a;
      return { tcases: await runResults.listRunTcases(db, actor, projectCode, run, query) };
    },
  }),
  tool({
    name: 'get_run_test_case',
    description: 'Get one test case of a run with every result recorded for it.',
    input: args({ projectCode: ProjectCode, runId, tcaseId: tcaseRef }),
    minRole: 'viewer',
    argsLike: 'query',
    output: RunTcaseDetail,
    run: ({ db, ctx, actor }, a) =>
      runResults.getRunTcase(db, ctx.files, actor, a.projectCode, a.runId, a.tcaseId),
  }),
  tool({
    name: 'add_test_result',
    description:
      'Record a result (passed, failed, blocked, skipped, open or an active custom status) for a test case of ' +
      'a run, with an optional comment, time taken in milliseconds and links.',
    input: args({ projectCode: ProjectCode, runId, tcaseId: tcaseRef }, CreateResultBody),
    minRole: write,
    argsLike: 'body',
    output: ResultIdResponse,
    run: ({ db, ctx, actor }, a) => {
      const { projectCode, runId: run, tcaseId, ...body } = a;
      return runResults.recordResult(db, ctx.resultGroupCommit, actor, projectCode, run, tcaseId, body);
    },
  }),
  tool({
    name: 'add_test_results',
    description:
      'Record up to 5,000 results in a run at once: all are written or none (the first error says why).',
    input: args({ projectCode: ProjectCode, runId }, BatchResultsBody),
    minRole: write,
    argsLike: 'body',
    output: ResultIdsResponse,
    run: ({ db, actor }, a) =>
      runResults.recordResultBatch(db, actor, a.projectCode, a.runId, { items: a.items }),
  }),
  tool({
    name: 'get_run_report',
    description:
      "A run's report: status counts, pass rate, per-folder counts, the failures, and what changed since a " +
      'comparable earlier run (or the run named by `since`).',
    input: args({ projectCode: ProjectCode, runId, since: RunReportQuery.properties.since }),
    minRole: 'viewer',
    argsLike: 'query',
    output: RunReport,
    run: ({ db, actor }, a) => reports.runReport(db, actor, a.projectCode, a.runId, a.since),
  }),
  recentRunsTool(
    'list_flaky_test_cases',
    'Test cases whose status flipped between passed and failing among the last N runs.',
    FlakyReport,
    reports.flakyReport,
  ),
  recentRunsTool(
    'list_failing_test_cases',
    'Test cases that failed most often among the last N runs.',
    FailingReport,
    reports.failingReport,
  ),
  recentRunsTool(
    'list_slowest_test_cases',
    'Test cases with the slowest median time among the last N runs.',
    SlowestReport,
    reports.slowestReport,
  ),
  tool({
    name: 'get_pass_rate_trend',
    description:
      "The project's pass rate over its last N runs (or days), optionally for one milestone or configuration.",
    input: args({
      projectCode: ProjectCode,
      by: TrendQuery.properties.by,
      last,
      milestoneId: TrendQuery.properties.milestoneId,
      configurationId: TrendQuery.properties.configurationId,
    }),
    minRole: 'viewer',
    argsLike: 'query',
    output: TrendReport,
    run: ({ db, actor }, a) =>
      reports.trendReport(db, actor, a.projectCode, a.by ?? 'run', a.last ?? DEFAULT_LAST, {
        milestoneId: a.milestoneId,
        configurationId: a.configurationId,
      }),
  }),
  tool({
    name: 'get_requirement_coverage',
    description: 'Requirement coverage: each requirement with its test cases and their latest status.',
    input: args({ projectCode: ProjectCode }),
    minRole: 'viewer',
    argsLike: 'query',
    output: CoverageReport,
    run: ({ db, actor }, a) => reports.coverageReport(db, actor, a.projectCode),
  }),
];
