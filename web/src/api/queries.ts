import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from './client';

/**
 * Queries several features read, defined once: one cache key must always hold one shape (two definitions of
 * `['projects', CODE, 'tags']` returning different shapes handed each page the other's data).
 */

/** A project's tags, by title. */
export const projectTagsQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', code.toUpperCase(), 'tags'] as const,
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
 * The whole folder tree of a project in position order, depth-first (the API sends up to 5,000 folders without
 * paging): the repository's tree, and the folder names of the run page's groups.
 */
export const projectFoldersQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', code.toUpperCase(), 'folders'] as const,
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/tcase/folders', {
            params: { path: { project: code }, query: { sortField: 'pos', sortOrder: 'asc' } },
          }),
        )
      ).data,
  });

/** Every folder of a project, by title (pickers); the repository tree reads them in position order itself. */
export const allFoldersQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', code.toUpperCase(), 'folders', 'all'] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase/folders', {
          params: { path: { project: code }, query: { limit: 1000, sortField: 'title' } },
        }),
      ),
  });
