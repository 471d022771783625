import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

/** Failure triage (docs/api-decisions.md#failure-triage): the run's groups, suggestions, link-to-all, known. */

const RUN_GROUPS = '/api/public/v0/project/{project}/run/{run}/failure-group' as const;

export type RunFailureGroups =
  paths[typeof RUN_GROUPS]['get']['responses'][200]['content']['application/json'];
export type FailureGroup = RunFailureGroups['groups'][number];
export type ResultSuggestions =
  paths['/api/public/v0/project/{project}/result/{result}/suggestions']['get']['responses'][200]['content']['application/json'];
export type Suggestion = ResultSuggestions['suggestions'][number];
export type DefectLink =
  paths[`${typeof RUN_GROUPS}/{signature}/link`]['post']['requestBody']['content']['application/json'];

/** The run's current failures grouped by signature, the largest group first. */
export const runFailureGroupsQuery = (code: string, runId: number) =>
  queryOptions({
    queryKey: queryKeys.runFailureGroups(code, runId),
    queryFn: () => unwrap(api.GET(RUN_GROUPS, { params: { path: { project: code, run: runId } } })),
  });

/** Defects linked before to failures with this result's signature, with who linked them where. */
export const resultSuggestionsQuery = (code: string, resultId: number) =>
  queryOptions({
    queryKey: queryKeys.resultSuggestions(code, resultId),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/result/{result}/suggestions', {
          params: { path: { project: code, result: resultId } },
        }),
      ),
  });

/** "Link this defect to all": one link on the latest result of every case of the run's group. */
export const linkDefectToGroup = (code: string, runId: number, signature: string, link: DefectLink) =>
  unwrap(
    api.POST(`${RUN_GROUPS}/{signature}/link`, {
      params: { path: { project: code, run: runId, signature } },
      body: link,
    }),
  );

/** "Mark all as known": the signature is a known problem of the project (it hides nothing). */
export const markGroupKnown = (code: string, runId: number, signature: string) =>
  unwrap(
    api.POST(`${RUN_GROUPS}/{signature}/known`, {
      params: { path: { project: code, run: runId, signature } },
      body: {},
    }),
  );

/** Takes the known mark back (the mark is the project's, not the run's). */
export const unmarkKnown = (code: string, signature: string) =>
  unwrap(
    api.DELETE('/api/public/v0/project/{project}/failure-group/{signature}/known', {
      params: { path: { project: code, signature } },
    }),
  );
