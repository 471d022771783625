import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import { configurationsQuery, integrationsQuery } from '../../../api/queries';
import type { paths } from '../../../api/schema';

/*
 * What the settings sections read and write beyond the project itself. Keys extend the app's keys (api/keys.ts),
 * so a change here also refreshes the case editor's pick lists of shared items and configurations, and back.
 */

const path = (project: string) => ({ params: { path: { project } } });

// ---- members (admin) ----
export const membersQuery = (code: string) =>
  queryOptions({
    queryKey: [...queryKeys.project(code), 'members'] as const,
    queryFn: async () =>
      (await unwrap(api.GET('/api/public/v0/project/{project}/member', path(code)))).members,
  });
export type Member = Awaited<ReturnType<ReturnType<typeof membersQuery>['queryFn'] & {}>>[number];

export const addMember = (code: string, userId: number) =>
  unwrap(api.POST('/api/public/v0/project/{project}/member', { ...path(code), body: { userId } }));

export const removeMember = (code: string, userId: number) =>
  unwrap(
    api.DELETE('/api/public/v0/project/{project}/member/{userId}', {
      params: { path: { project: code, userId } },
    }),
  );

/** The tenant's accounts (admin): who may be added, and the admins who see every project anyway. */
export const accountsQuery = queryOptions({
  queryKey: queryKeys.accounts(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/users/accounts'))).users,
});
export type Account = Awaited<ReturnType<typeof accountsQuery.queryFn & {}>>[number];

export const ROLE_NAMES: Record<Account['role'], string> = {
  viewer: 'Viewer',
  'test-runner': 'Test runner',
  user: 'User',
  admin: 'Admin',
  owner: 'Owner',
};

// ---- configurations (test-runner and up) ----
// The one configurations query of the app (api/queries.ts): the run forms read the same cache.
export { configurationsQuery };
export type Configuration = Awaited<
  ReturnType<ReturnType<typeof configurationsQuery>['queryFn'] & {}>
>['configurations'][number];

export const createConfiguration = (code: string, title: string) =>
  unwrap(api.POST('/api/public/v0/project/{project}/configuration', { ...path(code), body: { title } }));

export const renameConfiguration = (code: string, id: string, title: string) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/configuration/{configuration}', {
      params: { path: { project: code, configuration: id } },
      body: { title },
    }),
  );

/** The runs that use a configuration (and the open ones): what its delete dialog names. */
export const configurationUsageQuery = (code: string, id: string) =>
  queryOptions({
    queryKey: [...queryKeys.configurations(code), id, 'usage'] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/configuration/{configuration}/usage', {
          params: { path: { project: code, configuration: id } },
        }),
      ),
  });

export const deleteConfiguration = (code: string, id: string) =>
  unwrap(
    api.DELETE('/api/public/v0/project/{project}/configuration/{configuration}', {
      params: { path: { project: code, configuration: id } },
    }),
  );

// ---- shared steps and shared preconditions (test-runner and up) ----
const STEP = '/api/public/v0/project/{project}/shared-step' as const;
const PRE = '/api/public/v0/project/{project}/shared-precondition' as const;

export type SharedStep =
  paths[typeof STEP]['get']['responses'][200]['content']['application/json']['sharedSteps'][number];
export type SharedPrecondition =
  paths[typeof PRE]['get']['responses'][200]['content']['application/json'][number];
export type SubStepInput = { description: string; expected: string };
export type SharedItemUser =
  paths[`${typeof STEP}/{id}/tcase`]['get']['responses'][200]['content']['application/json']['tcases'][number];

export const sharedStepLibraryQuery = (code: string) =>
  queryOptions({
    queryKey: [...queryKeys.sharedSteps(code), 'library'] as const,
    queryFn: async () =>
      (
        await unwrap(
          api.GET(STEP, { params: { path: { project: code }, query: { include: ['tcaseCount'] } } }),
        )
      ).sharedSteps,
  });

export const sharedPreconditionLibraryQuery = (code: string) =>
  queryOptions({
    queryKey: [...queryKeys.sharedPreconditions(code), 'library'] as const,
    queryFn: () =>
      unwrap(api.GET(PRE, { params: { path: { project: code }, query: { include: ['tcaseCount'] } } })),
  });

export type SharedKind = 'step' | 'precondition';

/** The live cases whose latest version uses the item: what an edit of it changes. */
export const sharedItemUsersQuery = (code: string, kind: SharedKind, id: number) =>
  queryOptions({
    queryKey: queryKeys.sharedItemUsers(code, kind, id),
    queryFn: async () => {
      const params = { params: { path: { project: code, id } } };
      return (
        await unwrap(
          kind === 'step' ? api.GET(`${STEP}/{id}/tcase`, params) : api.GET(`${PRE}/{id}/tcase`, params),
        )
      ).tcases;
    },
  });

export const createSharedStep = (code: string, body: { title: string; subSteps: SubStepInput[] }) =>
  unwrap(api.POST(STEP, { ...path(code), body }));
export const updateSharedStep = (
  code: string,
  id: number,
  body: { title: string; subSteps: SubStepInput[] },
) => unwrap(api.PATCH(`${STEP}/{id}`, { params: { path: { project: code, id } }, body }));
export const createSharedPrecondition = (code: string, body: { title: string; text: string }) =>
  unwrap(api.POST(PRE, { ...path(code), body }));
export const updateSharedPrecondition = (code: string, id: number, body: { title: string; text: string }) =>
  unwrap(api.PATCH(`${PRE}/{id}`, { params: { path: { project: code, id } }, body }));
export const deleteSharedItem = (code: string, kind: SharedKind, id: number) => {
  const params = { params: { path: { project: code, id } } };
  return unwrap(kind === 'step' ? api.DELETE(`${STEP}/{id}`, params) : api.DELETE(`${PRE}/{id}`, params));
};

// Issue-tracker links: admins change them; everyone reads them.
export const projectIntegrationsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.integrations(code),
    queryFn: async () =>
      (await unwrap(api.GET('/api/public/v0/project/{project}/integration', path(code)))).integrations,
  });
export type ProjectIntegration = Awaited<
  ReturnType<ReturnType<typeof projectIntegrationsQuery>['queryFn'] & {}>
>[number];

// The tenant's integrations (what a project may be linked to): the administration's query, so a new one shows here.
export { integrationsQuery };
export type Integration = Awaited<ReturnType<typeof integrationsQuery.queryFn & {}>>[number];

export type LinkConfig = NonNullable<
  NonNullable<
    paths['/api/public/v0/project/{project}/integration']['post']['requestBody']
  >['content']['application/json']['config']
>;

export const linkIntegration = (code: string, integrationId: string, config: LinkConfig) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/integration', {
      ...path(code),
      body: { integrationId, config },
    }),
  );

export const unlinkIntegration = (code: string, integrationId: string) =>
  unwrap(
    api.DELETE('/api/public/v0/project/{project}/integration/{integrationId}', {
      params: { path: { project: code, integrationId } },
    }),
  );

/** The settings a link of each tracker type takes (the service's rules, integrations.service.ts). */
export const LINK_FIELDS: Record<Integration['type'], { key: keyof LinkConfig; label: string }[]> = {
  tracker_a: [{ key: 'repo', label: 'Repository' }],
  tracker_b: [
    { key: 'projectId', label: 'Tracker project id' },
    { key: 'projectName', label: 'Tracker project name' },
  ],
  tracker_c: [
    { key: 'teamId', label: 'Team id' },
    { key: 'teamName', label: 'Team name' },
  ],
  custom: [],
};

export const TRACKER_TYPE_NAMES: Record<Integration['type'], string> = {
  tracker_a: 'Repository tracker',
  tracker_b: 'Site tracker',
  tracker_c: 'Organisation tracker',
  custom: 'Custom links',
};
