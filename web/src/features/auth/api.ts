import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

export type LoginBody = NonNullable<
  paths['/api/auth/login']['post']['requestBody']
>['content']['application/json'];

export const signIn = (body: LoginBody) => unwrap(api.POST('/api/auth/login', { body }));

/**
 * The tenant's enabled identity providers, OpenID Connect then SAML: one "Sign in with …" button each. A SAML
 * provider's id is `saml:<id>` here, so `/sign-in?sso=saml:<id>` deep-links to it as `?sso=<id>` does to an OIDC one.
 */
export const signInProvidersQuery = () =>
  queryOptions({
    queryKey: queryKeys.signInProviders(),
    queryFn: async () => {
      const [oidc, saml] = await Promise.all([
        unwrap(api.GET('/api/auth/oidc/providers')),
        unwrap(api.GET('/api/auth/saml/providers')),
      ]);
      return {
        // The password policy is the tenant's, answered with the OpenID Connect list.
        passwordSignIn: oidc.passwordSignIn,
        providers: [...oidc.providers, ...saml.providers.map((p) => ({ ...p, id: `saml:${p.id}` }))],
      };
    },
    staleTime: 60_000,
  });

/** Where a provider's button goes: the service's start route, which sends the browser to the provider. */
export const providerSignInHref = (startUrl: string, returnTo: string | undefined) =>
  returnTo ? `${startUrl}?${new URLSearchParams({ returnTo }).toString()}` : startUrl;

/** The words for each `?error=` a sign-in through a provider ends with (docs/api-decisions.md#openid-connect-sign-in, #saml-20-sign-in). */
export const PROVIDER_SIGN_IN_ERRORS: Record<string, string> = {
  deactivated: 'Your account is deactivated. Ask an administrator to reactivate it.',
  email_unverified:
    'The identity provider did not send a verified e-mail address, so Casebook cannot tell who you are.',
  no_account: 'There is no Casebook account for you yet. Ask an administrator to invite you.',
  state_invalid: 'That sign-in expired or was already used. Please try again.',
  provider_unavailable: 'That sign-in option is not available any more.',
  provider_error: 'The identity provider could not sign you in. Please try again, or ask an administrator.',
  suspended: 'This workspace is suspended.',
  assertion_invalid:
    'The identity provider’s answer could not be trusted (its signature, audience or address did not check out). Please try again, or ask an administrator.',
  assertion_expired: 'The identity provider’s answer came too late (check the clocks). Please try again.',
  assertion_replayed: 'That sign-in answer was already used. Please sign in again.',
};

/** What an invitation link offers (its e-mail and role); a 404 once it expired or was used. */
export const invitationQuery = (token: string) =>
  queryOptions({
    queryKey: queryKeys.invitation(token),
    queryFn: () => unwrap(api.POST('/api/auth/invitation', { body: { token } })),
    retry: false,
    staleTime: Infinity,
  });

export const register = (token: string, name: string, password: string) =>
  unwrap(api.POST('/api/auth/register', { body: { token, name, password } }));

export const requestPasswordReset = (email: string) =>
  unwrap(api.POST('/api/auth/password-reset/request', { body: { email } }));

export const setNewPassword = (token: string, password: string) =>
  unwrap(api.POST('/api/auth/password-reset', { body: { token, password } }));
