import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../routing/layouts';

const plansRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'plans',
  staticData: { tab: { label: 'Plans', order: 40, segments: ['plans', 'plan'] } },
  component: lazyRouteComponent(() => import('./PlansPage'), 'PlansPage'),
});
const planRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'plan/$planId',
  component: lazyRouteComponent(() => import('./PlanPage'), 'PlanPage'),
});

export const projectPages = [plansRoute, planRoute] as const;
