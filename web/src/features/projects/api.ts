import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';

export type Project =
  paths['/api/public/v0/project']['get']['responses'][200]['content']['application/json']['projects'][number];
export type CreateProjectBody = NonNullable<
  paths['/api/public/v0/project']['post']['requestBody']
>['content']['application/json'];

/** Query keys by resource; mutations invalidate what they change. */
export const projectKeys = {
  all: ['projects'] as const,
  one: (code: string) => ['projects', code.toUpperCase()] as const,
  counts: (code: string) => ['projects', code.toUpperCase(), 'counts'] as const,
};

export const projectsQuery = queryOptions({
  queryKey: projectKeys.all,
  queryFn: async () => (await unwrap(api.GET('/api/public/v0/project'))).projects,
});

export const projectQuery = (code: string) =>
  queryOptions({
    queryKey: projectKeys.one(code),
    queryFn: () =>
      unwrap(api.GET('/api/public/v0/project/{project}', { params: { path: { project: code } } })),
  });

/** What the overview counts: every test case, and the runs still open (newest first). */
export const projectCountsQuery = (code: string) =>
  queryOptions({
    queryKey: projectKeys.counts(code),
    queryFn: async () => {
      const path = { project: code };
      const [cases, runs] = await Promise.all([
        unwrap(api.GET('/api/public/v0/project/{project}/tcase/count', { params: { path } })),
        unwrap(
          api.GET('/api/public/v0/project/{project}/run', {
            params: { path, query: { closed: false, include: ['milestone', 'statusCounts'] } },
          }),
        ),
      ]);
      return { cases: cases.count, openRuns: runs.runs };
    },
  });

export const createProject = (body: CreateProjectBody) =>
  unwrap(api.POST('/api/public/v0/project', { body }));
