import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';
import type { Access } from '../../../routing/RequireRole';

const access: Access = {
  role: 'admin',
  title: 'Webhooks',
  denied: 'You need the admin role to manage webhooks.',
  why: 'Sending events to other services is set up by admins and the owner: ask one of them if you need one.',
};

// Every webhook; one webhook's deliveries and settings.
const webhooksRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'webhooks',
  staticData: { access, tab: { label: 'Webhooks', order: 50 } },
  component: lazyRouteComponent(() => import('./WebhooksPage'), 'WebhooksPage'),
});
const webhookRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'webhooks/$webhookId',
  staticData: { access },
  component: lazyRouteComponent(() => import('./WebhookPage'), 'WebhookPage'),
});

export const adminPages = [webhooksRoute, webhookRoute] as const;
