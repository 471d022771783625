import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'statuses',
  staticData: {
    tab: { label: 'Result statuses', order: 30 },
    access: {
      role: 'admin',
      title: 'Result statuses',
      denied: 'You need the admin role to change the result statuses.',
      why: 'Admins and the owner name and switch on the custom statuses.',
    },
  },
  component: lazyRouteComponent(() => import('./StatusesPage'), 'StatusesPage'),
});

export const adminPages = [route] as const;
