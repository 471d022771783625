import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

export type Project =
  paths['/api/public/v0/project']['get']['responses'][200]['content']['application/json']['projects'][number];
export type CreateProjectBody = NonNullable<
  paths['/api/public/v0/project']['post']['requestBody']
>['content']['application/json'];

// Every project, and one project: read by several features and the project's bar, so defined in the shared home.
export { projectQuery, projectsQuery } from '../../api/queries';

/** What the overview counts: every test case, and the runs still open (newest first). */
export const projectCountsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.projectCounts(code),
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

/** What archiving or deleting concerns (admin): cases, runs and open runs, results, attached files and bytes. */
export const projectContentsQuery = (code: string) =>
  queryOptions({
    queryKey: [...queryKeys.project(code), 'contents'] as const,
    queryFn: () =>
      unwrap(api.GET('/api/public/v0/project/{project}/counts', { params: { path: { project: code } } })),
  });
export type ProjectContents = Awaited<ReturnType<ReturnType<typeof projectContentsQuery>['queryFn'] & {}>>;

export const createProject = (body: CreateProjectBody) =>
  unwrap(api.POST('/api/public/v0/project', { body }));

export type EditProjectBody = NonNullable<
  paths['/api/public/v0/project/{project}']['patch']['requestBody']
>['content']['application/json'];

export const editProject = (code: string, body: EditProjectBody) =>
  unwrap(api.PATCH('/api/public/v0/project/{project}', { params: { path: { project: code } }, body }));

export const setProjectArchived = (code: string, archived: boolean) =>
  unwrap(
    archived
      ? api.POST('/api/public/v0/project/{project}/archive', { params: { path: { project: code } } })
      : api.POST('/api/public/v0/project/{project}/unarchive', { params: { path: { project: code } } }),
  );

export const deleteProject = (code: string) =>
  unwrap(api.DELETE('/api/public/v0/project/{project}', { params: { path: { project: code } } }));

// ---- shared report links, as the project's settings list them (extensions.md §6) ----
const SHARES = '/api/public/v0/project/{project}/report/share' as const;
export type ReportShare =
  paths[typeof SHARES]['get']['responses'][200]['content']['application/json']['shares'][number];

export const reportSharesQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.reportShares(code),
    queryFn: async () => (await unwrap(api.GET(SHARES, { params: { path: { project: code } } }))).shares,
  });

export const revokeReportShare = (code: string, id: number) =>
  unwrap(api.DELETE(`${SHARES}/{id}`, { params: { path: { project: code, id } } }));
