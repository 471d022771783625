import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { firstStart } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { createJobRunner } from '../../src/jobs/index.js';
import { databaseTargets, type DatabaseTarget } from './databases.js';
import { createFolder, createTcase, uploadFile } from './tcase-factories.js';
import { addResult, closeRun, createRun } from './run-factories.js';
import { userWithKey } from './factories.js';
import { addMember } from '../../src/modules/projects/projects.service.js';
import type { TestEnv } from './test-app.js';

/* The project archive's tests (src/modules/imports/archive/): a project holding every kind of data, requests. */

export const ARCHIVE_BOUNDARY = '----casebook-archive-boundary';
const BOUNDARY = ARCHIVE_BOUNDARY;

export function archiveBody(file: Buffer | undefined, fields: Record<string, string> = {}): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  if (file)
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="p.casebook"\r\nContent-Type: application/gzip\r\n\r\n`,
      ),
      file,
      Buffer.from('\r\n'),
    );
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** A service the tests talk to: the described one, or a second one made by `secondService`. */
export type Service = Pick<TestEnv, 'app' | 'db' | 'config' | 'ownerKey' | 'get' | 'post'>;

export async function exportArchive(s: Service, code: string, key = s.ownerKey) {
  const res = await s.app.inject({
    method: 'GET',
    url: `/api/public/v0/project/${code}/export?format=casebook`,
    headers: { authorization: `ApiKey ${key}` },
  });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, body: res.body };
}

export async function postArchive(
  s: Service,
  file: Buffer | undefined,
  fields: Record<string, string> = {},
  key = s.ownerKey,
) {
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/public/v0/import/project',
    headers: { authorization: `ApiKey ${key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: archiveBody(file, fields),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

/** Posts the archive, runs the job, answers the import's final state. */
export async function importArchive(s: Service, file: Buffer, fields: Record<string, string> = {}) {
  const started = await postArchive(s, file, fields);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  await createJobRunner(s.db, s.config, s.app.ctx, { concurrency: 1 }).drain();
  const res = await s.get(`/import/${started.body.id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The archive's records, the header's export time left out. */
export function records(gz: Buffer): any[] {
  return gunzipSync(gz)
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .map((r) => (r.t === 'archive' ? { ...r, exportedAt: '…' } : r));
}

/** An empty second Casebook on the database `name`, with the same owner e-mail. */
export async function secondService(
  name: DatabaseTarget['name'],
): Promise<Service & { close: () => Promise<void> }> {
  const target = databaseTargets().find((d) => d.name === name)!;
  const created = await target.create();
  const config = loadConfig({
    CASEBOOK_LOG_LEVEL: 'silent',
    CASEBOOK_DATA_DIR: `/tmp/casebook-test-second-${process.pid}`,
    CASEBOOK_OWNER_EMAIL: 'owner@example.com',
    CASEBOOK_OWNER_PASSWORD: 'owner-password',
    CASEBOOK_PUBLIC_URL: 'http://second.test',
    CASEBOOK_SECRET_KEY: 'second-secret-key-0123456789',
  });
  await migrateToLatest(created.db);
  const first = await firstStart(created.db, config);
  if (!first) throw new Error('expected an empty database');
  const app = await buildApp({ config, db: created.db, webRoot: null });
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await app.inject({
      method: method as any,
      url: `/api/public/v0${url}`,
      headers: {
        authorization: `ApiKey ${first.apiKey}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      payload: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined } as any;
  };
  return {
    app,
    db: created.db,
    config,
    ownerKey: first.apiKey,
    get: (url: string) => call('GET', url),
    post: (url: string, body?: unknown) => call('POST', url, body),
    close: async () => {
      await app.close();
      await created.drop();
    },
  };
}

/**
 * A project with every kind of data: folders (one deleted), a custom field, a file, shared steps and
 * preconditions with two versions, cases with versions, tags, requirements, links and files, a template with a
 * filled case, a deleted case, a milestone, a configuration, a plan, runs with results (a file linked from a
 * comment, a plain link), a run log, a closed run, a second person.
 */
export async function populate(t: TestEnv, project: { id: string; code: string }) {
  const { code } = project;
  const p = `/project/${code}`;
  const ok = (res: { status: number; body: any }, status = 201) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  };
  const field = `env_${Date.now().toString(36)}`;
  ok(await t.post('/custom-field', { type: 'text', systemName: field, name: 'Environment' }));
  const suite = await createFolder(t, code, ['Checkout', 'Payments']);
  const gone = await createFolder(t, code, ['Old']);
  const fileId = await uploadFile(t, 'evidence.txt', 'the evidence');
  const shared = ok(
    await t.post(`${p}/shared-step`, {
      title: 'Sign in',
      subSteps: [{ description: '<p>Open</p>', expected: '<p>Form</p>' }],
    }),
  );
  ok(
    await t.request('PATCH', `${p}/shared-step/${shared.id}`, {
      body: { subSteps: [{ description: '<p>Open the page</p>' }] },
    }),
    200,
  );
  const pre = ok(await t.post(`${p}/shared-precondition`, { title: 'Basket', text: '<p>A basket</p>' }));
  const a = await createTcase(t, code, {
    folderId: suite,
    title: 'Pay by card — «Ünïcödé»',
    priority: 'high',
    precondition: {
      text: `<p>Signed in, see <a href="http://casebook.test/api/public/v0/file/${fileId}">evidence</a></p>`,
    },
    steps: [
      { description: '<p>Enter the card</p>', expected: '<p>Accepted</p>' },
      { sharedStepId: shared.id },
    ],
    tags: ['smoke', 'payments'],
    requirements: [{ text: 'PAY-1', url: 'https://tracker.example.com/PAY-1' }],
    links: [{ text: 'Spec', url: 'https://docs.example.com/spec' }],
    files: [fileId],
    customFields: { [field]: { value: 'staging' } },
  });
  ok(
    await t.request('PATCH', `${p}/tcase/${a.id}`, {
      body: {
        title: 'Pay by card',
        steps: [{ description: '<p>Enter it</p>' }, { sharedStepId: shared.id }],
      },
    }),
    200,
  );
  const b = await createTcase(t, code, { folderId: suite, precondition: { sharedPreconditionId: pre.id } });
  const template = await createTcase(t, code, {
    folderId: suite,
    type: 'template',
    title: 'Log in as ${role}',
    steps: [{ description: '<p>Sign in as ${role}</p>' }],
    parameterValues: [{ values: { role: 'admin' } }],
  });
  const c = await createTcase(t, code, { folderId: gone, title: 'To be deleted' });
  ok(await t.post(`${p}/tcase/bulk/delete`, { tcaseIds: [c.id] }), 200);
  const del = await t.request('DELETE', `${p}/tcase/folder/${gone}`);
  expect(del.status, JSON.stringify(del.body)).toBeLessThan(300);
  const milestone = ok(await t.post(`${p}/milestone`, { title: 'Release 1' }));
  const configuration = ok(await t.post(`${p}/configuration`, { title: 'Chrome on Linux' }));
  const tester = await userWithKey(t, 'user');
  await addMember(t.db, t.tenantId, project.id, tester.user.id);
  const run = await createRun(t, code, {
    tcaseIds: [a.id, b.id],
    milestoneId: milestone.id,
    configurationId: configuration.id,
    description: '<p>Nightly</p>',
    dueAt: '2030-01-31',
  });
  await addResult(t, code, run.id, a.seq, 'failed', {
    comment: `<p>Broke</p><p>Attachments: <a href="http://casebook.test/api/public/v0/file/${fileId}">evidence.txt</a></p>`,
    timeTaken: 1200,
    links: [{ url: 'https://tracker.example.com/BUG-9', text: 'BUG-9' }],
  });
  // A result naming files (extensions.md §8): a screenshot and the file the failed result links from its HTML.
  const shot = await uploadFile(t, 'screen.png', 'not really a png', 'image/png');
  await addResult(t, code, run.id, a.seq, 'passed', { files: [shot, fileId] });
  ok(
    await t.post('/settings/preferences/status', {
      statuses: [{ id: 'custom1', name: 'Retest', color: 'orange', isActive: true }],
    }),
    200,
  );
  await addResult(t, code, run.id, a.seq, 'custom1');
  ok(await t.post(`${p}/run/${run.id}/tcase/${b.seq}/result`, { status: 'blocked' }, { key: tester.key }));
  ok(
    await t.post(`${p}/run/${run.id}/tcase/assign`, {
      tcaseIds: [b.id],
      assigneeId: tester.user.id,
      dueAt: '2030-01-15',
    }),
    200,
  );
  // The blocked case's failure marked as a known problem of the project (failure triage).
  const [group] = ok(await t.get(`${p}/run/${run.id}/failure-group`), 200).groups;
  ok(
    await t.post(`${p}/run/${run.id}/failure-group/${group.signature}/known`, { note: 'flaky staging' }),
    200,
  );
  ok(await t.post(`${p}/run/${run.id}/log`, { comment: '<p>Environment was slow</p>' }));
  await closeRun(t, code, run.id);
  ok(
    await t.post(`${p}/plan`, {
      title: 'Release plan',
      milestoneId: milestone.id,
      runs: [{ title: 'Plan run', queryPlans: [{ tcaseIds: [b.id] }] }],
    }),
  );
  await createRun(t, code, { title: 'Live smoke', type: 'live', queryPlans: [{ folderIds: [suite] }] });
  return { field, fileId, tester, a, b, template, run };
}
