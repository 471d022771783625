import type { QueryClient } from '@tanstack/react-query';
import { createRouter, lazyRouteComponent, Outlet } from '@tanstack/react-router';
import { onSessionExpired } from '../api/client';
import { ErrorState, Loading } from '../components/Status';
import * as admin from '../features/admin/routes';
import * as auth from '../features/auth/routes';
import * as device from '../features/device/routes';
import * as oauth from '../features/oauth/routes';
import * as imports from '../features/imports/routes';
import * as milestones from '../features/milestones/routes';
import * as myWork from '../features/my-work/routes';
import * as people from '../features/people/routes';
import * as plans from '../features/plans/routes';
import * as projects from '../features/projects/routes';
import * as reports from '../features/reports/routes';
import * as repository from '../features/repository/routes';
import * as runs from '../features/runs/routes';
import * as settings from '../features/settings/routes';
import { adminRoute, appRoute, peopleAreaRoute, projectRoute, rootRoute } from '../routing/layouts';
import { ShortcutsProvider } from './shell/Shortcuts';

/**
 * The route tree, composed: each feature declares its pages in its `routes.tsx` (under which layout, the lazy
 * page, its loader and search), the layouts are routing/layouts.tsx, and the shell's components are attached
 * here. A new feature is one line in its layout's list; the tabs it adds are app/navigation.ts's.
 */
rootRoute.update({
  component: () => (
    <ShortcutsProvider>
      <Outlet />
    </ShortcutsProvider>
  ),
});
appRoute.update({ component: lazyRouteComponent(() => import('./shell/AppShell'), 'AppShell') });
projectRoute.update({
  component: lazyRouteComponent(() => import('./shell/ProjectLayout'), 'ProjectLayout'),
});
adminRoute.update({ component: lazyRouteComponent(() => import('./shell/AdminLayout'), 'AdminLayout') });
peopleAreaRoute.update({ component: lazyRouteComponent(() => import('./shell/AdminLayout'), 'AdminLayout') });

const routeTree = rootRoute.addChildren([
  ...auth.rootPages,
  ...reports.rootPages,
  appRoute.addChildren([
    ...projects.appPages,
    ...settings.appPages,
    ...myWork.appPages,
    ...device.appPages,
    ...oauth.appPages,
    projectRoute.addChildren([
      ...reports.projectPages,
      ...repository.projectPages,
      ...runs.projectPages,
      ...plans.projectPages,
      ...milestones.projectPages,
      ...imports.projectPages,
      ...projects.projectPages,
    ]),
    peopleAreaRoute.addChildren([...people.peoplePages]),
    adminRoute.addChildren([...admin.adminPages]),
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
