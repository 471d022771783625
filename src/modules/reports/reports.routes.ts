import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, ProjectParams } from '../../http/schemas.js';
import * as csv from './reports.csv.js';
import {
  CoverageReport,
  DefectsReport,
  FailingReport,
  FlakyReport,
  FolderReport,
  FormatQuery,
  jsonOrCsv,
  LastQuery,
  MilestoneReport,
  MilestoneReportParams,
  PlanReport,
  PlanReportParams,
  RunReport,
  RunReportParams,
  RunReportQuery,
  RunFlakyQuery,
  RunFlakyScores,
  SlowestReport,
  TrendQuery,
  TrendReport,
} from './reports.schemas.js';
import * as service from './reports.service.js';
import { folderReport } from './folders/folders.service.js';

const DEFAULT_LAST = 20;
const DEFAULT_LIMIT = 100;

/** The report as JSON, or as a CSV download when `?format=csv` asked for one. */
function answer<T>(
  reply: FastifyReply,
  format: 'json' | 'csv' | undefined,
  report: T,
  toCsv: (r: T) => string,
  fileName: string,
) {
  if (format !== 'csv') return reply.send(report);
  // Only letters, digits, '-' and '_' reach the header: the project ref is the caller's text.
  const safeName = fileName.replace(/[^A-Za-z0-9_-]/g, '_');
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${safeName}.csv"`)
    .send(toCsv(report));
}

export const reportsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app;

  app.get(
    '/project/:project/run/:run/report',
    {
      schema: {
        tags: ['reports'],
        summary: 'A run report: counts, pass rate, folders, failures, and changes since a comparable run',
        params: RunReportParams,
        querystring: RunReportQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: jsonOrCsv(RunReport), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { project, run } = req.params;
      // The CSV lists every case of the run with its latest result; the JSON answer sums and compares them.
      if (req.query.format === 'csv') {
        const cases = await service.runCaseLines(db, req.actor, project, run);
        return answer(reply, 'csv', cases, csv.runCsv, `${project}-run-${run}-report`);
      }
      const report = await service.runReport(db, req.actor, project, run, req.query.since);
      return reply.send(report);
    },
  );

  app.get(
    '/project/:project/run/:run/flaky-score',
    {
      schema: {
        tags: ['reports'],
        summary: "The flaky score of the run's cases over the last N runs of its configuration",
        params: RunReportParams,
        querystring: RunFlakyQuery,
        response: { 200: RunFlakyScores, ...errorResponses },
      },
    },
    async (req) => {
      const { project, run } = req.params;
      return service.runFlakyScores(db, req.actor, project, run, req.query.last ?? DEFAULT_LAST);
    },
  );

  app.get(
    '/project/:project/report/trend',
    {
      schema: {
        tags: ['reports'],
        summary: 'Pass-rate trend of the project by run or by day',
        params: ProjectParams,
        querystring: TrendQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: jsonOrCsv(TrendReport), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { by = 'run', last = DEFAULT_LAST, milestoneId, configurationId, format } = req.query;
      const report = await service.trendReport(db, req.actor, req.params.project, by, last, {
        milestoneId,
        configurationId,
      });
      return answer(reply, format, report, csv.trendCsv, `${req.params.project}-trend-by-${by}`);
    },
  );

  const lastReports = [
    [
      'flaky',
      'Test cases whose status flips between passed and failing',
      FlakyReport,
      service.flakyReport,
      csv.flakyCsv,
    ],
    ['failing', 'Test cases that failed most often', FailingReport, service.failingReport, csv.failingCsv],
    [
      'slowest',
      'Test cases with the slowest median time',
      SlowestReport,
      service.slowestReport,
      csv.slowestCsv,
    ],
    ['defects', 'Defects linked from results', DefectsReport, service.defectsReport, csv.defectsCsv],
    ['folders', 'Failures per folder, with whole folder paths,', FolderReport, folderReport, csv.foldersCsv],
  ] as const;
  for (const [name, summary, schema, build, toCsv] of lastReports) {
    app.get(
      `/project/:project/report/${name}`,
      {
        schema: {
          tags: ['reports'],
          summary: `${summary} among the last N runs`,
          params: ProjectParams,
          querystring: LastQuery,
          produces: ['application/json', 'text/csv'],
          response: { 200: jsonOrCsv(schema), ...errorResponses },
        },
      },
      async (req, reply) => {
        const { last = DEFAULT_LAST, limit = DEFAULT_LIMIT, format } = req.query;
        const report = await build(db, req.actor, req.params.project, last, limit);
        return answer(
          reply,
          format,
          report,
          toCsv as (r: typeof report) => string,
          `${req.params.project}-${name}`,
        );
      },
    );
  }

  app.get(
    '/project/:project/report/coverage',
    {
      schema: {
        tags: ['reports'],
        summary: 'Requirement coverage: each requirement with its test cases and their latest status',
        params: ProjectParams,
        querystring: FormatQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: jsonOrCsv(CoverageReport), ...errorResponses },
      },
    },
    async (req, reply) => {
      const report = await service.coverageReport(db, req.actor, req.params.project);
      return answer(reply, req.query.format, report, csv.coverageCsv, `${req.params.project}-coverage`);
    },
  );

  app.get(
    '/project/:project/milestone/:milestone/report',
    {
      schema: {
        tags: ['reports'],
        summary: "A milestone report: its runs' counts, their sum and the sum per day",
        params: MilestoneReportParams,
        querystring: FormatQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: jsonOrCsv(MilestoneReport), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { project, milestone } = req.params;
      const report = await service.milestoneReport(db, req.actor, project, milestone);
      return answer(
        reply,
        req.query.format,
        report,
        csv.milestoneCsv,
        `${project}-milestone-${milestone}-report`,
      );
    },
  );

  app.get(
    '/project/:project/plan/:plan/report',
    {
      schema: {
        tags: ['reports'],
        summary: "A plan report: its runs' counts and their sum",
        params: PlanReportParams,
        querystring: FormatQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: jsonOrCsv(PlanReport), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { project, plan } = req.params;
      const report = await service.planReport(db, req.actor, project, plan);
      return answer(reply, req.query.format, report, csv.planCsv, `${project}-plan-${plan}-report`);
    },
  );
};
