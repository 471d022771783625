import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { adminRoute } from '../../../routing/layouts';
import type { Access } from '../../../routing/RequireRole';

const access: Access = {
  role: 'admin',
  title: 'Sign-in',
  denied: 'You need the admin role to set up sign-in through identity providers.',
  why: 'How people sign in (OpenID Connect providers) is set up by admins and the owner.',
};

// The tenant's identity providers; and where a "Test sign-in" popup lands with what it found.
const signInRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'sign-in',
  staticData: { access, tab: { label: 'Sign-in', order: 55 } },
  component: lazyRouteComponent(() => import('./SignInProvidersPage'), 'SignInProvidersPage'),
});
const testResultRoute = createRoute({
  getParentRoute: () => adminRoute,
  path: 'sign-in/test-result',
  validateSearch: (search: Record<string, unknown>): { provider: string } => ({
    provider: typeof search.provider === 'string' ? search.provider : '',
  }),
  staticData: { access },
  component: lazyRouteComponent(() => import('./TestResultPage'), 'TestResultPage'),
});

export const adminPages = [signInRoute, testResultRoute] as const;
