import type { QueryClient } from '@tanstack/react-query';
import { statusesQuery } from '../../../api/queries';
import { projectCountsQuery, projectQuery } from '../../projects';
import {
  coverageQuery,
  defectsQuery,
  failingQuery,
  flakyQuery,
  foldersQuery,
  milestonesProgressQuery,
  slowestQuery,
  trendQuery,
} from '../api';

/**
 * The dashboard's reports with the shared dashboard's defaults (the last 20 runs, 100 items), keyed by what
 * they are in the shared link's data, so the page and the shared page hand the view the same shape.
 */
export const dashboardQueries = (code: string, by: 'run' | 'day') => ({
  trend: trendQuery(code, { by }),
  folders: foldersQuery(code),
  flaky: flakyQuery(code),
  failing: failingQuery(code),
  slowest: slowestQuery(code),
  coverage: coverageQuery(code),
  defects: defectsQuery(code),
});

/** What only the signed-in page shows beside the reports. */
export const projectPageQueries = (code: string) => ({
  project: projectQuery(code),
  counts: projectCountsQuery(code),
  milestones: milestonesProgressQuery(code),
});

/** Starts every request of the dashboard at once (the route's loader, while the page's code loads). */
export function prefetchDashboard(qc: QueryClient, code: string): void {
  const page = projectPageQueries(code);
  const reports = dashboardQueries(code, 'run');
  void qc.prefetchQuery(page.project);
  void qc.prefetchQuery(page.counts);
  void qc.prefetchQuery(page.milestones);
  void qc.prefetchQuery(statusesQuery());
  void qc.prefetchQuery(reports.trend);
  void qc.prefetchQuery(reports.folders);
  void qc.prefetchQuery(reports.flaky);
  void qc.prefetchQuery(reports.failing);
  void qc.prefetchQuery(reports.slowest);
  void qc.prefetchQuery(reports.coverage);
  void qc.prefetchQuery(reports.defects);
}
