import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';
import type { QueryPlan } from '../runs';

export type Plan =
  paths['/api/public/v0/project/{project}/plan']['get']['responses'][200]['content']['application/json']['plans'][number];
export type PlanWithRuns =
  paths['/api/public/v0/project/{project}/plan/{plan}']['get']['responses'][200]['content']['application/json'];
export type CreatePlanBody =
  paths['/api/public/v0/project/{project}/plan']['post']['requestBody']['content']['application/json'];

export const plansQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.plans(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/plan', { params: { path: { project: code } } }),
        )
      ).plans,
  });

export const planQuery = (code: string, planId: number) =>
  queryOptions({
    queryKey: queryKeys.plan(code, planId),
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

export type UpdatePlanBody =
  paths['/api/public/v0/project/{project}/plan/{plan}']['patch']['requestBody']['content']['application/json'];
export type PlanRunBody =
  paths['/api/public/v0/project/{project}/plan/{plan}/run']['post']['requestBody']['content']['application/json']['runs'][number];

export const updatePlan = (code: string, planId: number, body: UpdatePlanBody) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/plan/{plan}', {
      params: { path: { project: code, plan: planId } },
      body,
    }),
  );

export const addPlanRuns = (code: string, planId: number, runs: PlanRunBody[]) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/plan/{plan}/run', {
      params: { path: { project: code, plan: planId } },
      body: { runs },
    }),
  );

export const closePlan = (code: string, planId: number) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/plan/{plan}/close', {
      params: { path: { project: code, plan: planId } },
    }),
  );
