import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../routing/layouts';

// The CLI's `verification_uri_complete` (src/modules/oauth): signed in first, then back here with the code.
const deviceRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/device',
  validateSearch: (search: Record<string, unknown>): { user_code?: string } => {
    const code = search.user_code ?? search.code;
    return typeof code === 'string' || typeof code === 'number'
      ? { user_code: String(code).slice(0, 64) }
      : {};
  },
  component: lazyRouteComponent(() => import('./DevicePage'), 'DevicePage'),
});

export const appPages = [deviceRoute] as const;
