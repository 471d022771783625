import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'jobs',
  staticData: {
    tab: { label: 'Background jobs', order: 70 },
    access: {
      role: 'admin',
      title: 'Background jobs',
      denied: 'You need the admin role to see background jobs.',
      why: 'Webhook deliveries and issue-tracker comments that failed are watched by admins and the owner.',
    },
  },
  component: lazyRouteComponent(() => import('./JobsPage'), 'JobsPage'),
});

export const adminPages = [route] as const;
