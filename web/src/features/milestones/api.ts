import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

export type CreateMilestoneBody =
  paths['/api/public/v0/project/{project}/milestone']['post']['requestBody']['content']['application/json'];
export type UpdateMilestoneBody =
  paths['/api/public/v0/project/{project}/milestone/{milestone}']['patch']['requestBody']['content']['application/json'];

export const createMilestone = (code: string, body: CreateMilestoneBody) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/milestone', {
      params: { path: { project: code } },
      body,
    }),
  );

/** One milestone (its page). */
export const milestoneQuery = (code: string, id: number) =>
  queryOptions({
    queryKey: queryKeys.milestone(code, id),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/milestone/{milestone}', {
          params: { path: { project: code, milestone: id } },
        }),
      ),
  });

export const updateMilestone = (code: string, id: number, body: UpdateMilestoneBody) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/milestone/{milestone}', {
      params: { path: { project: code, milestone: id } },
      body,
    }),
  );

export const setMilestoneArchived = (code: string, id: number, archived: boolean) =>
  archived
    ? unwrap(
        api.POST('/api/public/v0/project/{project}/milestone/{milestone}/archive', {
          params: { path: { project: code, milestone: id } },
        }),
      )
    : unwrap(
        api.POST('/api/public/v0/project/{project}/milestone/{milestone}/unarchive', {
          params: { path: { project: code, milestone: id } },
        }),
      );
