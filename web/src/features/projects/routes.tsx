import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute, projectRoute } from '../../routing/layouts';
import { projectsQuery } from './api';

/** The list of projects (the home page) and a project's settings. */
const projectsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  loader: ({ context }) => void context.queryClient.prefetchQuery(projectsQuery),
  component: lazyRouteComponent(() => import('./ProjectsPage'), 'ProjectsPage'),
});
const projectSettingsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'settings',
  staticData: { tab: { label: 'Settings', order: 70, segments: ['settings'] } },
  component: lazyRouteComponent(() => import('./settings/ProjectSettingsPage'), 'ProjectSettingsPage'),
});
// Each further section at its own address (`settings/members`, …), listed in the page's side navigation.
const projectSettingsSectionRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'settings/$section',
  component: lazyRouteComponent(() => import('./settings/ProjectSettingsPage'), 'ProjectSettingsPage'),
});

export const appPages = [projectsRoute] as const;
export const projectPages = [projectSettingsRoute, projectSettingsSectionRoute] as const;
