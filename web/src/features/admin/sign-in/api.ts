import { queryOptions } from '@tanstack/react-query';
import { api, isApiError, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import type { paths } from '../../../api/schema';
import { sentence, UNREACHABLE, type FormErrors } from '../../../lib/useForm';

export const providersQuery = queryOptions({
  queryKey: queryKeys.oidcProviders(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/oidc-provider'))).providers,
});

export const providerQuery = (providerId: string) =>
  queryOptions({
    queryKey: queryKeys.oidcProvider(providerId),
    queryFn: () =>
      unwrap(api.GET('/api/public/v0/oidc-provider/{providerId}', { params: { path: { providerId } } })),
  });

export type Provider = Awaited<ReturnType<typeof providersQuery.queryFn & {}>>[number];
export type TestOutcome = NonNullable<Provider['lastTest']>;
export type CreateBody = NonNullable<
  paths['/api/public/v0/oidc-provider']['post']['requestBody']
>['content']['application/json'];
export type UpdateBody = NonNullable<
  paths['/api/public/v0/oidc-provider/{providerId}']['patch']['requestBody']
>['content']['application/json'];
export type GrantableRole = NonNullable<CreateBody['defaultRole']>;

export const createProvider = (body: CreateBody) =>
  unwrap(api.POST('/api/public/v0/oidc-provider', { body }));
export const updateProvider = (providerId: string, body: UpdateBody) =>
  unwrap(api.PATCH('/api/public/v0/oidc-provider/{providerId}', { params: { path: { providerId } }, body }));
export const deleteProvider = (providerId: string) =>
  unwrap(api.DELETE('/api/public/v0/oidc-provider/{providerId}', { params: { path: { providerId } } }));

/** Where "Test sign-in" opens its popup: a browser navigation through the provider's own pages. */
export const testStartUrl = (providerId: string) => `/api/auth/oidc/${encodeURIComponent(providerId)}/test`;

/** What the test popup posts to the page that opened it once the outcome is stored. */
export const TEST_MESSAGE = 'casebook:oidc-test-sign-in';

export const ROLES: { role: GrantableRole; label: string }[] = [
  { role: 'viewer', label: 'Viewer' },
  { role: 'test-runner', label: 'Test runner' },
  { role: 'user', label: 'User' },
  { role: 'admin', label: 'Admin' },
];

/** The refusal words of a test (docs/api-decisions.md#openid-connect-sign-in), as the admin reads them. */
export const OUTCOME_WORDS: Record<string, string> = {
  success: 'The sign-in would succeed.',
  provider_error: 'The provider could not be reached or refused the request.',
  email_unverified: 'The provider did not send a verified e-mail address: the sign-in would be refused.',
  no_account:
    'No account has this e-mail address and this provider only lets in people already here: the sign-in would be refused.',
  deactivated: 'This account is deactivated: the sign-in would be refused.',
};

/**
 * Refusals beside their field: `/roleRules/2/group` is the role rules' list, `/clientSecret` the secret; a name
 * taken (409) is the name's.
 */
export function providerErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e)) return { form: UNREACHABLE, fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const field = d.path.split('/').filter(Boolean)[0];
    if (field && !fields[field]) fields[field] = sentence(d.message);
  }
  if (Object.keys(fields).length === 0 && e.status === 409) fields.name = sentence(e.message);
  return Object.keys(fields).length > 0 ? { fields } : { form: sentence(e.message), fields: {} };
}

export const words = (e: unknown) => (isApiError(e) ? sentence(e.message) : UNREACHABLE);

export type PasswordSignIn = 'everyone' | 'owners';

export const signInSettingsQuery = queryOptions({
  queryKey: queryKeys.signInSettings(),
  queryFn: () => unwrap(api.GET('/api/public/v0/sign-in-settings')),
});

export const setSignInSettings = (passwordSignIn: PasswordSignIn) =>
  unwrap(api.PUT('/api/public/v0/sign-in-settings', { body: { passwordSignIn } }));
