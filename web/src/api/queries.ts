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
 * The whole folder tree of a project (the API sends up to 5,000 folders without paging), by position: `pos`,
 * then id, across the whole tree, so siblings come in their order but not depth-first; readers build the tree
 * from `parentId`. The one folder list of every page: the repository's tree, the run page's group names, the
 * run plan builder, and the case form's folder choice (each sorts by title or path itself where it wants to).
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
