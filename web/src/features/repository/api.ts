import {
  infiniteQueryOptions,
  keepPreviousData,
  queryOptions,
  useMutation,
  useQueryClient,
} from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { Priority } from '../../api/priorities';
import type { paths } from '../../api/schema';

type TcasePath = paths['/api/public/v0/project/{project}/tcase/{id}'];
export type TestCase = TcasePath['get']['responses'][200]['content']['application/json'];
export type Step = NonNullable<TestCase['steps']>[number];
export type TestCasePatch = TcasePath['patch']['requestBody']['content']['application/json'];
export type TestCaseCreate =
  paths['/api/public/v0/project/{project}/tcase']['post']['requestBody']['content']['application/json'];
export type CustomField =
  paths['/api/public/v0/project/{project}/custom-field']['get']['responses'][200]['content']['application/json']['customFields'][number];
export type SharedStep =
  paths['/api/public/v0/project/{project}/shared-step']['get']['responses'][200]['content']['application/json']['sharedSteps'][number];
export type SharedPrecondition =
  paths['/api/public/v0/project/{project}/shared-precondition']['get']['responses'][200]['content']['application/json'][number];

/** One test case by seq (what the CLI prints) or id, with its folder path. */
export const testCaseQuery = (code: string, ref: string) =>
  queryOptions({
    queryKey: queryKeys.testCase(code, ref),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase/{id}', {
          params: { path: { project: code, id: ref }, query: { include: ['path'] } },
        }),
      ),
  });

/** One stored version (D15): old versions stay readable. */
export const testCaseVersionQuery = (code: string, id: string, version: number) =>
  queryOptions({
    queryKey: queryKeys.testCaseVersion(code, id, version),
    // A stored version never changes.
    staleTime: Infinity,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase/{id}/version/{version}', {
          params: { path: { project: code, id, version } },
        }),
      ) as Promise<TestCase>,
  });

export type VersionEntry =
  paths['/api/public/v0/project/{project}/tcase/{id}/versions']['get']['responses'][200]['content']['application/json']['versions'][number];

/** Who made each version and when, newest first. */
export type ResultHistoryPage =
  paths['/api/public/v0/project/{project}/tcase/{id}/results']['get']['responses'][200]['content']['application/json'];

/** The case's latest result in each run, newest first, a page at a time ("Show more" asks for the next). */
export const resultHistoryQuery = (code: string, id: string, pageSize: number) =>
  infiniteQueryOptions({
    queryKey: queryKeys.caseHistoryPages(code, id, pageSize),
    initialPageParam: 0,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase/{id}/results', {
          params: { path: { project: code, id }, query: { offset: pageParam, limit: pageSize } },
        }),
      ),
    getNextPageParam: (last: ResultHistoryPage) =>
      last.offset + last.results.length < last.total && last.results.length > 0
        ? last.offset + last.results.length
        : undefined,
  });

export const testCaseVersionsQuery = (code: string, id: string, current: number) =>
  queryOptions({
    queryKey: queryKeys.testCaseVersions(code, id, current),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/tcase/{id}/versions', {
            params: { path: { project: code, id } },
          }),
        )
      ).versions,
  });

/** The filled cases a template produced. */
export const filledCasesQuery = (code: string, templateId: string) =>
  queryOptions({
    queryKey: queryKeys.filledCases(code, templateId),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase', {
          params: { path: { project: code }, query: { templateTCaseIds: [templateId], limit: 500 } },
        }),
      ),
  });

export const customFieldsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.customFields(code),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/custom-field', { params: { path: { project: code } } }),
      ),
  });

export const sharedStepsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.sharedSteps(code),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/shared-step', { params: { path: { project: code } } }),
      ),
  });

export const sharedPreconditionsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.sharedPreconditions(code),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/shared-precondition', {
          params: { path: { project: code } },
        }),
      ),
  });

/** Saves a case only while it is still at `version` (If-Match): a stale one answers 409, never overwrites. */
export const updateTestCase = (code: string, id: string, version: number, body: TestCasePatch) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/tcase/{id}', {
      params: { path: { project: code, id }, header: { 'if-match': `"${version}"` } },
      body,
    }),
  );

/** A change of some fields of a case whatever its version (bulk edits: each case's other edits stay). */
export const patchTestCase = (code: string, id: string, body: TestCasePatch) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/tcase/{id}', {
      params: { path: { project: code, id } },
      body,
    }),
  );

/** Adds cases to an open static_struct run (the only kind that takes cases after it starts). */
export const addCasesToRun = (code: string, runId: number, tcaseIds: string[]) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/run/{run}/tcase/add', {
      params: { path: { project: code, run: runId } },
      body: { tcaseIds },
    }),
  );

export const createTestCase = (code: string, body: TestCaseCreate) =>
  unwrap(api.POST('/api/public/v0/project/{project}/tcase', { params: { path: { project: code } }, body }));

// ---- the repository page: its list, folder and bulk writes ----

type TcaseList = paths['/api/public/v0/project/{project}/tcase']['get'];
export type ListQuery = NonNullable<TcaseList['parameters']['query']>;
export type ListedCase = TcaseList['responses'][200]['content']['application/json']['data'][number];
export type Folder =
  paths['/api/public/v0/project/{project}/tcase/folders']['get']['responses'][200]['content']['application/json']['data'][number];
export type CaseType = 'standalone' | 'template' | 'filled';

/** Rows fetched per request: a few screenfuls, small enough to answer fast on 50,000 cases. */
export const PAGE_SIZE = 100;

/** The list's filter as the API takes it (folder ids already expanded to the subtree). */
export interface ListFilter {
  folders?: number[];
  tags?: number[];
  priorities?: Priority[];
  types?: CaseType[];
  /** Full text (`q`): an identifier or words of title, precondition and steps; rows then carry `highlight`. */
  q?: string;
  /** Custom-field values by system name: the API's `cf_<systemName>` parameters. */
  custom?: Record<string, string[]>;
  /** None: best match first (only with `q`). */
  sortField?: string;
  sortOrder?: 'asc' | 'desc';
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

// The folder tree and tag list every page shares (web/src/api/queries.ts: one definition per cache key).
export { projectFoldersQuery as foldersQuery, projectTagsQuery as tagsQuery } from '../../api/queries';

/** One page of the list; the first also tells the total, which sizes the virtual list. */
export const listPageQuery = (code: string, filter: ListFilter, page: number) =>
  queryOptions({
    queryKey: queryKeys.caseListPage(code, filter, page),
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
              q: filter.q || undefined,
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
  // A folder's move changes its ancestors' counts; a case's write, its folder's.
  const counts = () => qc.invalidateQueries({ queryKey: queryKeys.folderCounts(code) });
  const afterFolders = () =>
    Promise.all([qc.invalidateQueries({ queryKey: queryKeys.folders(code) }), counts()]);
  const afterCases = () =>
    Promise.all([qc.invalidateQueries({ queryKey: queryKeys.caseLists(code) }), counts()]);
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
      onSuccess: () => Promise.all([afterCases(), qc.invalidateQueries({ queryKey: queryKeys.tags(code) })]),
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

export type RepositoryWrites = ReturnType<typeof useRepositoryWrites>;

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
    q: s.q,
    custom: Object.keys(custom).length > 0 ? custom : undefined,
    // A search lists the best match first unless a sort is chosen (docs/api-decisions.md#full-text-search).
    ...(s.q && !s.sort ? {} : { sortField: s.sort ?? 'seq', sortOrder: s.order ?? 'asc' }),
  };
}

// The files API is shared with the run page (result attachments).
export { uploadFile } from '../../api/files';
