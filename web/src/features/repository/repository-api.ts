import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Priority } from '../../api/priorities';
import type { paths } from '../../api/schema';

type TcaseList = paths['/api/public/v0/project/{project}/tcase']['get'];
export type ListQuery = NonNullable<TcaseList['parameters']['query']>;
export type ListedCase = TcaseList['responses'][200]['content']['application/json']['data'][number];
export type Folder =
  paths['/api/public/v0/project/{project}/tcase/folders']['get']['responses'][200]['content']['application/json']['data'][number];
export type CaseType = 'standalone' | 'template' | 'filled';

/** Rows fetched per request: a few screenfuls, small enough to answer fast on 50,000 cases. */
export const PAGE_SIZE = 100;

const up = (code: string) => code.toUpperCase();
export const repoKeys = {
  folders: (code: string) => ['projects', up(code), 'folders'] as const,
  tags: (code: string) => ['projects', up(code), 'tags'] as const,
  /** Every list page of the project: what a write to test cases invalidates. */
  lists: (code: string) => ['projects', up(code), 'tcase-list'] as const,
  page: (code: string, filter: ListFilter, page: number) =>
    ['projects', up(code), 'tcase-list', filter, page] as const,
};

/** The list's filter as the API takes it (folder ids already expanded to the subtree). */
export interface ListFilter {
  folders?: number[];
  tags?: number[];
  priorities?: Priority[];
  types?: CaseType[];
  search?: string;
  /** Custom-field values by system name: the API's `cf_<systemName>` parameters. */
  custom?: Record<string, string[]>;
  sortField: string;
  sortOrder: 'asc' | 'desc';
}

/** The address's filters of the list (the page's search params without the folder). */
export interface ListSearch {
  q?: string;
  tag?: number[];
  priority?: Priority[];
  type?: CaseType[];
  sort?: string;
  order?: 'asc' | 'desc';
  [customField: `cf_${string}`]: string[] | undefined;
}

// The same cache keys as every other page's folder tree and tag list (web/src/api/queries.ts).
export { projectFoldersQuery as foldersQuery, projectTagsQuery as tagsQuery } from '../../api/queries';

/** One page of the list; the first also tells the total, which sizes the virtual list. */
export const listPageQuery = (code: string, filter: ListFilter, page: number) =>
  queryOptions({
    queryKey: repoKeys.page(code, filter, page),
    queryFn: ({ signal }) => {
      const { custom, ...rest } = filter;
      // `cf_<systemName>` is a pattern the generated types cannot spell: the API documents it.
      const customParams = Object.fromEntries(
        Object.entries(custom ?? {}).map(([name, values]) => [`cf_${name}`, values]),
      );
      return unwrap(
        api.GET('/api/public/v0/project/{project}/tcase', {
          signal,
          params: {
            path: { project: code },
            query: {
              ...rest,
              ...customParams,
              search: filter.search || undefined,
              offset: page * PAGE_SIZE,
              limit: PAGE_SIZE,
              include: ['tags'],
            } as ListQuery,
          },
        }),
      );
    },
    placeholderData: page === 0 ? keepPreviousData : undefined,
    staleTime: 30_000,
  });

/** Folder and bulk writes: each refreshes what it changed, nothing else. */
export function useRepositoryWrites(code: string) {
  const qc = useQueryClient();
  const project = { project: code };
  const afterFolders = () => qc.invalidateQueries({ queryKey: repoKeys.folders(code) });
  const afterCases = () => qc.invalidateQueries({ queryKey: repoKeys.lists(code) });
  return {
    createFolder: useMutation({
      mutationFn: (path: string[]) =>
        unwrap(
          api.POST('/api/public/v0/project/{project}/tcase/folder/bulk', {
            params: { path: project },
            body: { folders: [{ path }] },
          }),
        ),
      onSuccess: afterFolders,
    }),
    editFolder: useMutation({
      mutationFn: ({ id, ...body }: { id: number; title?: string; parentId?: number; pos?: number }) =>
        unwrap(
          api.PATCH('/api/public/v0/project/{project}/tcase/folder/{folderId}', {
            params: { path: { ...project, folderId: id } },
            body,
          }),
        ),
      onSuccess: afterFolders,
    }),
    deleteFolder: useMutation({
      mutationFn: (id: number) =>
        unwrap(
          api.DELETE('/api/public/v0/project/{project}/tcase/folder/{folderId}', {
            params: { path: { ...project, folderId: id }, query: { recursive: true } },
          }),
        ),
      onSuccess: () => Promise.all([afterFolders(), afterCases()]),
    }),
    bulkMove: useMutation({
      mutationFn: (body: { tcaseIds: string[]; folderId: number }) =>
        unwrap(
          api.POST('/api/public/v0/project/{project}/tcase/bulk/move', { params: { path: project }, body }),
        ),
      onSuccess: afterCases,
    }),
    bulkTags: useMutation({
      mutationFn: (body: { tcaseIds: string[]; addTags?: string[]; removeTags?: string[] }) =>
        unwrap(
          api.POST('/api/public/v0/project/{project}/tcase/bulk/tags', { params: { path: project }, body }),
        ),
      onSuccess: () => Promise.all([afterCases(), qc.invalidateQueries({ queryKey: repoKeys.tags(code) })]),
    }),
    bulkDelete: useMutation({
      mutationFn: (tcaseIds: string[]) =>
        unwrap(
          api.POST('/api/public/v0/project/{project}/tcase/bulk/delete', {
            params: { path: project },
            body: { tcaseIds },
          }),
        ),
      onSuccess: afterCases,
    }),
  };
}

/** The list's first page for an address without a folder (the router starts it with the page's code). */
export const firstListPage = (code: string, s: ListSearch) =>
  listPageQuery(code, listFilter(s, undefined), 0);

/**
 * The one place an address's filters become the API's query: the router's prefetch and the page agree.
 * `knownFields` (system names), once the project's custom fields are loaded, drops a `cf_` filter of a field
 * that no longer exists rather than have the API refuse the whole list.
 */
export function listFilter(
  s: ListSearch,
  folders: number[] | undefined,
  knownFields?: Set<string>,
): ListFilter {
  const custom: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(s)) {
    if (!k.startsWith('cf_') || !Array.isArray(v) || v.length === 0) continue;
    const name = k.slice(3);
    if (!knownFields || knownFields.has(name)) custom[name] = v as string[];
  }
  return {
    folders,
    tags: s.tag?.length ? s.tag : undefined,
    priorities: s.priority?.length ? s.priority : undefined,
    types: s.type?.length ? s.type : undefined,
    search: s.q,
    custom: Object.keys(custom).length > 0 ? custom : undefined,
    sortField: s.sort ?? 'seq',
    sortOrder: s.order ?? 'asc',
  };
}
