import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase, getTcase } from '../../../test/helpers/tcase-factories.js';
import { nowIso } from '../../lib/time.js';
import {
  assertSharedPreconditionsUsable,
  getSharedPreconditions,
  getSharedPreconditionsAtVersions,
} from './shared-preconditions.service.js';

let n = 0;
async function createPrecondition(
  t: TestEnv,
  code: string,
  body: Record<string, unknown> = {},
): Promise<number> {
  const res = await t.post(`/project/${code}/shared-precondition`, {
    title: `Logged in ${n++}`,
    text: '<p>The user is logged in</p>',
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachDb('shared preconditions', (t) => {
  describe('POST /project/:p/shared-precondition', () => {
    it('answers 201 {id}; GET shows every Precondition field, with sanitised text (D22)', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/shared-precondition`, {
        title: ' Clean database ',
        text: '<p onclick="x()">Empty <b>all</b> tables<script>drop()</script></p>',
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['id']);
      expect(typeof res.body.id).toBe('number');
      const got = await t.get(`/project/${p.code}/shared-precondition/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({
        projectId: p.id,
        id: res.body.id,
        version: 1,
        isLatest: true,
        type: 'shared',
        title: 'Clean database',
        text: '<p>Empty <b>all</b> tables</p>',
        createdAt: expect.stringMatching(ISO),
        updatedAt: got.body.createdAt,
      });
    });

    it('answers 400 for a bad title, empty text, unknown fields and wrong types, creating nothing', async () => {
      const p = await createProject(t);
      const cases: [unknown, string][] = [
        [{ title: '', text: 'x' }, '/title'],
        [{ title: 'x'.repeat(256), text: 'x' }, '/title'],
        [{ title: 'Empty', text: '  ' }, '/text'],
        [{ title: 'Only script', text: '<script>x</script>' }, '/text'],
        [{ title: 'No text' }, '/text'],
        [{ title: 'Unknown', text: 'x', shared: true }, '/shared'],
        [{ title: 'Wrong', text: 5 }, '/text'],
      ];
      for (const [body, path] of cases) {
        const res = await t.post(`/project/${p.code}/shared-precondition`, body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      }
      expect((await t.get(`/project/${p.code}/shared-precondition`)).body).toEqual([]);
    });

    it('answers 409 naming the holder when a live one has the title; deleting it frees the title', async () => {
      const p = await createProject(t);
      const id = await createPrecondition(t, p.code, { title: 'Taken' });
      const res = await t.post(`/project/${p.code}/shared-precondition`, { title: 'Taken', text: 'x' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'CONFLICT',
        message: `a shared precondition titled "Taken" exists in this project: shared precondition ${id}`,
      });
      await t.del(`/project/${p.code}/shared-precondition/${id}`);
      await createPrecondition(t, p.code, { title: 'Taken' });
    });

    it('answers 403 to a viewer, a non-member and for an archived project; 404 for an unknown project', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const outsider = await userWithKey(t, 'user');
      const p = await createProject(t, {}, [viewer.user.id]);
      const body = { title: 'Denied', text: 'x' };
      expect((await t.post(`/project/${p.code}/shared-precondition`, body, { key: viewer.key })).status).toBe(
        403,
      );
      expect(
        (await t.post(`/project/${p.code}/shared-precondition`, body, { key: outsider.key })).status,
      ).toBe(403);
      expect((await t.post('/project/NOPE4/shared-precondition', body)).status).toBe(404);
      await t.db.updateTable('projects').set({ archived_at: nowIso() }).where('id', '=', p.id).execute();
      const res = await t.post(`/project/${p.code}/shared-precondition`, body);
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('archived');
    });
  });

  describe('GET /project/:p/shared-precondition', () => {
    it('answers a bare array of live preconditions at their latest version, by id', async () => {
      const p = await createProject(t);
      const a = await createPrecondition(t, p.code, { title: 'zz' });
      const b = await createPrecondition(t, p.code, { title: 'aa' });
      const gone = await createPrecondition(t, p.code);
      await t.del(`/project/${p.code}/shared-precondition/${gone}`);
      await t.patch(`/project/${p.code}/shared-precondition/${a}`, { text: 'changed' });
      const res = await t.get(`/project/${p.code}/shared-precondition`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.map((x: { id: number; version: number }) => [x.id, x.version])).toEqual([
        [a, 2],
        [b, 1],
      ]);
      expect(res.body[0]).toEqual((await t.get(`/project/${p.code}/shared-precondition/${a}`)).body);
    });

    it('sorts by title and id, and adds tcaseCount with include=tcaseCount', async () => {
      const p = await createProject(t);
      const a = await createPrecondition(t, p.code, { title: 'beta' });
      const b = await createPrecondition(t, p.code, { title: 'alpha' });
      const ids = async (query: Record<string, string>) =>
        (await t.get(`/project/${p.code}/shared-precondition`, { query })).body.map(
          (x: { id: number }) => x.id,
        );
      expect(await ids({ sortField: 'title' })).toEqual([b, a]);
      expect(await ids({ sortField: 'title', sortOrder: 'desc' })).toEqual([a, b]);
      expect(await ids({ sortField: 'id', sortOrder: 'desc' })).toEqual([b, a]);
      const counted = await t.get(`/project/${p.code}/shared-precondition`, {
        query: { include: 'tcaseCount' },
      });
      expect(counted.body.map((x: { tcaseCount: number }) => x.tcaseCount)).toEqual([0, 0]);
      const bad = await t.get(`/project/${p.code}/shared-precondition`, { query: { sortOrder: 'asc' } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('sortOrder needs sortField');
    });
  });

  describe('GET /project/:p/shared-precondition/:id', () => {
    it("answers 404 for unknown ids and another project's precondition, 403 to a non-member", async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const foreign = await createPrecondition(t, other.code);
      const missing = await t.get(`/project/${p.code}/shared-precondition/999999`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'shared precondition 999999 not found' });
      expect((await t.get(`/project/${p.code}/shared-precondition/${foreign}`)).status).toBe(404);
      const outsider = await userWithKey(t, 'viewer');
      expect(
        (await t.get(`/project/${other.code}/shared-precondition/${foreign}`, { key: outsider.key })).status,
      ).toBe(403);
    });
  });

  describe('PATCH /project/:p/shared-precondition/:id', () => {
    it('makes a new version on a change, keeps old versions readable, and answers the latest', async () => {
      const p = await createProject(t);
      const id = await createPrecondition(t, p.code, { title: 'Versioned', text: 'one' });
      const v1 = (await t.get(`/project/${p.code}/shared-precondition/${id}`)).body;
      await new Promise((resolve) => setTimeout(resolve, 3));
      const res = await t.patch(`/project/${p.code}/shared-precondition/${id}`, {
        title: 'Versioned 2',
        text: 'two',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...v1,
        version: 2,
        title: 'Versioned 2',
        text: 'two',
        updatedAt: expect.stringMatching(ISO),
      });
      expect(res.body.updatedAt > v1.updatedAt).toBe(true);
      expect((await t.get(`/project/${p.code}/shared-precondition/${id}/version/1`)).body).toEqual({
        ...v1,
        isLatest: false,
      });
      const third = await t.patch(`/project/${p.code}/shared-precondition/${id}`, { text: '<i>three</i>' });
      expect(third.body).toMatchObject({ version: 3, title: 'Versioned 2', text: '<i>three</i>' });
      expect((await t.get(`/project/${p.code}/shared-precondition/${id}/version/2`)).body).toMatchObject({
        version: 2,
        isLatest: false,
        text: 'two',
      });
      expect((await t.get(`/project/${p.code}/shared-precondition/${id}/version/4`)).status).toBe(404);
    });

    it('makes no version when nothing changes', async () => {
      const p = await createProject(t);
      const id = await createPrecondition(t, p.code, { title: 'Same', text: '<b>x</b>' });
      for (const body of [{}, { title: 'Same' }, { text: '<b>x</b>' }]) {
        expect((await t.patch(`/project/${p.code}/shared-precondition/${id}`, body)).body.version).toBe(1);
      }
    });

    it('answers 400 for bad content, 409 for a taken title, 404 for unknown or deleted ones, 403 to a viewer', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const id = await createPrecondition(t, p.code, { title: 'Mine' });
      await createPrecondition(t, p.code, { title: 'Theirs' });
      expect((await t.patch(`/project/${p.code}/shared-precondition/${id}`, { text: '' })).status).toBe(400);
      expect((await t.patch(`/project/${p.code}/shared-precondition/${id}`, { title: ' ' })).status).toBe(
        400,
      );
      expect(
        (await t.patch(`/project/${p.code}/shared-precondition/${id}`, { title: 'Theirs' })).status,
      ).toBe(409);
      expect(
        (await t.patch(`/project/${p.code}/shared-precondition/${id}`, { title: 'x' }, { key: viewer.key }))
          .status,
      ).toBe(403);
      expect((await t.get(`/project/${p.code}/shared-precondition/${id}`)).body).toMatchObject({
        version: 1,
        title: 'Mine',
      });
      expect((await t.patch(`/project/${p.code}/shared-precondition/999999`, { title: 'x' })).status).toBe(
        404,
      );
      await t.del(`/project/${p.code}/shared-precondition/${id}`);
      expect((await t.patch(`/project/${p.code}/shared-precondition/${id}`, { title: 'x' })).status).toBe(
        404,
      );
    });
  });

  describe('DELETE /project/:p/shared-precondition/:id', () => {
    it('soft-deletes: gone from the list, still readable with deletedAt; a second delete is a 404', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const id = await createPrecondition(t, p.code);
      expect((await t.del(`/project/${p.code}/shared-precondition/${id}`, { key: viewer.key })).status).toBe(
        403,
      );
      const res = await t.del(`/project/${p.code}/shared-precondition/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Shared precondition deleted' });
      expect((await t.get(`/project/${p.code}/shared-precondition`)).body).toEqual([]);
      const got = await t.get(`/project/${p.code}/shared-precondition/${id}`);
      expect(got.body.deletedAt).toMatch(ISO);
      expect((await t.del(`/project/${p.code}/shared-precondition/${id}`)).status).toBe(404);
    });
  });

  describe('services for test cases', () => {
    it('assertSharedPreconditionsUsable returns latest versions and refuses unknown, deleted and foreign ones', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const a = await createPrecondition(t, p.code);
      await t.patch(`/project/${p.code}/shared-precondition/${a}`, { text: 'v2' });
      const foreign = await createPrecondition(t, other.code);
      const deleted = await createPrecondition(t, p.code);
      await t.del(`/project/${p.code}/shared-precondition/${deleted}`);
      expect([...(await assertSharedPreconditionsUsable(t.db, t.tenantId, p.id, [a]))]).toEqual([[a, 2]]);
      for (const [id, message] of [
        [999999, 'shared precondition 999999 does not exist in this project'],
        [foreign, `shared precondition ${foreign} does not exist in this project`],
        [deleted, `shared precondition ${deleted} was deleted`],
      ] as const) {
        await expect(assertSharedPreconditionsUsable(t.db, t.tenantId, p.id, [id])).rejects.toMatchObject({
          code: 'VALIDATION_FAILED',
          message,
        });
      }
    });

    it('getSharedPreconditions shows latest versions; getSharedPreconditionsAtVersions shows old ones', async () => {
      const p = await createProject(t);
      const a = await createPrecondition(t, p.code, { text: 'first' });
      await t.patch(`/project/${p.code}/shared-precondition/${a}`, { text: 'second' });
      const latest = await getSharedPreconditions(t.db, t.tenantId, [a, 999999]);
      expect([...latest.keys()]).toEqual([a]);
      expect(latest.get(a)).toEqual((await t.get(`/project/${p.code}/shared-precondition/${a}`)).body);
      const [v1, missing] = await getSharedPreconditionsAtVersions(t.db, t.tenantId, [
        { id: a, version: 1 },
        { id: a, version: 9 },
      ]);
      expect(v1).toMatchObject({ id: a, version: 1, isLatest: false, text: 'first' });
      expect(missing).toBeUndefined();
    });
  });

  describe('with test cases', () => {
    it('never both deletes a shared precondition and lets a test case created at that moment use it', async () => {
      const p = await createProject(t);
      const folder = await t.post(`/project/${p.code}/tcase/folder/bulk`, { folders: [{ path: ['Race'] }] });
      for (let round = 0; round < 6; round++) {
        const id = await createPrecondition(t, p.code);
        const [created, deleted] = await Promise.all([
          t.post(`/project/${p.code}/tcase`, {
            title: `Uses raced ${round}`,
            type: 'standalone',
            priority: 'low',
            folderId: folder.body.ids[0][0],
            precondition: { sharedPreconditionId: id },
          }),
          t.del(`/project/${p.code}/shared-precondition/${id}`),
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

    it('counts users, refuses deleting one in use (409) and allows it once no live case uses it', async () => {
      const p = await createProject(t);
      const id = await createPrecondition(t, p.code, { title: 'Used', text: '<p>Seeded</p>' });
      const a = await createTcase(t, p, { precondition: { sharedPreconditionId: id } });
      const count = async () =>
        (await t.get(`/project/${p.code}/shared-precondition`, { query: { include: 'tcaseCount' } })).body[0]
          .tcaseCount;
      expect(await count()).toBe(1);
      expect((await getTcase(t, p, a.id)).precondition).toEqual(
        (await t.get(`/project/${p.code}/shared-precondition/${id}`)).body,
      );
      const refused = await t.del(`/project/${p.code}/shared-precondition/${id}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        code: 'CONFLICT',
        message: `shared precondition ${id} is used by 1 test case`,
      });
      expect((await t.del(`/project/${p.code}/tcase/${a.id}`)).status).toBe(200);
      expect(await count()).toBe(0);
      expect((await t.del(`/project/${p.code}/shared-precondition/${id}`)).status).toBe(200);
    });
  });
});
