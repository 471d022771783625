import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';

let runCounter = 0;

/** A project with one test case and an open static_struct run; `members` get access to the project. */
async function scenario(t: TestEnv, members: number[] = []) {
  const project = await createProject(t, {}, members);
  const created = await t.post(`/project/${project.code}/tcase/bulk`, {
    folderPath: ['Suite'],
    tcases: [{ title: 'A case', tags: [] }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const run = await t.post(`/project/${project.code}/run`, {
    title: `Log run ${++runCounter}`,
    type: 'static_struct',
    queryPlans: [{ tcaseIds: [created.body.tcases[0].id] }],
  });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  return { project, code: project.code, runId: run.body.id as number };
}

async function countLogs(t: TestEnv, runId: number): Promise<number> {
  const row = await t.db
    .selectFrom('run_logs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describeEachDb('run logs', (t) => {
  describe('POST /project/:p/run/:r/log', () => {
    it('answers 201 with a string id and stores the comment sanitised and trimmed (D21, D22)', async () => {
      const { user, key } = await userWithKey(t, 'test-runner');
      const { code, runId } = await scenario(t, [user.id]);
      const res = await t.post(
        `/project/${code}/run/${runId}/log`,
        { comment: '  <p>Suite <b>setup</b> failed<script>alert(1)</script></p>\n ' },
        { key },
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(String) });
      expect(res.body.id).not.toMatch(/^\d+$/);

      const list = await t.get(`/project/${code}/run/${runId}/log`);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        logs: [
          {
            id: res.body.id,
            runId,
            comment: '<p>Suite <b>setup</b> failed</p>',
            authorId: user.id,
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
        ],
      });
    });

    it.each([[''], ['   \n\t'], ['<script>alert(1)</script>'], ['  <style>p{}</style> ']])(
      'answers 400 for the comment %j, which is empty once sanitised and trimmed',
      async (comment) => {
        const { code, runId } = await scenario(t);
        const res = await t.post(`/project/${code}/run/${runId}/log`, { comment });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          code: 'VALIDATION_FAILED',
          details: [{ path: '/comment' }],
          message: expect.stringMatching(/comment must not be empty/),
        });
        expect(await countLogs(t, runId)).toBe(0);
      },
    );

    it('answers 400 for a missing comment, a comment of the wrong type and an unknown field', async () => {
      const { code, runId } = await scenario(t);
      for (const [body, path] of [
        [{}, '/comment'],
        [{ comment: 5 }, '/comment'],
        [{ comment: 'ok', level: 'error' }, '/level'],
      ] as const) {
        const res = await t.post(`/project/${code}/run/${runId}/log`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.details[0].path).toBe(path);
      }
      expect(await countLogs(t, runId)).toBe(0);
    });

    it('answers 404 for an unknown project, an unknown run and a run of another project', async () => {
      const { code, runId } = await scenario(t);
      const other = await scenario(t);
      for (const url of [
        `/project/NOPE3/run/${runId}/log`,
        `/project/${code}/run/999999/log`,
        `/project/${code}/run/${other.runId}/log`,
      ]) {
        const res = await t.post(url, { comment: 'hello' });
        expect(res.status, url).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
      expect(await countLogs(t, other.runId)).toBe(0);
    });

    it('answers 409 on a closed run, and the logs can still be read', async () => {
      const { code, runId } = await scenario(t);
      expect((await t.post(`/project/${code}/run/${runId}/log`, { comment: 'before' })).status).toBe(201);
      expect((await t.post(`/project/${code}/run/${runId}/close`)).status).toBe(200);
      const res = await t.post(`/project/${code}/run/${runId}/log`, { comment: 'after' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/closed/) });
      const list = await t.get(`/project/${code}/run/${runId}/log`);
      expect(list.body.logs.map((l: { comment: string }) => l.comment)).toEqual(['before']);
    });

    it('answers 403 on an archived project', async () => {
      const { project, code, runId } = await scenario(t);
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', project.id)
        .execute();
      const res = await t.post(`/project/${code}/run/${runId}/log`, { comment: 'hello' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/archived/) });
      expect(await countLogs(t, runId)).toBe(0);
    });

    it('answers 401 without a valid key and 403 to a viewer, a non-member and a restricted key', async () => {
      const { code, runId } = await scenario(t);
      const url = `/project/${code}/run/${runId}/log`;
      for (const key of [null, 'garbage']) {
        const res = await t.post(url, { comment: 'x' }, { key });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('UNAUTHORIZED');
      }
      const viewer = await userWithKey(t, 'viewer');
      const outsider = await userWithKey(t, 'test-runner');
      const siem = await userWithKey(t, 'admin', { keyName: 'SIEM-LOG-ONLY x' });
      for (const key of [viewer.key, outsider.key, siem.key]) {
        const res = await t.post(url, { comment: 'x' }, { key });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      }
      expect(await countLogs(t, runId)).toBe(0);
    });
  });

  describe('GET /project/:p/run/:r/log', () => {
    it('lists the logs of the run oldest first, and an empty list for a run without logs', async () => {
      const { code, runId } = await scenario(t);
      const other = await scenario(t);
      expect((await t.get(`/project/${code}/run/${runId}/log`)).body).toEqual({ logs: [] });
      for (const comment of ['one', 'two', 'three']) {
        expect((await t.post(`/project/${code}/run/${runId}/log`, { comment })).status).toBe(201);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await t.post(`/project/${other.code}/run/${other.runId}/log`, { comment: 'elsewhere' });
      const res = await t.get(`/project/${code}/run/${runId}/log`);
      expect(res.status).toBe(200);
      expect(res.body.logs.map((l: { comment: string }) => l.comment)).toEqual(['one', 'two', 'three']);
      expect(res.body.logs.every((l: { runId: number }) => l.runId === runId)).toBe(true);
    });

    it('lets a viewer member read, and answers 404 for an unknown run and 403 to a non-member', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const outsider = await userWithKey(t, 'viewer');
      const { code, runId } = await scenario(t, [viewer.user.id]);
      expect((await t.get(`/project/${code}/run/${runId}/log`, { key: viewer.key })).status).toBe(200);
      const missing = await t.get(`/project/${code}/run/999999/log`);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      const denied = await t.get(`/project/${code}/run/${runId}/log`, { key: outsider.key });
      expect(denied.status).toBe(403);
    });
  });
});
