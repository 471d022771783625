import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, Link, redirect } from '@tanstack/react-router';
import { isApiError } from '../api/client';
import { projectsQuery } from '../api/queries';
import { meQuery } from '../session/session';

/**
 * The routes every feature hangs its pages under (docs/architecture.md, "The web application"): the root, the
 * signed-in frame, one project, the administration. They live here, below the features, so a feature's
 * `routes.tsx` names its parent with its type (a page's `useParams` knows `code`). Their components are the
 * shell's (app/shell/), which reads the features' navigation: app/router.tsx attaches them when it composes the
 * tree, so no feature imports the shell.
 */

interface RouterContext {
  queryClient: QueryClient;
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({
  notFoundComponent: () => (
    <div className="page">
      <h1 className="page-title">Page not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Go to your projects</Link>.
      </p>
    </div>
  ),
});

/** Every page behind sign-in: without a session, sign in first and come back here afterwards. */
export const appRoute = createRoute({
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
});

/**
 * Every page of one project sits under this layout: the project's navigation bar above the page. Its children's
 * paths are relative, so their route ids (`/app/project/$code/runs`, …) stay what the pages' `useParams` name.
 */
export const projectRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/project/$code',
  // The bar names the project from the list the project switcher reads anyway: no request of its own. Only
  // what is not cached is started: this loader runs again on every address change (a run page's filters).
  loader: ({ context }) => void context.queryClient.ensureQueryData(projectsQuery).catch(() => undefined),
});

/** The service's administration pages: one bar over them (app/shell/AdminLayout.tsx). */
export const adminRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/admin',
});

/** People keeps its address (`/people`, linked from mails and older notes) under the same bar. */
export const peopleAreaRoute = createRoute({
  getParentRoute: () => appRoute,
  id: 'people-area',
});
