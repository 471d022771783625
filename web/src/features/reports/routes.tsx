import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute, rootRoute } from '../../routing/layouts';
import { prefetchDashboard } from './dashboard/queries';
import { validateReportsSearch } from './hub/search';

/** The project's home: its dashboard. */
const projectHomeRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/',
  staticData: { tab: { label: 'Dashboard', order: 10, segments: [''] } },
  // The dashboard's requests start together here, while its chunk (with uPlot) loads.
  loader: ({ context, params }) => prefetchDashboard(context.queryClient, params.code.toUpperCase()),
  component: lazyRouteComponent(() => import('./dashboard/DashboardPage'), 'DashboardPage'),
});
const runReportRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'run/$runId/report',
  // The compared run lives in the address, so a reload, a bookmark or a shared address compares the same.
  validateSearch: (search: Record<string, unknown>): { since?: number } => {
    const since = Number(search.since);
    return Number.isInteger(since) && since > 0 ? { since } : {};
  },
  component: lazyRouteComponent(() => import('./run-report/RunReportPage'), 'RunReportPage'),
});
// The public page of a shared report link. Outside the signed-in frame: no session, no application frame (the
// token is the page's only credential).
const sharedReportRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/shared/$token',
  component: lazyRouteComponent(() => import('./shared/SharedReportPage'), 'SharedReportPage'),
});
// The project's list reports, a milestone's and a plan's.
const reportsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'reports',
  staticData: { tab: { label: 'Reports', order: 60, segments: ['reports', 'report'] } },
  validateSearch: validateReportsSearch,
  component: lazyRouteComponent(() => import('./hub/ReportsPage'), 'ReportsPage'),
});
const milestoneReportRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'milestone/$milestoneId/report',
  component: lazyRouteComponent(
    () => import('./milestone-report/MilestoneReportPage'),
    'MilestoneReportPage',
  ),
});
const planReportRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'plan/$planId/report',
  component: lazyRouteComponent(() => import('./plan-report/PlanReportPage'), 'PlanReportPage'),
});

export const rootPages = [sharedReportRoute] as const;
export const projectPages = [
  projectHomeRoute,
  runReportRoute,
  reportsRoute,
  milestoneReportRoute,
  planReportRoute,
] as const;
