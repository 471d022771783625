import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';

export type TestCase =
  paths['/api/public/v0/project/{project}/tcase/{id}']['get']['responses'][200]['content']['application/json'];
export type Step = NonNullable<TestCase['steps']>[number];

export const testCaseKeys = {
  one: (code: string, ref: string) => ['projects', code.toUpperCase(), 'tcase', ref] as const,
};

/** One test case by seq (what the CLI prints) or id, with its folder path. */
export const testCaseQuery = (code: string, ref: string) =>
  queryOptions({
    queryKey: testCaseKeys.one(code, ref),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase/{id}', {
          params: { path: { project: code, id: ref }, query: { include: ['path'] } },
        }),
      ),
  });
