import type { QueryClient } from '@tanstack/react-query';
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Link,
  Outlet,
  redirect,
} from '@tanstack/react-router';
import { isApiError, onSessionExpired } from '../api/client';
import { projectFoldersQuery, statusesQuery } from '../api/queries';
import { ErrorState, Loading } from '../components/Status';
import { meQuery, safeReturnTo } from '../session/session';
import { SignInPage } from '../features/auth/SignInPage';
import { projectsQuery } from '../features/projects/api';
import { prefetchDashboard } from '../features/reports/dashboard/queries';
import { firstListPage, foldersQuery, tagsQuery, testCaseQuery } from '../features/repository/api';
import { validateAuditLogSearch } from '../features/admin/audit-log/search';
import { validateReportsSearch } from '../features/reports/hub/search';
import { validateRepositorySearch } from '../features/repository/search';
import { AUTHORIZATION_PARAMS, type AuthorizationParams } from '../features/oauth/api';
import { runQuery, runTestCasesQuery } from '../features/runs/api';
import { validateRunPageSearch, validateRunsPageSearch } from '../features/runs/search';
import { ShortcutsProvider } from './shell/Shortcuts';

interface RouterContext {
  queryClient: QueryClient;
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: () => (
    <ShortcutsProvider>
      <Outlet />
    </ShortcutsProvider>
  ),
  notFoundComponent: () => (
    <div className="page">
      <h1 className="page-title">Page not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Go to your projects</Link>.
      </p>
    </div>
  ),
});

// Sign-in is in the first chunk: it is the first page most visits see (≤ 150 KB compressed JS: npm run bench:web).
const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>): { returnTo?: string } => {
    const returnTo = safeReturnTo(search.returnTo);
    return returnTo ? { returnTo } : {};
  },
  component: SignInPage,
});

/** Every page behind sign-in: without a session, sign in first and come back here afterwards. */
const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: async ({ context, location }) => {
    try {
      await context.queryClient.ensureQueryData(meQuery);
    } catch (e) {
      if (isApiError(e, 401)) throw redirect({ to: '/sign-in', search: { returnTo: location.href } });
      throw e;
    }
  },
  component: lazyRouteComponent(() => import('./shell/AppShell'), 'AppShell'),
});

const projectsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  loader: ({ context }) => void context.queryClient.prefetchQuery(projectsQuery),
  component: lazyRouteComponent(() => import('../features/projects/ProjectsPage'), 'ProjectsPage'),
});

/**
 * Every page of one project sits under this layout: the project's navigation bar above the page. Its children's
 * paths are relative, so their route ids (`/app/project/$code/runs`, …) stay what the pages' `useParams` name.
 */
const projectRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/project/$code',
  // The bar names the project from the list the project switcher reads anyway: no request of its own. Only
  // what is not cached is started: this loader runs again on every address change (a run page's filters).
  loader: ({ context }) => void context.queryClient.ensureQueryData(projectsQuery).catch(() => undefined),
  component: lazyRouteComponent(() => import('./shell/ProjectLayout'), 'ProjectLayout'),
});

/** The project's home: its dashboard. */
const projectHomeRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/',
  // The dashboard's requests start together here, while its chunk (with uPlot) loads.
  loader: ({ context, params }) => prefetchDashboard(context.queryClient, params.code.toUpperCase()),
  component: lazyRouteComponent(() => import('../features/reports/dashboard/DashboardPage'), 'DashboardPage'),
});

const runRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'run/$runId',
  validateSearch: validateRunPageSearch,
  // Filters change the address, and every change runs the loader again: it only starts what is not cached yet,
  // so a filter never refetches the run's 10,000 cases (the page keeps them current through its changes cursor).
  // A failure (an unknown run) is the page's to show, not the loader's.
  loader: ({ context, params }) => {
    const id = Number(params.runId);
    if (!Number.isInteger(id)) return;
    const qc = context.queryClient;
    const started: Promise<unknown>[] = [
      qc.ensureQueryData(runQuery(params.code, id)),
      qc.ensureQueryData(runTestCasesQuery(params.code, id)),
      qc.ensureQueryData(projectFoldersQuery(params.code)),
      qc.ensureQueryData(statusesQuery()),
    ];
    for (const p of started) p.catch(() => undefined);
  },
  component: lazyRouteComponent(() => import('../features/runs/RunPage'), 'RunPage'),
});

// ---- run report; the public page of a shared report link ----
const runReportRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'run/$runId/report',
  // The compared run lives in the address, so a reload, a bookmark or a shared address compares the same.
  validateSearch: (search: Record<string, unknown>): { since?: number } => {
    const since = Number(search.since);
    return Number.isInteger(since) && since > 0 ? { since } : {};
  },
  component: lazyRouteComponent(
    () => import('../features/reports/run-report/RunReportPage'),
    'RunReportPage',
  ),
});
// Outside `appRoute`: no session, no application frame (the token is the page's only credential).
const sharedReportRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/shared/$token',
  component: lazyRouteComponent(
    () => import('../features/reports/shared/SharedReportPage'),
    'SharedReportPage',
  ),
});
// ---- end of reports ----

const runsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'runs',
  validateSearch: validateRunsPageSearch,
  component: lazyRouteComponent(() => import('../features/runs/list/RunsPage'), 'RunsPage'),
});

const plansRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'plans',
  component: lazyRouteComponent(() => import('../features/plans/PlansPage'), 'PlansPage'),
});

const planRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'plan/$planId',
  component: lazyRouteComponent(() => import('../features/plans/PlanPage'), 'PlanPage'),
});

const milestonesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'milestones',
  component: lazyRouteComponent(() => import('../features/milestones/MilestonesPage'), 'MilestonesPage'),
});

// ---- milestone page (issue 28): its runs, plans, progress and due date ----
const milestoneRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'milestone/$milestoneId',
  component: lazyRouteComponent(() => import('../features/milestones/MilestonePage'), 'MilestonePage'),
});
// ---- end of milestone page ----

// ---- reports: the project's list reports, a milestone's and a plan's (issue 26) ----
const reportsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'reports',
  validateSearch: validateReportsSearch,
  component: lazyRouteComponent(() => import('../features/reports/hub/ReportsPage'), 'ReportsPage'),
});
const milestoneReportRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'milestone/$milestoneId/report',
  component: lazyRouteComponent(
    () => import('../features/reports/milestone-report/MilestoneReportPage'),
    'MilestoneReportPage',
  ),
});
const planReportRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'plan/$planId/report',
  component: lazyRouteComponent(
    () => import('../features/reports/plan-report/PlanReportPage'),
    'PlanReportPage',
  ),
});
const reportRoutes = [reportsRoute, milestoneReportRoute, planReportRoute] as const;
// ---- end of reports ----

const testCaseRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'tcase/$seq',
  loader: ({ context, params }) =>
    void context.queryClient.prefetchQuery(testCaseQuery(params.code, params.seq)),
  component: lazyRouteComponent(() => import('../features/repository/TestCasePage'), 'TestCasePage'),
});

// ---- repository page (folder tree + test case list) ----
const repositoryRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'repository',
  validateSearch: validateRepositorySearch,
  // The tree, the tags and (unless a folder narrows the list) the first page start with the page's code.
  loaderDeps: ({ search }) => ({ search }),
  loader: ({ context, params, deps: { search } }) => {
    void context.queryClient.prefetchQuery(foldersQuery(params.code));
    void context.queryClient.prefetchQuery(tagsQuery(params.code));
    // Custom-field filters wait for the page to know the project's fields (an unknown one would answer 400).
    if (search.folder === undefined && !Object.keys(search).some((k) => k.startsWith('cf_')))
      void context.queryClient.prefetchQuery(firstListPage(params.code, search));
  },
  component: lazyRouteComponent(() => import('../features/repository/RepositoryPage'), 'RepositoryPage'),
});
// ---- end repository page ----

// ---- import of test cases (the export is a plain download from the repository page) ----
const importRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'import',
  component: lazyRouteComponent(() => import('../features/imports/ImportPage'), 'ImportPage'),
});

// --- test case editor: a new case in a folder (`n` elsewhere comes here) ---
const newTestCaseRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'tcase/new',
  // `copy`: the seq of a case to duplicate (the editor opens prefilled with a copy of it).
  validateSearch: (search: Record<string, unknown>): { folder?: number; copy?: number } => {
    const folder = Number(search.folder);
    const copy = Number(search.copy);
    return {
      ...(Number.isInteger(folder) && folder > 0 ? { folder } : {}),
      ...(Number.isInteger(copy) && copy > 0 ? { copy } : {}),
    };
  },
  component: lazyRouteComponent(() => import('../features/repository/NewTestCasePage'), 'NewTestCasePage'),
});
// --- end test case editor ---

// ---- project settings ----
const projectSettingsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'settings',
  component: lazyRouteComponent(
    () => import('../features/projects/settings/ProjectSettingsPage'),
    'ProjectSettingsPage',
  ),
});
// Each further section at its own address (`settings/members`, …), listed in the page's side navigation.
const projectSettingsSectionRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'settings/$section',
  component: lazyRouteComponent(
    () => import('../features/projects/settings/ProjectSettingsPage'),
    'ProjectSettingsPage',
  ),
});
// ---- end of project settings ----

// ---- account pages: invitation, password reset, own settings, device sign-in ----
const invitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/invite/$token',
  component: lazyRouteComponent(() => import('../features/auth/AccountLinkPages'), 'AcceptInvitationPage'),
});
const requestResetRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password',
  component: lazyRouteComponent(
    () => import('../features/auth/AccountLinkPages'),
    'RequestPasswordResetPage',
  ),
});
const setPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password/$token',
  component: lazyRouteComponent(() => import('../features/auth/AccountLinkPages'), 'SetNewPasswordPage'),
});
const settingsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('../features/settings/SettingsPage'), 'SettingsPage'),
});
// ---- administration: one bar over the service's admin pages (app/shell/AdminLayout.tsx) ----
// Each page says "not allowed" itself to a role that may not use it; the bar lists only what the role may use.
const adminRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/admin',
  component: lazyRouteComponent(() => import('./shell/AdminLayout'), 'AdminLayout'),
});
// `/admin` alone (the account menu's "Administration") opens the first of the service's settings.
const adminIndexRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/admin/custom-fields', replace: true });
  },
});
// People keeps its address (`/people`, linked from mails and older notes) under the same bar.
const peopleLayoutRoute = createRoute({
  getParentRoute: () => appRoute,
  id: 'people-area',
  component: lazyRouteComponent(() => import('./shell/AdminLayout'), 'AdminLayout'),
});
const peopleRoute = createRoute({
  getParentRoute: () => peopleLayoutRoute,
  path: '/people',
  component: lazyRouteComponent(() => import('../features/people/PeoplePage'), 'PeoplePage'),
});
// ---- admin: admin27c ----
// Audit log, failed jobs, every API key (admins) and the instance (owner); each page says so to other roles.
const adminAuditLogRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'audit-log',
  validateSearch: validateAuditLogSearch,
  component: lazyRouteComponent(() => import('../features/admin/audit-log/AuditLogPage'), 'AuditLogPage'),
});
const adminJobsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'jobs',
  component: lazyRouteComponent(() => import('../features/admin/jobs/JobsPage'), 'JobsPage'),
});
const adminApiKeysRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'api-keys',
  component: lazyRouteComponent(() => import('../features/admin/api-keys/ApiKeysPage'), 'ApiKeysPage'),
});
const adminInstanceRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'instance',
  component: lazyRouteComponent(() => import('../features/admin/instance/InstancePage'), 'InstancePage'),
});
const adminPartCRoutes = [adminAuditLogRoute, adminJobsRoute, adminApiKeysRoute, adminInstanceRoute] as const;
// ---- end admin: admin27c ----
// The CLI's `verification_uri_complete` (src/modules/oauth): signed in first, then back here with the code.
const deviceRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/device',
  validateSearch: (search: Record<string, unknown>): { user_code?: string } => {
    const code = search.user_code ?? search.code;
    return typeof code === 'string' || typeof code === 'number'
      ? { user_code: String(code).slice(0, 64) }
      : {};
  },
  component: lazyRouteComponent(() => import('../features/device/DevicePage'), 'DevicePage'),
});
// An MCP client's sign-in (src/modules/oauth, /api/oauth/authorize sends the browser here): signed in first.
const oauthAuthorizeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/oauth/authorize',
  validateSearch: (search: Record<string, unknown>): AuthorizationParams => {
    const params: AuthorizationParams = {};
    for (const name of AUTHORIZATION_PARAMS) {
      const value = search[name];
      if (typeof value === 'string' || typeof value === 'number') params[name] = String(value).slice(0, 2000);
    }
    return params;
  },
  component: lazyRouteComponent(() => import('../features/oauth/AuthorizePage'), 'AuthorizePage'),
});
// ---- admin: admin27a ----
// Service settings (admins and the owner; each page tells other roles so): custom fields, result statuses.
const adminCustomFieldsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'custom-fields',
  component: lazyRouteComponent(
    () => import('../features/admin/custom-fields/CustomFieldsPage'),
    'CustomFieldsPage',
  ),
});
const adminStatusesRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'statuses',
  component: lazyRouteComponent(() => import('../features/admin/statuses/StatusesPage'), 'StatusesPage'),
});
const adminRoutesA = [adminCustomFieldsRoute, adminStatusesRoute] as const;
// ---- end of admin: admin27a ----
// ---- admin: admin27b ----
// Integrations and webhooks (admins and the owner; other roles get the page's "not allowed" state).
const adminIntegrationsRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'integrations',
  component: lazyRouteComponent(
    () => import('../features/admin/integrations/IntegrationsPage'),
    'IntegrationsPage',
  ),
});
const adminWebhooksRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'webhooks',
  component: lazyRouteComponent(() => import('../features/admin/webhooks/WebhooksPage'), 'WebhooksPage'),
});
const adminWebhookRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'webhooks/$webhookId',
  component: lazyRouteComponent(() => import('../features/admin/webhooks/WebhookPage'), 'WebhookPage'),
});
const adminTrackerHookRoutes = [adminIntegrationsRoute, adminWebhooksRoute, adminWebhookRoute] as const;
// ---- end admin: admin27b ----
// ---- admin: archive29 ----
// Import a project from a Casebook archive (admins; other roles get the page's "not allowed" state).
const adminImportProjectRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'import-project',
  component: lazyRouteComponent(
    () => import('../features/admin/import-project/ImportProjectPage'),
    'ImportProjectPage',
  ),
});
// ---- end admin: archive29 ----
const accountRoutes = [invitationRoute, requestResetRoute, setPasswordRoute] as const;
const accountAppRoutes = [settingsRoute, deviceRoute, oauthAuthorizeRoute] as const;
// ---- end of account pages ----

const routeTree = rootRoute.addChildren([
  signInRoute,
  ...accountRoutes,
  sharedReportRoute,
  appRoute.addChildren([
    projectsRoute,
    projectRoute.addChildren([
      projectHomeRoute,
      runRoute,
      runReportRoute,
      runsRoute,
      plansRoute,
      planRoute,
      milestonesRoute,
      milestoneRoute,
      newTestCaseRoute,
      testCaseRoute,
      repositoryRoute,
      importRoute,
      ...reportRoutes,
      projectSettingsRoute,
      projectSettingsSectionRoute,
    ]),
    ...accountAppRoutes,
    peopleLayoutRoute.addChildren([peopleRoute]),
    adminRoute.addChildren([
      adminIndexRoute,
      ...adminRoutesA,
      ...adminTrackerHookRoutes,
      ...adminPartCRoutes,
      adminImportProjectRoute,
    ]),
  ]),
]);

export function createAppRouter(queryClient: QueryClient) {
  const router = createRouter({
    routeTree,
    context: { queryClient },
    defaultPreload: 'intent',
    // Query holds the data; the router only starts its fetches.
    defaultPreloadStaleTime: 0,
    defaultPendingComponent: () => <Loading />,
    defaultErrorComponent: ({ error, reset }) => (
      <div className="page">
        <ErrorState title="This page could not be shown." error={error} onRetry={reset}>
          {/* A full load: whatever state broke this page starts again. */}
          <a href="/">All projects</a>
        </ErrorState>
      </div>
    ),
  });
  // A session that ends while someone works sends them to sign in, then back to where they were.
  onSessionExpired(() => {
    const location = router.state.location;
    if (location.pathname === '/sign-in') return;
    queryClient.clear();
    void router.navigate({ to: '/sign-in', search: { returnTo: location.href }, replace: true });
  });
  return router;
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
