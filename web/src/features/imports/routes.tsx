import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../routing/layouts';

// Import of test cases (the export is a plain download from the repository page). No tab: the repository links here.
const importRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'import',
  component: lazyRouteComponent(() => import('./ImportPage'), 'ImportPage'),
});

export const projectPages = [importRoute] as const;
