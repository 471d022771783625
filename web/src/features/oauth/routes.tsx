import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../routing/layouts';
import { AUTHORIZATION_PARAMS, type AuthorizationParams } from './api';

// An MCP client's sign-in (src/modules/oauth: /api/oauth/authorize sends the browser here): signed in first.
const oauthAuthorizeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/oauth/authorize',
  validateSearch: (search: Record<string, unknown>): AuthorizationParams => {
    const params: AuthorizationParams = {};
    for (const name of AUTHORIZATION_PARAMS) {
      const value = search[name];
      if (typeof value === 'string' || typeof value === 'number') params[name] = String(value).slice(0, 2000);
    }
    return params;
  },
  component: lazyRouteComponent(() => import('./AuthorizePage'), 'AuthorizePage'),
});

export const appPages = [oauthAuthorizeRoute] as const;
