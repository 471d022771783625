import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

type ViewsPath = paths['/api/public/v0/project/{project}/view'];
export type SavedView = ViewsPath['get']['responses'][200]['content']['application/json']['views'][number];
export type ViewPage = SavedView['page'];
export type ViewFilters = SavedView['filters'];

/** The person's views of one page and those shared with the project, by name. */
export const viewsQuery = (code: string, page: ViewPage) =>
  queryOptions({
    queryKey: queryKeys.views(code, page),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/view', {
            params: { path: { project: code }, query: { page } },
          }),
        )
      ).views,
  });

export const createView = (
  code: string,
  body: { name: string; page: ViewPage; filters: ViewFilters; shared: boolean },
) => unwrap(api.POST('/api/public/v0/project/{project}/view', { params: { path: { project: code } }, body }));

export const updateView = (code: string, id: number, body: { name?: string; shared?: boolean }) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/view/{id}', {
      params: { path: { project: code, id } },
      body,
    }),
  );

export const deleteView = (code: string, id: number) =>
  unwrap(
    api.DELETE('/api/public/v0/project/{project}/view/{id}', {
      params: { path: { project: code, id } },
    }),
  );
