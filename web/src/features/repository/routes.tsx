import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../routing/layouts';
import { firstListPage, foldersQuery, tagsQuery, testCaseQuery } from './api';
import { validateRepositorySearch } from './search';

const testCaseRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'tcase/$seq',
  loader: ({ context, params }) =>
    void context.queryClient.prefetchQuery(testCaseQuery(params.code, params.seq)),
  component: lazyRouteComponent(() => import('./TestCasePage'), 'TestCasePage'),
});

// The folder tree beside the list of test cases.
const repositoryRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'repository',
  staticData: { tab: { label: 'Test cases', order: 20, segments: ['repository', 'tcase'] } },
  validateSearch: validateRepositorySearch,
  // The tree, the tags and (unless a folder narrows the list) the first page start with the page's code.
  loaderDeps: ({ search }) => ({ search }),
  loader: ({ context, params, deps: { search } }) => {
    void context.queryClient.prefetchQuery(foldersQuery(params.code));
    void context.queryClient.prefetchQuery(tagsQuery(params.code));
    // Custom-field filters wait for the page to know the project's fields (an unknown one would answer 400).
    if (search.folder === undefined && !Object.keys(search).some((k) => k.startsWith('cf_')))
      void context.queryClient.prefetchQuery(firstListPage(params.code, search));
  },
  component: lazyRouteComponent(() => import('./RepositoryPage'), 'RepositoryPage'),
});

// The test case editor: a new case in a folder (`n` elsewhere comes here).
const newTestCaseRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'tcase/new',
  // `copy`: the seq of a case to duplicate (the editor opens prefilled with a copy of it).
  validateSearch: (search: Record<string, unknown>): { folder?: number; copy?: number } => {
    const folder = Number(search.folder);
    const copy = Number(search.copy);
    return {
      ...(Number.isInteger(folder) && folder > 0 ? { folder } : {}),
      ...(Number.isInteger(copy) && copy > 0 ? { copy } : {}),
    };
  },
  component: lazyRouteComponent(() => import('./NewTestCasePage'), 'NewTestCasePage'),
});

export const projectPages = [newTestCaseRoute, testCaseRoute, repositoryRoute] as const;
