import { createRoute, redirect } from '@tanstack/react-router';
import { adminRoute } from '../../routing/layouts';
import * as apiKeys from './api-keys/routes';
import * as auditLog from './audit-log/routes';
import * as customFields from './custom-fields/routes';
import * as importProject from './import-project/routes';
import * as instance from './instance/routes';
import * as integrations from './integrations/routes';
import * as jobs from './jobs/routes';
import * as signIn from './sign-in/routes';
import * as statuses from './statuses/routes';
import * as webhooks from './webhooks/routes';

/**
 * The service's administration: one folder per page, each with its `routes.tsx` (the route, its guard in
 * `staticData.access`, its tab in `staticData.tab`). A new page is a new folder, imported and spread here.
 */
// `/admin` alone (the account menu's "Administration") opens the first of the service's settings.
const adminIndexRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/admin/custom-fields', replace: true });
  },
});

export const adminPages = [
  adminIndexRoute,
  ...customFields.adminPages,
  ...statuses.adminPages,
  ...integrations.adminPages,
  ...webhooks.adminPages,
  ...signIn.adminPages,
  ...auditLog.adminPages,
  ...jobs.adminPages,
  ...apiKeys.adminPages,
  ...importProject.adminPages,
  ...instance.adminPages,
] as const;
