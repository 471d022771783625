import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../routing/layouts';
import { safeReturnTo } from '../../session/session';
import { SignInPage } from './SignInPage';
import { PROVIDER_SIGN_IN_ERRORS } from './api';

/** Sign-in and the account links of mails (invitation, password reset): pages without a session. */

// Sign-in is in the first chunk: it is the first page most visits see (≤ 150 KB compressed JS: npm run bench:web).
const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>): { returnTo?: string; error?: string; sso?: string } => {
    const returnTo = safeReturnTo(search.returnTo);
    // Only the words a sign-in through an identity provider ends with; anything else is not shown.
    const error =
      typeof search.error === 'string' && search.error in PROVIDER_SIGN_IN_ERRORS ? search.error : undefined;
    // `?sso=<provider id>` (OIDC) or `?sso=saml:<provider id>`: a deep link that goes straight on to that provider
    // (returnTo kept).
    const sso =
      typeof search.sso === 'string' && /^(saml:)?[a-z0-9]{1,64}$/.test(search.sso) ? search.sso : undefined;
    return { ...(returnTo ? { returnTo } : {}), ...(error ? { error } : {}), ...(sso ? { sso } : {}) };
  },
  component: SignInPage,
});
const invitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/invite/$token',
  component: lazyRouteComponent(() => import('./AccountLinkPages'), 'AcceptInvitationPage'),
});
const requestResetRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password',
  component: lazyRouteComponent(() => import('./AccountLinkPages'), 'RequestPasswordResetPage'),
});
const setPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password/$token',
  component: lazyRouteComponent(() => import('./AccountLinkPages'), 'SetNewPasswordPage'),
});

export const rootPages = [signInRoute, invitationRoute, requestResetRoute, setPasswordRoute] as const;
