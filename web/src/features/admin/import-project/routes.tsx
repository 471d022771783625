import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'import-project',
  staticData: {
    tab: { label: 'Import a project', order: 90 },
    access: {
      role: 'admin',
      title: 'Import a project',
      denied: 'You need the admin role to import a project.',
      why: 'Admins and the owner import projects from a Casebook archive.',
    },
  },
  component: lazyRouteComponent(() => import('./ImportProjectPage'), 'ImportProjectPage'),
});

export const adminPages = [route] as const;
