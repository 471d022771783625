import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { queryKeys } from '../api/keys';

/**
 * Who is signed in, shared by the shell and every feature that adapts to the person (their role, their name):
 * a home below the features, so none of them reaches into the sign-in pages for it.
 */

/** The signed-in person; a 401 here means "not signed in". */
export const meQuery = queryOptions({
  queryKey: queryKeys.me(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/users/me'))).user,
  staleTime: 5 * 60_000,
  retry: false,
});

export type Me = Awaited<ReturnType<typeof meQuery.queryFn & {}>>;

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

/** The admin role (admins and the owner) manages projects and people (D3): one rule, defined once. */
export const canManageProjects = (role: string) => role === 'admin' || role === 'owner';
export const canManagePeople = canManageProjects;
/** Test-runners and up create, edit, clone and close runs and record results (D3); viewers only read. */
export const canRunTests = (role: string) => role !== 'viewer';
