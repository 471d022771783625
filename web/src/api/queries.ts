import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { queryKeys } from './keys';
import type { paths } from './schema';

/**
 * Queries several features read, defined once: one cache key must always hold one shape (two definitions of
 * `['projects', CODE, 'tags']` returning different shapes handed each page the other's data).
 */

/** Every project the person can see (the project switcher, the project bar, the home page). */
export const projectsQuery = queryOptions({
  queryKey: queryKeys.projects(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/project'))).projects,
});

/** One project: its code, title and description. */
export const projectQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.project(code),
    queryFn: () =>
      unwrap(api.GET('/api/public/v0/project/{project}', { params: { path: { project: code } } })),
  });

/** A project's tags, by title. */
export const projectTagsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.tags(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/tag', {
            params: { path: { project: code }, query: { sortField: 'title' } },
          }),
        )
      ).tags,
  });

/**
 * The whole folder tree of a project (the API sends up to 5,000 folders without paging), by position: `pos`,
 * then id, across the whole tree, so siblings come in their order but not depth-first; readers build the tree
 * from `parentId`. The one folder list of every page: the repository's tree, the run page's group names, the
 * run plan builder, and the case form's folder choice (each sorts by title or path itself where it wants to).
 */
export const projectFoldersQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.folders(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/tcase/folders', {
            params: { path: { project: code }, query: { sortField: 'pos', sortOrder: 'asc' } },
          }),
        )
      ).data,
  });

export interface FolderCount {
  /** Live cases directly in the folder. */
  own: number;
  /** Live cases in the folder and all its subfolders: what picking the folder lists or puts in a run. */
  subtree: number;
}

/**
 * Each folder's case counts (docs/api-decisions.md#folder-case-counts), a query of its own beside
 * `projectFoldersQuery`: the counts take the service a read of every case, and the tree should not wait for them.
 */
export const folderCountsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.folderCounts(code),
    queryFn: async () =>
      new Map<number, FolderCount>(
        (
          await unwrap(
            api.GET('/api/public/v0/project/{project}/tcase/folders', {
              params: { path: { project: code }, query: { withCounts: true } },
            }),
          )
        ).data.map((f) => [f.id, { own: f.tcaseCount ?? 0, subtree: f.subtreeTcaseCount ?? 0 }]),
      ),
    staleTime: 30_000,
  });

/** The tenant's statuses: the five built-in ones and the active custom ones, with their names and colours. */
export const statusesQuery = () =>
  queryOptions({
    queryKey: queryKeys.statuses(),
    queryFn: async () => (await unwrap(api.GET('/api/public/v0/settings/preferences/status'))).statuses,
    staleTime: 60_000,
  });

/** The tenant's users: the assignees a run or a plan's run may have. */
export const usersQuery = () =>
  queryOptions({ queryKey: queryKeys.users(), queryFn: () => unwrap(api.GET('/api/public/v0/users')) });

export type Run =
  paths['/api/public/v0/project/{project}/run']['get']['responses'][200]['content']['application/json']['runs'][number];

/** Every run of the project, newest first, with what the lists show (the runs page; each milestone's runs). */
export const runsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.runs(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/run', {
            params: {
              path: { project: code },
              query: { include: ['milestone', 'plan', 'statusCounts', 'assignment', 'configuration'] },
            },
          }),
        )
      ).runs,
  });

/** The project's milestones: the milestones page, and the milestone a run is filed under. */
export const milestonesQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.milestones(code),
    queryFn: () =>
      unwrap(api.GET('/api/public/v0/project/{project}/milestone', { params: { path: { project: code } } })),
  });

/** The project's configurations (browsers, devices…) a run or a plan's run is made for. */
export const configurationsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.configurations(code),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/configuration', { params: { path: { project: code } } }),
      ),
  });

/**
 * The tenant's issue-tracker integrations: the administration's list and what a project's "Link tracker" offers.
 * One query, so an integration created on the one shows in the other at once.
 */
export const integrationsQuery = queryOptions({
  queryKey: queryKeys.adminIntegrations(),
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/integration'))).integrations,
});
