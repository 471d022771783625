import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../routing/layouts';

const milestonesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'milestones',
  staticData: { tab: { label: 'Milestones', order: 50, segments: ['milestones', 'milestone'] } },
  component: lazyRouteComponent(() => import('./MilestonesPage'), 'MilestonesPage'),
});
// One milestone: its runs, plans, progress and due date.
const milestoneRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'milestone/$milestoneId',
  component: lazyRouteComponent(() => import('./MilestonePage'), 'MilestonePage'),
});

export const projectPages = [milestonesRoute, milestoneRoute] as const;
