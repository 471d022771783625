import { queryOptions } from '@tanstack/react-query';
import { api, isApiError, unwrap, ApiError } from '../../api/client';
import type { paths } from '../../api/schema';

export type RunTestCase =
  paths['/api/public/v0/project/{project}/run/{run}/tcase']['get']['responses'][200]['content']['application/json']['tcases'][number];

export const runKeys = {
  one: (code: string, runId: number) => ['projects', code.toUpperCase(), 'runs', runId] as const,
  tcases: (code: string, runId: number) => ['projects', code.toUpperCase(), 'runs', runId, 'tcases'] as const,
};

/**
 * A run with its status counts. The API has no "get one run" yet, so it is found in the project's run list
 * (newest first, only the fields the page shows).
 */
export const runQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: runKeys.one(code, runId),
    queryFn: async () => {
      const { runs } = await unwrap(
        api.GET('/api/public/v0/project/{project}/run', {
          params: { path: { project: code }, query: { include: ['milestone', 'statusCounts'] } },
        }),
      );
      const run = runs.find((r) => r.id === runId);
      if (!run)
        throw new ApiError(404, { code: 'NOT_FOUND', message: `run ${runId} not found in project ${code}` });
      return run;
    },
    retry: (count, error) => count < 2 && !isApiError(error),
  });

/** Every test case of a run as the run shows it (the API sends them all at once). */
export const runTestCasesQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: runKeys.tcases(code, runId),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/run/{run}/tcase', {
            params: { path: { project: code, run: runId }, query: { include: ['folder'] } },
          }),
        )
      ).tcases,
  });
