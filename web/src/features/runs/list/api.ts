import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import type { paths } from '../../../api/schema';

const P = (code: string) => code.toUpperCase();

export type Run =
  paths['/api/public/v0/project/{project}/run']['get']['responses'][200]['content']['application/json']['runs'][number];
export type CreateRunBody =
  paths['/api/public/v0/project/{project}/run']['post']['requestBody']['content']['application/json'];
export type QueryPlan = CreateRunBody['queryPlans'][number];

export const runsKey = (code: string) => ['projects', P(code), 'runs'] as const;

/** Every run of the project, newest first, with what the list shows. */
export const runsQuery = (code: string) =>
  queryOptions({
    queryKey: runsKey(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/run', {
            params: {
              path: { project: code },
              query: { include: ['milestone', 'statusCounts', 'assignment', 'configuration'] },
            },
          }),
        )
      ).runs,
  });

export const milestonesQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', P(code), 'milestones'],
    queryFn: () =>
      unwrap(api.GET('/api/public/v0/project/{project}/milestone', { params: { path: { project: code } } })),
  });

export const configurationsQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', P(code), 'configurations'],
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/configuration', { params: { path: { project: code } } }),
      ),
  });

export const usersQuery = () =>
  queryOptions({ queryKey: ['users'], queryFn: () => unwrap(api.GET('/api/public/v0/users')) });

/** Cases a run can take whose title contains `search` (the first 30), for picking them one by one. */
export const pickableCasesQuery = (code: string, search: string) =>
  queryOptions({
    queryKey: ['projects', P(code), 'tcase', 'pick', search] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase', {
          params: {
            path: { project: code },
            // A run takes neither drafts nor templates (their filled cases, yes).
            query: {
              ...(search ? { search } : {}),
              draft: false,
              types: ['standalone', 'filled'],
              limit: 30,
              sortField: 'seq',
              sortOrder: 'asc',
            },
          },
        }),
      ),
  });

/** How many and which cases these plans select now: the very selection code run creation uses. */
export const previewQuery = (code: string, type: string, queryPlans: QueryPlan[]) =>
  queryOptions({
    queryKey: ['projects', P(code), 'run-preview', type, queryPlans],
    queryFn: () =>
      unwrap(
        api.POST('/api/public/v0/project/{project}/run/preview', {
          params: { path: { project: code } },
          body: { type: type as CreateRunBody['type'], queryPlans, limit: 8 },
        }),
      ),
  });

export const createRun = (code: string, body: CreateRunBody) =>
  unwrap(api.POST('/api/public/v0/project/{project}/run', { params: { path: { project: code } }, body }));

export const closeRun = (code: string, runId: number) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/run/{run}/close', {
      params: { path: { project: code, run: runId } },
    }),
  );

export const cloneRun = (code: string, runId: number, title: string) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/run/clone', {
      params: { path: { project: code } },
      body: { runId, title },
    }),
  );

export const editRun = (
  code: string,
  runId: number,
  body: {
    title?: string;
    description?: string;
    milestoneId?: number | null;
    assignmentId?: number | null;
  },
) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/run/{run}', {
      params: { path: { project: code, run: runId } },
      body,
    }),
  );

export type Plan =
  paths['/api/public/v0/project/{project}/plan']['get']['responses'][200]['content']['application/json']['plans'][number];
export type CreatePlanBody =
  paths['/api/public/v0/project/{project}/plan']['post']['requestBody']['content']['application/json'];

export const plansKey = (code: string) => ['projects', P(code), 'plans'] as const;

export const plansQuery = (code: string) =>
  queryOptions({
    queryKey: plansKey(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/plan', { params: { path: { project: code } } }),
        )
      ).plans,
  });

export const planQuery = (code: string, planId: number) =>
  queryOptions({
    queryKey: [...plansKey(code), planId] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/plan/{plan}', {
          params: { path: { project: code, plan: planId } },
        }),
      ),
  });

export const createPlan = (code: string, body: CreatePlanBody) =>
  unwrap(api.POST('/api/public/v0/project/{project}/plan', { params: { path: { project: code } }, body }));

/** Every case id the plans select (a plan's runs take ids, so the page sends what the preview resolved). */
export async function resolveCaseIds(code: string, queryPlans: QueryPlan[]): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 5000) {
    const page = await unwrap(
      api.POST('/api/public/v0/project/{project}/run/preview', {
        params: { path: { project: code } },
        body: { type: 'static', queryPlans, offset, limit: 5000 },
      }),
    );
    ids.push(...page.tcases.map((t) => t.id));
    if (ids.length >= page.total || page.tcases.length === 0) return ids;
  }
}

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
