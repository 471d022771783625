import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

export const twoFactorQuery = queryOptions({
  queryKey: queryKeys.twoFactor(),
  queryFn: () => unwrap(api.GET('/api/public/v0/users/me/2fa')),
});

export const apiKeysQuery = queryOptions({
  queryKey: queryKeys.apiKeys(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/users/me/api-keys'))).apiKeys,
});

export type ApiKey = Awaited<ReturnType<typeof apiKeysQuery.queryFn & {}>>[number];

export const renameMe = (name: string) => unwrap(api.PATCH('/api/public/v0/users/me', { body: { name } }));

/** A new e-mail address needs the password (the address is how an account is recovered). */
export const changeMyEmail = (email: string, password: string) =>
  unwrap(api.POST('/api/public/v0/users/me/email', { body: { email, password } }));

export const changeMyPassword = (currentPassword: string, newPassword: string) =>
  unwrap(api.POST('/api/public/v0/users/me/password', { body: { currentPassword, newPassword } }));

export const setUpTwoFactor = (password: string) =>
  unwrap(api.POST('/api/public/v0/users/me/2fa/setup', { body: { password } }));

export const enableTwoFactor = (totp: string) =>
  unwrap(api.POST('/api/public/v0/users/me/2fa/enable', { body: { totp } }));

type DisableTwoFactorBody =
  paths['/api/public/v0/users/me/2fa/disable']['post']['requestBody']['content']['application/json'];

/** Turning the second factor off asks for the password and a code (or a recovery code). */
export const disableTwoFactor = (body: DisableTwoFactorBody) =>
  unwrap(api.POST('/api/public/v0/users/me/2fa/disable', { body }));

/** `scim`: the owner's provisioning key for an identity provider, accepted only under /scim/v2. */
export const createApiKey = (name: string, kind: 'key' | 'scim' = 'key') =>
  unwrap(api.POST('/api/public/v0/users/me/api-keys', { body: { name, kind } }));

export const revokeApiKey = (keyId: string) =>
  unwrap(api.DELETE('/api/public/v0/users/me/api-keys/{keyId}', { params: { path: { keyId } } }));
