import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'integrations',
  staticData: {
    tab: { label: 'Integrations', order: 40 },
    access: {
      role: 'admin',
      title: 'Integrations',
      denied: 'You need the admin role to manage integrations.',
      why: 'Connecting issue trackers is for admins and the owner: ask one of them if a tracker is missing. Your projects show the trackers linked to them in their settings.',
    },
  },
  component: lazyRouteComponent(() => import('./IntegrationsPage'), 'IntegrationsPage'),
});

export const adminPages = [route] as const;
