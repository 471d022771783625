import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

export const accountsQuery = queryOptions({
  queryKey: queryKeys.accounts(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/users/accounts'))).users,
});

export const invitationsQuery = queryOptions({
  queryKey: queryKeys.invitations(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/users/invitations'))).invitations,
});

export type Account = Awaited<ReturnType<typeof accountsQuery.queryFn & {}>>[number];
export type Invitation = Awaited<ReturnType<typeof invitationsQuery.queryFn & {}>>[number];
export type Role = Account['role'];
export type InviteBody = NonNullable<
  paths['/api/public/v0/users/invitations']['post']['requestBody']
>['content']['application/json'];

export const invite = (body: InviteBody) => unwrap(api.POST('/api/public/v0/users/invitations', { body }));

export const revokeInvitation = (invitationId: string) =>
  unwrap(
    api.DELETE('/api/public/v0/users/invitations/{invitationId}', {
      params: { path: { invitationId } },
    }),
  );

export const changeRole = (userId: number, role: Role) =>
  unwrap(api.POST('/api/public/v0/users/{userId}/role', { params: { path: { userId } }, body: { role } }));

export const setActive = (userId: number, active: boolean) =>
  active
    ? unwrap(api.POST('/api/public/v0/users/{userId}/reactivate', { params: { path: { userId } } }))
    : unwrap(api.POST('/api/public/v0/users/{userId}/deactivate', { params: { path: { userId } } }));

export const transferOwnership = (userId: number) =>
  unwrap(api.POST('/api/public/v0/users/transfer-ownership', { body: { userId } }));

export const issuePasswordReset = (userId: number) =>
  unwrap(api.POST('/api/public/v0/users/{userId}/password-reset', { params: { path: { userId } } }));

/** Roles an admin hands out, lowest first (D3). The owner is never given: ownership is transferred. */
export const ASSIGNABLE_ROLES = ['viewer', 'test-runner', 'user', 'admin'] as const satisfies readonly Role[];

export { ROLE_NAMES } from '../../session/session';

/** What new members are given: whether invitations naming no projects grant every one. */
export const accessDefaultsQuery = queryOptions({
  queryKey: queryKeys.accessDefaults(),
  queryFn: () => unwrap(api.GET('/api/public/v0/users/access-defaults')),
});

export const setAccessDefaults = (newMembersJoinAllProjects: boolean) =>
  unwrap(api.PUT('/api/public/v0/users/access-defaults', { body: { newMembersJoinAllProjects } }));
