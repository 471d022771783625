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

/** The roles, lowest first (D3): each includes what the ones before it may do. */
export const ROLES = ['viewer', 'test-runner', 'user', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** Each role's name as the pages show it. */
export const ROLE_NAMES: Record<Role, string> = {
  viewer: 'Viewer',
  'test-runner': 'Test runner',
  user: 'User',
  admin: 'Admin',
  owner: 'Owner',
};

/** Whether `role` is `needed` or above it: the one comparison every predicate below and the route guard make. */
export const hasRole = (role: string, needed: Role) => ROLES.indexOf(role as Role) >= ROLES.indexOf(needed);

// One predicate per role (D3), defined once.
/** Test-runners and up create, edit, clone and close runs and record results; viewers only read. */
export const canRunTests = (role: string) => hasRole(role, 'test-runner');
/** The admin role (admins and the owner) manages projects, people and the service's settings. */
export const isAdmin = (role: string) => hasRole(role, 'admin');
/** The owner alone sees the instance's settings. */
export const isOwner = (role: string) => hasRole(role, 'owner');
