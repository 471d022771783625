import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';
import { validateAuditLogSearch } from './search';

const route = createRoute({
  getParentRoute: () => adminRoute,
  path: 'audit-log',
  validateSearch: validateAuditLogSearch,
  staticData: {
    tab: { label: 'Audit log', order: 60 },
    access: {
      role: 'admin',
      title: 'Audit log',
      denied: 'You need the admin role to read the audit log.',
      why: 'The audit log records sign-ins and changes to the service; admins and the owner read it.',
    },
  },
  component: lazyRouteComponent(() => import('./AuditLogPage'), 'AuditLogPage'),
});

export const adminPages = [route] as const;
