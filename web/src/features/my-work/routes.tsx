import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../routing/layouts';

/** "My work": the signed-in person's assigned cases across projects (test-runners and up: viewers are never assigned). */
const myWorkRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/my-work',
  staticData: {
    access: {
      role: 'test-runner',
      title: 'My work',
      denied: 'You need the test-runner role or higher to be assigned test cases.',
      why: 'My work lists the cases of runs assigned to you; viewers read runs but are not assigned them.',
    },
  },
  component: lazyRouteComponent(() => import('./MyWorkPage'), 'MyWorkPage'),
});

export const appPages = [myWorkRoute] as const;
