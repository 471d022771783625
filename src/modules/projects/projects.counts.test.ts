import { expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { file, multipart, upload } from '../../../test/helpers/multipart.js';

async function uploadFiles(t: TestEnv, contents: string[]): Promise<string[]> {
  const res = await upload(t, '/file/batch', multipart(contents.map((c) => file(c))));
  expect(res.status).toBe(201);
  return res.body.files.map((f: { id: string }) => f.id);
}

async function folderOf(t: TestEnv, code: string): Promise<number> {
  const res = await t.post(`/project/${code}/tcase/folder/bulk`, { folders: [{ path: ['Suite'] }] });
  return res.body.ids[0][0];
}

async function newCase(t: TestEnv, code: string, folderId: number, title: string, files: string[] = []) {
  const res = await t.post(`/project/${code}/tcase`, {
    title,
    type: 'standalone',
    folderId,
    priority: 'medium',
    files,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function runWithResults(t: TestEnv, code: string, tcaseId: string, title: string, results: number) {
  const run = await t.post(`/project/${code}/run`, {
    title,
    type: 'static_struct',
    queryPlans: [{ tcaseIds: [tcaseId] }],
  });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  for (let i = 0; i < results; i++)
    expect(
      (await t.post(`/project/${code}/run/${run.body.id}/tcase/${tcaseId}/result`, { status: 'passed' }))
        .status,
    ).toBe(201);
  return run.body.id as number;
}

describeEachDb('GET /project/:p/counts', (t) => {
  it('counts live cases, every run and the open ones, their results, and each attached file once with its bytes', async () => {
    const p = await createProject(t);
    const other = await createProject(t);
    const [f1, f2, , f4] = await uploadFiles(t, ['12345', 'abc', 'unused file', 'other project']);
    const folder = await folderOf(t, p.code);
    const a = await newCase(t, p.code, folder, 'A', [f1, f2]);
    // A later version drops f2: the project still holds it in version 1, so it counts (once).
    expect((await t.patch(`/project/${p.code}/tcase/${a}`, { files: [f1], title: 'A2' })).status).toBe(200);
    const b = await newCase(t, p.code, folder, 'B', [f1]);
    const gone = await newCase(t, p.code, folder, 'Deleted');
    expect((await t.del(`/project/${p.code}/tcase/${gone}`)).status).toBe(200);
    const closed = await runWithResults(t, p.code, a, 'Closed run', 2);
    expect((await t.post(`/project/${p.code}/run/${closed}/close`)).status).toBe(200);
    await runWithResults(t, p.code, b, 'Open run', 1);
    await runWithResults(t, p.code, b, 'Empty run', 0);
    // Another project's case, run and file are not counted; an uploaded file no case holds is not either.
    const otherCase = await newCase(t, other.code, await folderOf(t, other.code), 'X', [f4]);
    await runWithResults(t, other.code, otherCase, 'Elsewhere', 4);

    const res = await t.get(`/project/${p.code.toLowerCase()}/counts`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ cases: 2, runs: 3, openRuns: 2, results: 3, files: 2, fileBytes: 8 });
  });

  it('answers zeros for an empty project, and counts an archived one', async () => {
    const p = await createProject(t);
    expect((await t.get(`/project/${p.code}/counts`)).body).toEqual({
      cases: 0,
      runs: 0,
      openRuns: 0,
      results: 0,
      files: 0,
      fileBytes: 0,
    });
    await newCase(t, p.code, await folderOf(t, p.code), 'Kept');
    expect((await t.post(`/project/${p.code}/archive`)).status).toBe(200);
    const res = await t.get(`/project/${p.id}/counts`);
    expect(res.status).toBe(200);
    expect(res.body.cases).toBe(1);
  });

  it('is for admins: 403 for a member who is a user, 404 for an unknown project', async () => {
    const member = await userWithKey(t, 'user');
    const admin = await userWithKey(t, 'admin');
    const p = await createProject(t, {}, [member.user.id]);
    const denied = await t.get(`/project/${p.code}/counts`, { key: member.key });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    expect((await t.get(`/project/${p.code}/counts`, { key: admin.key })).status).toBe(200);
    const unknown = await t.get('/project/NOPE9/counts');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });
});
