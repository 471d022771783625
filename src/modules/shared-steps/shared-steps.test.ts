import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase, getTcase } from '../../../test/helpers/tcase-factories.js';
import { nowIso } from '../../lib/time.js';
import {
  assertSharedStepsUsable,
  getSharedStepsAtVersions,
  getSharedStepsForDisplay,
} from './shared-steps.service.js';

let n = 0;
async function createStep(t: TestEnv, code: string, body: Record<string, unknown> = {}): Promise<number> {
  const res = await t.post(`/project/${code}/shared-step`, {
    title: `Log in ${n++}`,
    subSteps: [{ description: 'Open the login page', expected: 'The form shows' }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

describeEachDb('shared steps', (t) => {
  describe('POST /project/:p/shared-step', () => {
    it('answers 201 {id} and stores title and sub-steps as version 1, sanitising the HTML (D22)', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/shared-step`, {
        title: '  Sign in  ',
        subSteps: [
          { description: '<p>Open <b>/login</b><script>alert(1)</script></p>', expected: '<i>form</i>' },
          { description: 'Submit' },
          { expected: '<a href="javascript:alert(1)">Welcome</a>' },
        ],
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['id']);
      expect(typeof res.body.id).toBe('number');
      const got = await t.get(`/project/${p.code}/shared-step/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({
        id: res.body.id,
        version: 1,
        isLatest: true,
        type: 'shared',
        title: 'Sign in',
        subSteps: [
          {
            id: expect.any(Number),
            type: 'shared_sub_step',
            version: 1,
            isLatest: true,
            description: '<p>Open <b>/login</b></p>',
            expected: '<i>form</i>',
          },
          {
            id: expect.any(Number),
            type: 'shared_sub_step',
            version: 1,
            isLatest: true,
            description: 'Submit',
            expected: '',
          },
          {
            id: expect.any(Number),
            type: 'shared_sub_step',
            version: 1,
            isLatest: true,
            description: '',
            expected: '<a>Welcome</a>',
          },
        ],
      });
      expect(new Set(got.body.subSteps.map((s: { id: number }) => s.id)).size).toBe(3);
    });

    it('answers 400 for a bad title, no sub-steps, an empty sub-step, unknown fields and wrong types, creating nothing', async () => {
      const p = await createProject(t);
      const cases: [unknown, string][] = [
        [{ title: ' ', subSteps: [{ description: 'x' }] }, '/title'],
        [{ title: 'x'.repeat(256), subSteps: [{ description: 'x' }] }, '/title'],
        [{ title: 'No steps', subSteps: [] }, '/subSteps'],
        [
          { title: 'Too many', subSteps: Array.from({ length: 101 }, () => ({ description: 'x' })) },
          '/subSteps',
        ],
        [
          {
            title: 'Empty',
            subSteps: [{ description: 'x' }, { description: '<script>x</script>', expected: '' }],
          },
          '/subSteps/1',
        ],
        [{ title: 'Unknown', subSteps: [{ description: 'x' }], colour: 'red' }, '/colour'],
        [{ title: 'Unknown sub', subSteps: [{ description: 'x', pos: 1 }] }, '/subSteps/0/pos'],
        [{ title: 5, subSteps: [{ description: 'x' }] }, '/title'],
        [{ title: 'No sub-step key' }, '/subSteps'],
      ];
      for (const [body, path] of cases) {
        const res = await t.post(`/project/${p.code}/shared-step`, body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      }
      expect((await t.get(`/project/${p.code}/shared-step`)).body).toEqual({ sharedSteps: [] });
    });

    it('answers 409 naming the holder when a live shared step has the title; a deleted one frees it', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code, { title: 'Taken' });
      const res = await t.post(`/project/${p.code}/shared-step`, {
        title: 'Taken',
        subSteps: [{ description: 'x' }],
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'CONFLICT',
        message: `a shared step titled "Taken" exists in this project: shared step ${id}`,
      });
      const other = await createProject(t);
      await createStep(t, other.code, { title: 'Taken' });
      expect((await t.del(`/project/${p.code}/shared-step/${id}`)).status).toBe(200);
      await createStep(t, p.code, { title: 'Taken' });
    });

    it('gives one of several concurrent creators of a title the step and the rest a 409', async () => {
      const p = await createProject(t);
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          t.post(`/project/${p.code}/shared-step`, { title: 'Raced', subSteps: [{ description: 'x' }] }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    });

    it('answers 403 to a viewer, to a non-member and for an archived project; 404 for an unknown project', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const outsider = await userWithKey(t, 'user');
      const p = await createProject(t, {}, [viewer.user.id]);
      const body = { title: 'Denied', subSteps: [{ description: 'x' }] };
      const asViewer = await t.post(`/project/${p.code}/shared-step`, body, { key: viewer.key });
      expect(asViewer.status).toBe(403);
      expect(asViewer.body.code).toBe('FORBIDDEN');
      expect((await t.post(`/project/${p.code}/shared-step`, body, { key: outsider.key })).status).toBe(403);
      expect((await t.post('/project/NOPE3/shared-step', body)).status).toBe(404);
      const archived = await createProject(t);
      await t.db
        .updateTable('projects')
        .set({ archived_at: nowIso() })
        .where('id', '=', archived.id)
        .execute();
      const res = await t.post(`/project/${archived.code}/shared-step`, body);
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('archived');
    });

    it('lets a test-runner member create one', async () => {
      const runner = await userWithKey(t, 'test-runner');
      const p = await createProject(t, {}, [runner.user.id]);
      const res = await t.post(
        `/project/${p.code}/shared-step`,
        { title: 'By runner', subSteps: [{ description: 'x' }] },
        { key: runner.key },
      );
      expect(res.status).toBe(201);
    });
  });

  describe('GET /project/:p/shared-step', () => {
    it('lists live shared steps at their latest version, by id, in {sharedSteps}', async () => {
      const p = await createProject(t);
      const a = await createStep(t, p.code, { title: 'B step' });
      const b = await createStep(t, p.code, { title: 'A step' });
      const gone = await createStep(t, p.code, { title: 'Gone' });
      await t.del(`/project/${p.code}/shared-step/${gone}`);
      await t.patch(`/project/${p.code}/shared-step/${a}`, { title: 'B step v2' });
      const res = await t.get(`/project/${p.code}/shared-step`);
      expect(res.status).toBe(200);
      expect(
        res.body.sharedSteps.map((s: { id: number; version: number; title: string }) => [
          s.id,
          s.version,
          s.title,
        ]),
      ).toEqual([
        [a, 2, 'B step v2'],
        [b, 1, 'A step'],
      ]);
      expect(res.body.sharedSteps[1]).toEqual((await t.get(`/project/${p.code}/shared-step/${b}`)).body);
      expect(res.body.sharedSteps[0]).not.toHaveProperty('tcaseCount');
    });

    it('sorts by title and id, and adds tcaseCount with include=tcaseCount', async () => {
      const p = await createProject(t);
      const a = await createStep(t, p.code, { title: 'beta' });
      const b = await createStep(t, p.code, { title: 'alpha' });
      const ids = async (query: Record<string, string>) =>
        (await t.get(`/project/${p.code}/shared-step`, { query })).body.sharedSteps.map(
          (s: { id: number }) => s.id,
        );
      expect(await ids({ sortField: 'title' })).toEqual([b, a]);
      expect(await ids({ sortField: 'title', sortOrder: 'desc' })).toEqual([a, b]);
      expect(await ids({ sortField: 'id', sortOrder: 'desc' })).toEqual([b, a]);
      const counted = await t.get(`/project/${p.code}/shared-step`, { query: { include: 'tcaseCount' } });
      expect(counted.body.sharedSteps.map((s: { tcaseCount: number }) => s.tcaseCount)).toEqual([0, 0]);
    });

    it('answers 400 for sortOrder without sortField and for an unknown sortField', async () => {
      const p = await createProject(t);
      expect(
        (await t.get(`/project/${p.code}/shared-step`, { query: { sortOrder: 'asc' } })).body.message,
      ).toBe('sortOrder needs sortField');
      expect((await t.get(`/project/${p.code}/shared-step`, { query: { sortField: 'pos' } })).status).toBe(
        400,
      );
    });
  });

  describe('GET /project/:p/shared-step/:id', () => {
    it("answers 404 for an unknown id and for another project's shared step, and 400 for a non-numeric id", async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const foreign = await createStep(t, other.code);
      const missing = await t.get(`/project/${p.code}/shared-step/999999`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'shared step 999999 not found' });
      expect((await t.get(`/project/${p.code}/shared-step/${foreign}`)).status).toBe(404);
      expect((await t.get(`/project/${p.code}/shared-step/abc`)).status).toBe(400);
    });

    it('answers 403 to a non-member', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code);
      const outsider = await userWithKey(t, 'viewer');
      expect((await t.get(`/project/${p.code}/shared-step/${id}`, { key: outsider.key })).status).toBe(403);
    });
  });

  describe('PATCH /project/:p/shared-step/:id', () => {
    it('makes version 2 on a change and keeps version 1 readable with isLatest false', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code, {
        title: 'Versioned',
        subSteps: [{ description: 'one', expected: 'uno' }],
      });
      const v1 = (await t.get(`/project/${p.code}/shared-step/${id}`)).body;
      const res = await t.patch(`/project/${p.code}/shared-step/${id}`, {
        subSteps: [{ description: 'one' }, { description: 'two', expected: '<b>dos</b>' }],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, version: 2, isLatest: true, type: 'shared', title: 'Versioned' });
      expect(res.body.subSteps).toEqual([
        {
          id: expect.any(Number),
          type: 'shared_sub_step',
          version: 2,
          isLatest: true,
          description: 'one',
          expected: '',
        },
        {
          id: expect.any(Number),
          type: 'shared_sub_step',
          version: 2,
          isLatest: true,
          description: 'two',
          expected: '<b>dos</b>',
        },
      ]);
      expect((await t.get(`/project/${p.code}/shared-step/${id}`)).body).toEqual(res.body);
      const old = await t.get(`/project/${p.code}/shared-step/${id}/version/1`);
      expect(old.status).toBe(200);
      expect(old.body).toEqual({
        ...v1,
        isLatest: false,
        subSteps: v1.subSteps.map((s: object) => ({ ...s, isLatest: false })),
      });
      const latest = await t.get(`/project/${p.code}/shared-step/${id}/version/2`);
      expect(latest.body).toEqual(res.body);
      const missing = await t.get(`/project/${p.code}/shared-step/${id}/version/3`);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe(`shared step ${id} has no version 3`);
    });

    it('makes no version when nothing changes (same title, same sub-steps, or an empty body)', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code, { title: 'Stable', subSteps: [{ description: '<b>x</b>' }] });
      for (const body of [
        {},
        { title: ' Stable ' },
        { subSteps: [{ description: '<b>x</b>', expected: '' }] },
      ]) {
        const res = await t.patch(`/project/${p.code}/shared-step/${id}`, body);
        expect(res.status).toBe(200);
        expect(res.body.version).toBe(1);
      }
      expect((await t.get(`/project/${p.code}/shared-step/${id}/version/2`)).status).toBe(404);
    });

    it('changes only the title when only the title is sent, keeping the sub-step texts', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code, { title: 'Old title', subSteps: [{ description: 'keep me' }] });
      const res = await t.patch(`/project/${p.code}/shared-step/${id}`, { title: 'New title' });
      expect(res.body).toMatchObject({ version: 2, title: 'New title' });
      expect(res.body.subSteps.map((s: { description: string }) => s.description)).toEqual(['keep me']);
      expect((await t.get(`/project/${p.code}/shared-step/${id}/version/1`)).body.title).toBe('Old title');
    });

    it('answers 400 for bad content, 409 for a taken title, 404 for unknown and deleted steps, changing nothing', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code, { title: 'Mine' });
      await createStep(t, p.code, { title: 'Theirs' });
      expect((await t.patch(`/project/${p.code}/shared-step/${id}`, { title: '' })).status).toBe(400);
      expect((await t.patch(`/project/${p.code}/shared-step/${id}`, { subSteps: [] })).status).toBe(400);
      expect((await t.patch(`/project/${p.code}/shared-step/${id}`, { type: 'standalone' })).status).toBe(
        400,
      );
      const taken = await t.patch(`/project/${p.code}/shared-step/${id}`, { title: 'Theirs' });
      expect(taken.status).toBe(409);
      expect(taken.body.message).toContain('"Theirs"');
      expect((await t.get(`/project/${p.code}/shared-step/${id}`)).body).toMatchObject({
        version: 1,
        title: 'Mine',
      });
      expect((await t.patch(`/project/${p.code}/shared-step/999999`, { title: 'x' })).status).toBe(404);
      await t.del(`/project/${p.code}/shared-step/${id}`);
      const deleted = await t.patch(`/project/${p.code}/shared-step/${id}`, { title: 'Revived' });
      expect(deleted.status).toBe(404);
      expect(deleted.body.message).toBe(`shared step ${id} was deleted`);
    });

    it('answers 403 to a viewer', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const id = await createStep(t, p.code);
      expect(
        (await t.patch(`/project/${p.code}/shared-step/${id}`, { title: 'x' }, { key: viewer.key })).status,
      ).toBe(403);
    });
  });

  describe('DELETE /project/:p/shared-step/:id', () => {
    it('soft-deletes: gone from the list, still readable with deletedAt on it and its sub-steps', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code);
      const res = await t.del(`/project/${p.code}/shared-step/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Shared step deleted' });
      expect((await t.get(`/project/${p.code}/shared-step`)).body.sharedSteps).toEqual([]);
      const got = await t.get(`/project/${p.code}/shared-step/${id}`);
      expect(got.status).toBe(200);
      expect(got.body.deletedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(got.body.subSteps[0].deletedAt).toBe(got.body.deletedAt);
      const again = await t.del(`/project/${p.code}/shared-step/${id}`);
      expect(again.status).toBe(404);
    });

    it('answers 403 to a viewer and 404 for an unknown id', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const id = await createStep(t, p.code);
      expect((await t.del(`/project/${p.code}/shared-step/${id}`, { key: viewer.key })).status).toBe(403);
      expect((await t.del(`/project/${p.code}/shared-step/999999`)).status).toBe(404);
      expect((await t.get(`/project/${p.code}/shared-step/${id}`)).body).not.toHaveProperty('deletedAt');
    });
  });

  describe('services for test cases', () => {
    it('assertSharedStepsUsable returns latest versions and refuses unknown, deleted and foreign steps with a 400', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const a = await createStep(t, p.code);
      const b = await createStep(t, p.code);
      await t.patch(`/project/${p.code}/shared-step/${b}`, { title: 'b v2' });
      const foreign = await createStep(t, other.code);
      const deleted = await createStep(t, p.code);
      await t.del(`/project/${p.code}/shared-step/${deleted}`);
      const versions = await assertSharedStepsUsable(t.db, t.tenantId, p.id, [a, b, a]);
      expect([...versions.entries()].sort()).toEqual([
        [a, 1],
        [b, 2],
      ]);
      await expect(assertSharedStepsUsable(t.db, t.tenantId, p.id, [a, 999999])).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'shared step 999999 does not exist in this project',
      });
      await expect(assertSharedStepsUsable(t.db, t.tenantId, p.id, [foreign])).rejects.toMatchObject({
        message: `shared step ${foreign} does not exist in this project`,
      });
      await expect(assertSharedStepsUsable(t.db, t.tenantId, p.id, [deleted])).rejects.toMatchObject({
        message: `shared step ${deleted} was deleted`,
      });
      expect((await assertSharedStepsUsable(t.db, t.tenantId, p.id, [])).size).toBe(0);
    });

    it('getSharedStepsForDisplay shows latest versions (deleted too); getSharedStepsAtVersions shows old ones', async () => {
      const p = await createProject(t);
      const a = await createStep(t, p.code, { title: 'Display', subSteps: [{ description: 'first' }] });
      await t.patch(`/project/${p.code}/shared-step/${a}`, { subSteps: [{ description: 'second' }] });
      const gone = await createStep(t, p.code);
      await t.del(`/project/${p.code}/shared-step/${gone}`);
      const shown = await getSharedStepsForDisplay(t.db, t.tenantId, [a, gone, 999999]);
      expect(shown.size).toBe(2);
      expect(shown.get(a)).toEqual((await t.get(`/project/${p.code}/shared-step/${a}`)).body);
      expect(shown.get(gone)?.deletedAt).toEqual(expect.any(String));
      const [v1, v2, none] = await getSharedStepsAtVersions(t.db, t.tenantId, [
        { id: a, version: 1 },
        { id: a, version: 2 },
        { id: a, version: 7 },
      ]);
      expect(v1).toEqual((await t.get(`/project/${p.code}/shared-step/${a}/version/1`)).body);
      expect(v1?.subSteps[0].description).toBe('first');
      expect(v2?.isLatest).toBe(true);
      expect(none).toBeUndefined();
      expect((await getSharedStepsForDisplay(t.db, 'another-tenant', [a])).size).toBe(0);
    });
  });

  describe('with test cases', () => {
    it('counts users, refuses deleting one in use (409) and allows it once no live case uses it', async () => {
      const p = await createProject(t);
      const id = await createStep(t, p.code, { title: 'Used step' });
      const unused = await createStep(t, p.code, { title: 'Unused step' });
      const a = await createTcase(t, p, { steps: [{ description: 'Before' }, { sharedStepId: id }] });
      const b = await createTcase(t, p, { steps: [{ sharedStepId: id }] });
      const counts = async () =>
        (
          await t.get(`/project/${p.code}/shared-step`, { query: { include: 'tcaseCount' } })
        ).body.sharedSteps.map((s: { id: number; tcaseCount: number }) => [s.id, s.tcaseCount]);
      expect(await counts()).toEqual([
        [id, 2],
        [unused, 0],
      ]);
      const shown = (await getTcase(t, p, a.id)).steps[1];
      expect(shown).toEqual((await t.get(`/project/${p.code}/shared-step/${id}`)).body);
      const refused = await t.del(`/project/${p.code}/shared-step/${id}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        code: 'CONFLICT',
        message: `shared step ${id} is used by 2 test cases`,
      });
      expect((await t.get(`/project/${p.code}/shared-step/${id}`)).body).not.toHaveProperty('deletedAt');
      expect(
        (await t.patch(`/project/${p.code}/tcase/${b.id}`, { steps: [{ description: 'Own' }] })).status,
      ).toBe(200);
      expect((await t.del(`/project/${p.code}/tcase/${a.id}`)).status).toBe(200);
      expect(await counts()).toEqual([
        [id, 0],
        [unused, 0],
      ]);
      expect((await t.del(`/project/${p.code}/shared-step/${id}`)).status).toBe(200);
    });

    it('never both deletes a shared step and lets a test case created at that moment use it', async () => {
      const p = await createProject(t);
      const folder = await t.post(`/project/${p.code}/tcase/folder/bulk`, { folders: [{ path: ['Race'] }] });
      for (let round = 0; round < 6; round++) {
        const id = await createStep(t, p.code, { title: `Raced ${round}` });
        const [created, deleted] = await Promise.all([
          t.post(`/project/${p.code}/tcase`, {
            title: `Uses raced ${round}`,
            type: 'standalone',
            priority: 'low',
            folderId: folder.body.ids[0][0],
            steps: [{ sharedStepId: id }],
          }),
          t.del(`/project/${p.code}/shared-step/${id}`),
        ]);
        // Either the case came first (the delete is refused) or the delete did (the case is refused).
        expect(
          [
            [201, 409],
            [400, 200],
          ],
          JSON.stringify([created.body, deleted.body]),
        ).toContainEqual([created.status, deleted.status]);
      }
    });

    it('refuses a test case naming a deleted or foreign shared step with a 400', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const gone = await createStep(t, p.code);
      await t.del(`/project/${p.code}/shared-step/${gone}`);
      const foreign = await createStep(t, other.code);
      for (const [sharedStepId, message] of [
        [gone, `shared step ${gone} was deleted`],
        [foreign, `shared step ${foreign} does not exist in this project`],
      ] as const) {
        const folder = await t.post(`/project/${p.code}/tcase/folder/bulk`, { folders: [{ path: ['F'] }] });
        const res = await t.post(`/project/${p.code}/tcase`, {
          title: 'Uses a bad shared step',
          type: 'standalone',
          priority: 'low',
          folderId: folder.body.ids[0][0],
          steps: [{ sharedStepId }],
        });
        expect(res.status).toBe(400);
        expect(res.body.message).toBe(message);
      }
    });
  });
});
