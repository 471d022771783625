import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';
import type { StatusId } from '../../api/statuses';

export type RunTestCase =
  paths['/api/public/v0/project/{project}/run/{run}/tcase']['get']['responses'][200]['content']['application/json']['tcases'][number];

/** A run with its milestone and status counts (GET …/run/{run}; only the related objects the page shows). */
export const runQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: queryKeys.run(code, runId),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/run/{run}', {
          params: { path: { project: code, run: runId }, query: { include: ['milestone', 'statusCounts'] } },
        }),
      ),
  });

/**
 * Each case's flaky score over the last runs of this run's configuration, up to this run
 * (docs/api-decisions.md#flaky-score); a case not listed has not flipped. Under the reports' keys, so recording
 * results marks it stale as it marks the reports.
 */
export const runFlakyScoresQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: queryKeys.report(code, 'flaky-score', { runId }),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/run/{run}/flaky-score', {
          params: { path: { project: code, run: runId } },
        }),
      ),
    select: (d) => ({ last: d.last, byCase: new Map(d.tcases.map((t) => [t.tcaseId, t])) }),
  });

/**
 * Every test case of a run as the run shows it (the API sends them all at once). Without `include=folder`: the
 * database then writes the JSON itself (10,000 cases in a quarter of the time, and 0.8 MB less of it); the page
 * names the folders from the project's folder list instead.
 */
export const runTestCasesQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: queryKeys.runCases(code, runId),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/run/{run}/tcase', {
            params: { path: { project: code, run: runId } },
          }),
        )
      ).tcases,
  });

/** The ids of the run's cases that carry a tag (the list items have no tags: the API filters by them). */
export const runTaggedIdsQuery = (code: string, runId: number, tagId: number) =>
  queryOptions({
    queryKey: queryKeys.runTagged(code, runId, tagId),
    queryFn: async () =>
      new Set(
        (
          await unwrap(
            api.GET('/api/public/v0/project/{project}/run/{run}/tcase', {
              params: { path: { project: code, run: runId }, query: { tags: [tagId] } },
            }),
          )
        ).tcases.map((c) => c.id),
      ),
    staleTime: 30_000,
  });

export type RunTcaseDetail =
  paths['/api/public/v0/project/{project}/run/{run}/tcase/{tcase}']['get']['responses'][200]['content']['application/json'];
export type RunChanges =
  paths['/api/public/v0/project/{project}/run/{run}/changes']['get']['responses'][200]['content']['application/json'];
export type CaseHistory =
  paths['/api/public/v0/project/{project}/tcase/{id}/results']['get']['responses'][200]['content']['application/json'];

/** One case as the run shows it: precondition, steps, and its results in this run. */
export const runTcaseQuery = (code: string, runId: number, tcaseId: string) =>
  queryOptions({
    queryKey: queryKeys.runCase(code, runId, tcaseId),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/run/{run}/tcase/{tcase}', {
          params: { path: { project: code, run: runId, tcase: tcaseId } },
        }),
      ),
  });

/** A case's latest results in other runs. */
export const caseHistoryQuery = (code: string, tcaseId: string) =>
  queryOptions({
    queryKey: queryKeys.caseHistory(code, tcaseId),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase/{id}/results', {
          params: { path: { project: code, id: tcaseId } },
        }),
      ),
  });

export const fetchRunChanges = (code: string, runId: number, since?: number) =>
  unwrap(
    api.GET('/api/public/v0/project/{project}/run/{run}/changes', {
      params: { path: { project: code, run: runId }, query: since === undefined ? {} : { since } },
    }),
  );

type ResultBody =
  paths['/api/public/v0/project/{project}/run/{run}/tcase/{tcase}/result']['post']['requestBody']['content']['application/json'];

/** One result as the page sends it: a status, and optionally a comment (HTML), time taken and issue links. */
export interface ResultDraft {
  status: StatusId;
  comment?: string;
  timeTaken?: number;
  links?: ResultBody['links'];
  /** Ids of files uploaded for the result (extensions.md §8). */
  files?: string[];
}

/** The issue trackers linked to the project: a result's link to one of them comments back on the issue. */
export const projectIntegrationsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.integrations(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/integration', { params: { path: { project: code } } }),
        )
      ).integrations,
    // Read on every case the tester visits; trackers are linked rarely.
    staleTime: 5 * 60_000,
  });

/**
 * Records one result, or one status for several cases (the batch endpoint). `key` is the Idempotency-Key: a retry
 * of a request that failed sends the same key, so the service stores it once however often it is sent.
 */
export async function recordResults(
  code: string,
  runId: number,
  tcaseIds: string[],
  draft: ResultDraft,
  key: string,
): Promise<void> {
  const headers = { 'idempotency-key': key };
  if (tcaseIds.length === 1) {
    await unwrap(
      api.POST('/api/public/v0/project/{project}/run/{run}/tcase/{tcase}/result', {
        params: { path: { project: code, run: runId, tcase: tcaseIds[0] }, header: headers },
        body: draft,
      }),
    );
    return;
  }
  await unwrap(
    api.POST('/api/public/v0/project/{project}/run/{run}/result/batch', {
      params: { path: { project: code, run: runId }, header: headers },
      body: { items: tcaseIds.map((tcaseId) => ({ tcaseId, ...draft })) },
    }),
  );
}

/** The run's logs (notes from CI or testers about the run as a whole), oldest first. */
export const runLogsQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: queryKeys.runLogs(code, runId),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/run/{run}/log', {
            params: { path: { project: code, run: runId } },
          }),
        )
      ).logs,
  });

// ---- the runs list: new runs, the preview of what they select, close, clone, edit ----

export type CreateRunBody =
  paths['/api/public/v0/project/{project}/run']['post']['requestBody']['content']['application/json'];
export type QueryPlan = CreateRunBody['queryPlans'][number];

/**
 * Cases a run can take whose title contains `search` (the first 30), for picking them one by one; with
 * `folderIds`, only the cases in those folders and their subfolders.
 */
export const pickableCasesQuery = (code: string, search: string, folderIds: readonly number[] = []) =>
  queryOptions({
    queryKey: queryKeys.pickableCases(code, search, folderIds),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase', {
          params: {
            path: { project: code },
            // A run takes neither drafts nor templates (their filled cases, yes).
            query: {
              ...(search ? { search } : {}),
              // The server walks each subtree, so the address names only the chosen folders.
              ...(folderIds.length ? { folders: [...folderIds], recursive: true } : {}),
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
    queryKey: queryKeys.runPreview(code, type, queryPlans),
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
    dueAt?: string | null;
  },
) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/run/{run}', {
      params: { path: { project: code, run: runId } },
      body,
    }),
  );

// ---- the run page: assignees, and cases added to or removed from an open run ----

export type RunAssignable =
  paths['/api/public/v0/project/{project}/run/{run}/assignable']['get']['responses'][200]['content']['application/json']['users'][number];

/** Who can be assigned a new run of the project (New run, a plan's runs): the people the server accepts. */
export const projectAssignableQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.projectAssignable(code),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/assignable', { params: { path: { project: code } } }),
        )
      ).users,
    staleTime: 60_000,
  });

/** Who can be assigned the run's cases: active, above viewer, with access to the project. */
export const runAssignableQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: queryKeys.runAssignable(code, runId),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/run/{run}/assignable', {
            params: { path: { project: code, run: runId } },
          }),
        )
      ).users,
    staleTime: 60_000,
  });

/** Assigns cases of the run to a person, or to nobody (null); all or nothing. */
/** `dueAt` (docs/api-decisions.md#due-dates): a day sets it, absent keeps each case's own; unassigning clears it. */
export const assignRunCases = (
  code: string,
  runId: number,
  tcaseIds: string[],
  assigneeId: number | null,
  dueAt?: string,
) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/run/{run}/tcase/assign', {
      params: { path: { project: code, run: runId } },
      body: { tcaseIds, assigneeId, ...(dueAt ? { dueAt } : {}) },
    }),
  );

/** Adds cases to an open static_struct run (cases removed before come back with their results). */
export const addRunCases = (code: string, runId: number, tcaseIds: string[]) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/run/{run}/tcase/add', {
      params: { path: { project: code, run: runId } },
      body: { tcaseIds },
    }),
  );

/** Removes cases from an open static_struct run; their results are kept. */
export const removeRunCases = (code: string, runId: number, tcaseIds: string[]) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/run/{run}/tcase/remove', {
      params: { path: { project: code, run: runId } },
      body: { tcaseIds },
    }),
  );
