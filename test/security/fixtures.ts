import { expect } from 'vitest';
import type { ApiResponse, TestEnv } from '../helpers/test-app.js';
import type { Client } from './route-table.js';
import { uniqueProjectCode } from '../helpers/codes.js';

let counter = 0;
// A counter, not a clock: each test file has a database of its own.
const unique = () => `u${(counter++).toString(36)}`;

async function ok<T = any>(res: Promise<ApiResponse<T>>, status?: number): Promise<T> {
  const r = await res;
  if (status !== undefined) expect(r.status, JSON.stringify(r.body)).toBe(status);
  else expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
}

/** Everything a project can hold, created through the API; ids for the matrix and the isolation tests. */
export interface ProjectData {
  project: { id: string; code: string; title: string };
  folderId: number;
  tcaseId: string;
  tcaseSeq: number;
  sharedStepId: number;
  sharedPreconditionId: number;
  milestoneId: number;
  configurationId: string;
  runId: number;
  resultId: number;
  runLogId: string;
  planId: number;
  integrationId: string;
  customIntegrationId: string;
}

/** Creates a project full of data through `api` (an owner's client); `members` get access. */
export async function populateProject(
  api: Client,
  options: { members?: number[]; integrationId?: string } = {},
): Promise<ProjectData> {
  const post = (path: string, body: unknown) => api('POST', path, { body });
  const n = unique();
  const code = uniqueProjectCode('Q');
  const project = { code, title: `Populated ${n}` };
  const { id: projectId } = await ok(
    post('/project', { ...project, overviewDescription: '<p>about</p>' }),
    201,
  );
  const p = `/project/${code}`;
  for (const userId of options.members ?? []) await ok(post(`${p}/member`, { userId }));
  const folderId: number = (
    await ok(post(`${p}/tcase/folder/bulk`, { folders: [{ path: ['Suite', 'Leaf'], comment: '<b>c</b>' }] }))
  ).ids[0][1];
  const sharedStepId: number = (
    await ok(
      post(`${p}/shared-step`, { title: `Step ${n}`, subSteps: [{ description: 'do', expected: 'done' }] }),
      201,
    )
  ).id;
  const sharedPreconditionId: number = (
    await ok(post(`${p}/shared-precondition`, { title: `Pre ${n}`, text: '<p>ready</p>' }), 201)
  ).id;
  const milestoneId: number = (await ok(post(`${p}/milestone`, { title: `M ${n}` }), 201)).id;
  const configurationId: string = (await ok(post(`${p}/configuration`, { title: `C ${n}` }), 201)).id;
  const created = await ok(
    post(`${p}/tcase`, {
      title: `Case ${n}`,
      type: 'standalone',
      folderId,
      priority: 'high',
      precondition: { text: '<p>pre</p>' },
      steps: [{ description: '<p>s</p>', expected: '<p>e</p>' }, { sharedStepId }],
      tags: ['smoke'],
      requirements: [{ text: 'REQ-1', url: 'https://req.example.com/1' }],
      links: [{ text: 'doc', url: 'https://doc.example.com' }],
    }),
    201,
  );
  await ok(
    post(`${p}/tcase`, {
      title: `Shared pre ${n}`,
      type: 'standalone',
      folderId,
      priority: 'low',
      precondition: { sharedPreconditionId },
    }),
    201,
  );
  const integrationId =
    options.integrationId ??
    (
      await ok(
        post('/integration', { name: `Org ${n}`, type: 'tracker_c', config: { organizationKey: 'ENG' } }),
        201,
      )
    ).id;
  await ok(post(`${p}/integration`, { integrationId, config: { teamId: 't1', teamName: 'Core' } }));
  const customIntegrationId: string = (
    await ok(
      post('/integration', {
        name: `Custom ${n}`,
        type: 'custom',
        config: { newUrl: 'https://bugs.example.com/new', viewUrl: 'https://bugs.example.com/{id}' },
      }),
      201,
    )
  ).id;
  await ok(post(`${p}/integration`, { integrationId: customIntegrationId }));
  const runId: number = (
    await ok(
      post(`${p}/run`, {
        title: `Run ${n}`,
        type: 'static_struct',
        milestoneId,
        configurationId,
        queryPlans: [{ tcaseIds: [created.id] }],
      }),
      201,
    )
  ).id;
  const resultId: number = (
    await ok(
      post(`${p}/run/${runId}/tcase/${created.id}/result`, {
        status: 'failed',
        comment: '<p>broken</p>',
        links: [{ integrationId: customIntegrationId, url: 'https://bugs.example.com/1', text: 'Bug 1' }],
      }),
      201,
    )
  ).id;
  const runLogId: string = (await ok(post(`${p}/run/${runId}/log`, { comment: '<p>log</p>' }), 201)).id;
  const planId: number = (
    await ok(
      post(`${p}/plan`, {
        title: `Plan ${n}`,
        milestoneId,
        runs: [{ title: `Plan run ${n}`, queryPlans: [{ tcaseIds: [created.id] }] }],
      }),
      201,
    )
  ).id;
  return {
    project: { id: projectId, ...project },
    folderId,
    tcaseId: created.id,
    tcaseSeq: created.seq,
    sharedStepId,
    sharedPreconditionId,
    milestoneId,
    configurationId,
    runId,
    resultId,
    runLogId,
    planId,
    integrationId,
    customIntegrationId,
  };
}

/**
 * SQLite's FTS5 index of test-case search (migration 0024) and its shadow tables: their rows are the index's own
 * b-tree segments, merged as it likes, not one per document. Its documents are `tcase_search_docs`, counted.
 */
const FTS_INTERNAL = /^tcase_search(_(data|idx|docsize|config|content))?$/;

/** Row counts of every table (audit_events aside), to show a deletion left nothing behind. */
export async function tableCounts(t: TestEnv, except: string[] = []): Promise<Record<string, number>> {
  const tables = (await t.db.introspection.getTables())
    .map((x) => x.name)
    .filter((name) => !except.includes(name) && !FTS_INTERNAL.test(name));
  const counts: Record<string, number> = {};
  for (const name of tables.sort()) {
    const row = await t.db
      .selectFrom(name as any)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    counts[name] = Number((row as { n: unknown }).n);
  }
  return counts;
}
