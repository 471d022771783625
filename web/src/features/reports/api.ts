import { queryOptions } from '@tanstack/react-query';
import { api, unwrap as unwrapAny } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

/**
 * A report's answer as JSON: the endpoints also answer CSV (`?format=csv`), which the typed client adds to
 * every answer as `string`; these queries never ask for it.
 */
const unwrap = async <T>(call: Parameters<typeof unwrapAny<T>>[0]) =>
  (await unwrapAny(call)) as Exclude<T, string>;

/** The JSON answer of a report endpoint (its 200 body), by path. */
type Json<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer T } } } };
}
  ? T
  : never;

const V0 = '/api/public/v0/project/{project}' as const;

export type TrendReport = Json<`${typeof V0}/report/trend`>;
export type RunReport = Json<`${typeof V0}/run/{run}/report`>;
export type FlakyReport = Json<`${typeof V0}/report/flaky`>;
export type FailingReport = Json<`${typeof V0}/report/failing`>;
export type SlowestReport = Json<`${typeof V0}/report/slowest`>;
export type CoverageReport = Json<`${typeof V0}/report/coverage`>;
export type DefectsReport = Json<`${typeof V0}/report/defects`>;
export type MilestoneReport = Json<`${typeof V0}/milestone/{milestone}/report`>;
export type PlanReport = Json<`${typeof V0}/plan/{plan}/report`>;
export type FolderReport = Json<`${typeof V0}/report/folders`>;
export type SharedReport = Json<'/api/shared-report/{token}'>;
/** The dashboard's reports: what a shared dashboard link answers as `data`, and what the dashboard page reads. */
export type DashboardData = Extract<SharedReport['data'], { trend: unknown }>;
export type ReportShare = Json<`${typeof V0}/report/share`>['shares'][number];

export interface TrendParams {
  by: 'run' | 'day';
  last?: number;
  milestoneId?: number;
  configurationId?: string;
}
export interface ListParams {
  last?: number;
  limit?: number;
}

export const trendQuery = (code: string, p: TrendParams) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'trend', p),
    queryFn: () => unwrap(api.GET(`${V0}/report/trend`, { params: { path: { project: code }, query: p } })),
  });

export const runReportQuery = (code: string, runId: number, since?: number) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'run', { runId, since }),
    queryFn: () =>
      unwrap(
        api.GET(`${V0}/run/{run}/report`, {
          params: { path: { project: code, run: runId }, query: since === undefined ? {} : { since } },
        }),
      ),
  });

export const flakyQuery = (code: string, p: ListParams = {}) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'flaky', p),
    queryFn: () => unwrap(api.GET(`${V0}/report/flaky`, { params: { path: { project: code }, query: p } })),
  });

/**
 * The flaky score of each case of a run over the last N runs of its configuration, up to the run (the run page's
 * column): only cases with a flip are listed, the others score 0.
 */
export const runFlakyScoresQuery = (code: string, runId: number, last?: number) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'flaky-score', { runId, last }),
    queryFn: () =>
      unwrap(
        api.GET(`${V0}/run/{run}/flaky-score`, {
          params: { path: { project: code, run: runId }, query: last === undefined ? {} : { last } },
        }),
      ),
  });

export const failingQuery = (code: string, p: ListParams = {}) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'failing', p),
    queryFn: () => unwrap(api.GET(`${V0}/report/failing`, { params: { path: { project: code }, query: p } })),
  });

export const slowestQuery = (code: string, p: ListParams = {}) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'slowest', p),
    queryFn: () => unwrap(api.GET(`${V0}/report/slowest`, { params: { path: { project: code }, query: p } })),
  });

export const foldersQuery = (code: string, p: ListParams = {}) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'folders', p),
    queryFn: () => unwrap(api.GET(`${V0}/report/folders`, { params: { path: { project: code }, query: p } })),
  });

/** How many active milestones the dashboard shows: one list and at most this many reports per visit. */
export const DASHBOARD_MILESTONES = 4;

/** The newest active milestones with their runs' summed counts (the milestone reports), newest first. */
export const milestonesProgressQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'milestones-progress', { n: DASHBOARD_MILESTONES }),
    queryFn: async () => {
      const path = { project: code };
      const list = await unwrap(api.GET(`${V0}/milestone`, { params: { path, query: { archived: false } } }));
      const newest = [...list.milestones].sort((a, b) => b.id - a.id).slice(0, DASHBOARD_MILESTONES);
      const reports = await Promise.all(
        newest.map((m) =>
          unwrap(
            api.GET(`${V0}/milestone/{milestone}/report`, {
              params: { path: { ...path, milestone: m.id } },
            }),
          ),
        ),
      );
      return { total: list.milestones.length, milestones: reports };
    },
  });

export const coverageQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'coverage', {}),
    queryFn: () => unwrap(api.GET(`${V0}/report/coverage`, { params: { path: { project: code } } })),
  });

export const defectsQuery = (code: string, p: ListParams = {}) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'defects', p),
    queryFn: () => unwrap(api.GET(`${V0}/report/defects`, { params: { path: { project: code }, query: p } })),
  });

export const milestoneReportQuery = (code: string, milestoneId: number) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'milestone', { milestoneId }),
    queryFn: () =>
      unwrap(
        api.GET(`${V0}/milestone/{milestone}/report`, {
          params: { path: { project: code, milestone: milestoneId } },
        }),
      ),
  });

export const planReportQuery = (code: string, planId: number) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'plan', { planId }),
    queryFn: () =>
      unwrap(api.GET(`${V0}/plan/{plan}/report`, { params: { path: { project: code, plan: planId } } })),
  });

/**
 * The address of a report's CSV (`?format=csv`): a plain link downloads it with the session cookie, so the
 * browser streams it to disk instead of the page holding it.
 */
export function reportCsvUrl(path: string, query: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams({ format: 'csv' });
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  return `/api/public/v0${path}?${q.toString()}`;
}

// ---- shared links: made from a report page's "Share", read by the public /shared/{token} page ----

export type ShareBody = NonNullable<
  paths[`${typeof V0}/report/share`]['post']['requestBody']
>['content']['application/json'];

/** Makes an expiring, read-only link to one report (test-runner and up); its URL is answered once. */
export const createReportShare = (code: string, body: ShareBody) =>
  unwrap(api.POST(`${V0}/report/share`, { params: { path: { project: code } }, body }));

/** The report a shared link opens, read without a session; unknown, expired and revoked links are one 404. */
export const sharedReportQuery = (token: string) =>
  queryOptions({
    queryKey: queryKeys.sharedReport(token),
    queryFn: () => unwrap(api.GET('/api/shared-report/{token}', { params: { path: { token } } })),
  });
