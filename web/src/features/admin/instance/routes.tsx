import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'instance',
  staticData: {
    tab: { label: 'Instance', order: 100 },
    access: {
      role: 'owner',
      title: 'Instance',
      denied: 'Only the owner sees the instance’s settings.',
      why: 'The public address and the mail server are set where the service runs; ask the owner about them.',
    },
  },
  component: lazyRouteComponent(() => import('./InstancePage'), 'InstancePage'),
});

export const adminPages = [route] as const;
