import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';

export type LoginBody = NonNullable<
  paths['/api/auth/login']['post']['requestBody']
>['content']['application/json'];

/** The signed-in person; a 401 here means "not signed in". */
export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/users/me'))).user,
  staleTime: 5 * 60_000,
  retry: false,
});

export type Me = Awaited<ReturnType<typeof meQuery.queryFn & {}>>;

export const signIn = (body: LoginBody) => unwrap(api.POST('/api/auth/login', { body }));

export const signOut = () => unwrap(api.POST('/api/auth/logout'));

/** Only a path of this site may be returned to after sign-in (no open redirect to another origin). */
export function safeReturnTo(value: unknown): string | undefined {
  return typeof value === 'string' &&
    value.startsWith('/') &&
    !value.startsWith('//') &&
    !value.startsWith('/\\')
    ? value
    : undefined;
}

export const canManageProjects = (role: string) => role === 'admin' || role === 'owner';
