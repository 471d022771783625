import { api, unwrap } from '../../api/client';

export const createMilestone = (code: string, title: string) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/milestone', {
      params: { path: { project: code } },
      body: { title },
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
