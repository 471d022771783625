import { expect } from 'vitest';
import type { JsonBody } from '../../src/db/dialect.js';
import type { TestEnv } from './test-app.js';

type ProjectRef = { code: string } | string;
const codeOf = (p: ProjectRef) => (typeof p === 'string' ? p : p.code);

let counter = 0;
const uniqueTitle = (prefix: string) => `${prefix} ${Date.now().toString(36)}-${counter++}`;

export interface CreateRunOverrides extends Record<string, unknown> {
  /** Shorthand for `queryPlans: [{ tcaseIds }]`. */
  tcaseIds?: string[];
}

/**
 * Creates a run through the API and answers its id. Defaults: a `static_struct` run with a unique title
 * and the given `tcaseIds` (none: an empty run). Any body field can be overridden.
 */
export async function createRun(
  t: TestEnv,
  project: ProjectRef,
  overrides: CreateRunOverrides = {},
  options: { key?: string } = {},
): Promise<{ id: number }> {
  const { tcaseIds, ...rest } = overrides;
  const body = {
    title: uniqueTitle('Run'),
    type: 'static_struct',
    queryPlans: [{ tcaseIds: tcaseIds ?? [] }],
    ...rest,
  };
  const res = await t.post(`/project/${codeOf(project)}/run`, body, options);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The run as `GET /run` lists it (every relation included). */
export async function getRun(t: TestEnv, project: ProjectRef, runId: number) {
  const res = await t.get(`/project/${codeOf(project)}/run`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const run = res.body.runs.find((r: { id: number }) => r.id === runId);
  expect(run, `run ${runId} is listed`).toBeDefined();
  return run;
}

/** The test cases of a run as the run shows them. */
export async function listRunTcases(
  t: TestEnv,
  project: ProjectRef,
  runId: number,
  query?: Record<string, string | number | boolean | Array<string | number>>,
) {
  const res = await t.get(`/project/${codeOf(project)}/run/${runId}/tcase`, { query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.tcases as any[];
}

/** Adds one result through the API and answers its id. */
export async function addResult(
  t: TestEnv,
  project: ProjectRef,
  runId: number,
  tcaseRef: string | number,
  status: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const res = await t.post(`/project/${codeOf(project)}/run/${runId}/tcase/${tcaseRef}/result`, {
    status,
    comment: '',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Closes a run through the API. */
export async function closeRun(t: TestEnv, project: ProjectRef, runId: number): Promise<void> {
  const res = await t.post(`/project/${codeOf(project)}/run/${runId}/close`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Edits a test case through the API (PATCH). */
export async function updateTcase(
  t: TestEnv,
  project: ProjectRef,
  ref: string,
  body: Record<string, unknown>,
) {
  const res = await t.patch(`/project/${codeOf(project)}/tcase/${ref}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Deletes a test case through the API. */
export async function deleteTcase(t: TestEnv, project: ProjectRef, ref: string) {
  const res = await t.del(`/project/${codeOf(project)}/tcase/${ref}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The text of a body the database built (services' `json` answers): one Buffer, or pieces sent one after another. */
export async function bodyText(body: JsonBody): Promise<string> {
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  let text = '';
  for await (const piece of body) text += piece;
  return text;
}
