import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'api-keys',
  staticData: {
    tab: { label: 'API keys', order: 80 },
    access: {
      role: 'admin',
      title: 'API keys',
      denied: 'You need the admin role to see everyone’s API keys.',
      why: 'Your own keys are in your settings (the account menu).',
    },
  },
  component: lazyRouteComponent(() => import('./ApiKeysPage'), 'ApiKeysPage'),
});

export const adminPages = [route] as const;
