import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';

type TcasePath = paths['/api/public/v0/project/{project}/tcase/{id}'];
export type TestCase = TcasePath['get']['responses'][200]['content']['application/json'];
export type Step = NonNullable<TestCase['steps']>[number];
export type TestCasePatch = TcasePath['patch']['requestBody']['content']['application/json'];
export type TestCaseCreate =
  paths['/api/public/v0/project/{project}/tcase']['post']['requestBody']['content']['application/json'];
export type CustomField =
  paths['/api/public/v0/project/{project}/custom-field']['get']['responses'][200]['content']['application/json']['customFields'][number];
export type SharedStep =
  paths['/api/public/v0/project/{project}/shared-step']['get']['responses'][200]['content']['application/json']['sharedSteps'][number];
export type SharedPrecondition =
  paths['/api/public/v0/project/{project}/shared-precondition']['get']['responses'][200]['content']['application/json'][number];

const P = (code: string) => code.toUpperCase();

export const testCaseKeys = {
  all: (code: string) => ['projects', P(code), 'tcase'] as const,
  one: (code: string, ref: string) => ['projects', P(code), 'tcase', ref] as const,
  version: (code: string, id: string, v: number) => ['projects', P(code), 'tcase', id, 'version', v] as const,
  /** The history as it was when the case was at `current`: a new version is a new key. */
  versions: (code: string, id: string, current: number) =>
    ['projects', P(code), 'tcase', id, 'versions', current] as const,
  filled: (code: string, templateId: string) => ['projects', P(code), 'tcase', templateId, 'filled'] as const,
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

/** One stored version (D15): old versions stay readable. */
export const testCaseVersionQuery = (code: string, id: string, version: number) =>
  queryOptions({
    queryKey: testCaseKeys.version(code, id, version),
    // A stored version never changes.
    staleTime: Infinity,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase/{id}/version/{version}', {
          params: { path: { project: code, id, version } },
        }),
      ) as Promise<TestCase>,
  });

export type VersionEntry =
  paths['/api/public/v0/project/{project}/tcase/{id}/versions']['get']['responses'][200]['content']['application/json']['versions'][number];

/** Who made each version and when, newest first. */
export const testCaseVersionsQuery = (code: string, id: string, current: number) =>
  queryOptions({
    queryKey: testCaseKeys.versions(code, id, current),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/public/v0/project/{project}/tcase/{id}/versions', {
            params: { path: { project: code, id } },
          }),
        )
      ).versions,
  });

/** The filled cases a template produced. */
export const filledCasesQuery = (code: string, templateId: string) =>
  queryOptions({
    queryKey: testCaseKeys.filled(code, templateId),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/tcase', {
          params: { path: { project: code }, query: { templateTCaseIds: [templateId], limit: 500 } },
        }),
      ),
  });

// Shared with other features (web/src/api/queries.ts): one definition per cache key.
export { projectFoldersQuery as foldersQuery, projectTagsQuery as tagsQuery } from '../../api/queries';

export const customFieldsQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', P(code), 'custom-fields'],
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/custom-field', { params: { path: { project: code } } }),
      ),
  });

export const sharedStepsQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', P(code), 'shared-steps'],
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/shared-step', { params: { path: { project: code } } }),
      ),
  });

export const sharedPreconditionsQuery = (code: string) =>
  queryOptions({
    queryKey: ['projects', P(code), 'shared-preconditions'],
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/shared-precondition', {
          params: { path: { project: code } },
        }),
      ),
  });

/** Saves a case only while it is still at `version` (If-Match): a stale one answers 409, never overwrites. */
export const updateTestCase = (code: string, id: string, version: number, body: TestCasePatch) =>
  unwrap(
    api.PATCH('/api/public/v0/project/{project}/tcase/{id}', {
      params: { path: { project: code, id }, header: { 'if-match': `"${version}"` } },
      body,
    }),
  );

export const createTestCase = (code: string, body: TestCaseCreate) =>
  unwrap(api.POST('/api/public/v0/project/{project}/tcase', { params: { path: { project: code } }, body }));

// The files API is shared with the run page (result attachments).
export { uploadFile } from '../../api/files';
