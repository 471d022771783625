import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

export type LoginBody = NonNullable<
  paths['/api/auth/login']['post']['requestBody']
>['content']['application/json'];

export const signIn = (body: LoginBody) => unwrap(api.POST('/api/auth/login', { body }));

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
