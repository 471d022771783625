import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'custom-fields',
  staticData: {
    tab: { label: 'Custom fields', order: 20 },
    access: {
      role: 'admin',
      title: 'Custom fields',
      denied: 'You need the admin role to manage custom fields.',
      why: 'Custom fields are set up by admins and the owner: ask one of them if a test case needs another field.',
    },
  },
  component: lazyRouteComponent(() => import('./CustomFieldsPage'), 'CustomFieldsPage'),
});

export const adminPages = [route] as const;
