import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { closeRun, createRun, getRun } from '../../../test/helpers/run-factories.js';
import { getConfiguration } from './configurations.service.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachDb('configurations', (t) => {
  describe('POST /project/:p/configuration', () => {
    it('answers 201 with a string id that is never all digits and lists it with every field', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/configuration`, { title: ' Chrome on Linux ' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(/^[a-z][a-z0-9]+$/) });
      const list = await t.get(`/project/${p.code.toLowerCase()}/configuration`);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        configurations: [
          {
            id: res.body.id,
            title: 'Chrome on Linux',
            createdAt: expect.stringMatching(ISO),
            updatedAt: expect.stringMatching(ISO),
          },
        ],
      });
    });

    it('lists configurations in creation order and only those of the project', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      for (const title of ['one', 'two', 'three'])
        await t.post(`/project/${p.code}/configuration`, { title });
      await t.post(`/project/${other.code}/configuration`, { title: 'elsewhere' });
      const list = await t.get(`/project/${p.code}/configuration`);
      expect(list.body.configurations.map((c: { title: string }) => c.title)).toEqual([
        'one',
        'two',
        'three',
      ]);
    });

    it('answers 200 with an empty list for a project without configurations', async () => {
      const p = await createProject(t);
      expect((await t.get(`/project/${p.code}/configuration`)).body).toEqual({ configurations: [] });
    });

    it('accepts a title of 255 characters', async () => {
      const p = await createProject(t);
      expect((await t.post(`/project/${p.code}/configuration`, { title: 'c'.repeat(255) })).status).toBe(201);
    });

    it.each([
      [{ title: '' }, '/title'],
      [{ title: ' \t ' }, '/title'],
      [{ title: 'x'.repeat(256) }, '/title'],
      [{}, '/title'],
      [{ title: null }, '/title'],
      [{ title: 'ok', extra: 1 }, '/extra'],
    ])('answers 400 for the body %j and stores nothing', async (body, path) => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/configuration`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path }] });
      expect((await t.get(`/project/${p.code}/configuration`)).body.configurations).toEqual([]);
    });

    it('answers 400 for malformed JSON', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/configuration`, '{"title": ');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it('answers 403 to a viewer member, 403 to a non-member, 404 for an unknown project', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const outsider = await userWithKey(t, 'user');
      const p = await createProject(t, {}, [viewer.user.id]);
      const denied = await t.post(`/project/${p.code}/configuration`, { title: 'v' }, { key: viewer.key });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      expect((await t.get(`/project/${p.code}/configuration`, { key: viewer.key })).status).toBe(200);
      expect(
        (await t.post(`/project/${p.code}/configuration`, { title: 'o' }, { key: outsider.key })).status,
      ).toBe(403);
      expect((await t.get(`/project/${p.code}/configuration`, { key: outsider.key })).status).toBe(403);
      expect((await t.get('/project/NOPE8/configuration')).status).toBe(404);
      expect((await t.get(`/project/${p.code}/configuration`)).body.configurations).toEqual([]);
    });

    it('answers 409 for a title the project already has, stores nothing, and allows it in another project', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' });
      const res = await t.post(`/project/${p.code}/configuration`, { title: '  Chrome ' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('"Chrome"') });
      const list = await t.get(`/project/${p.code}/configuration`);
      expect(list.body.configurations.map((c: { title: string }) => c.title)).toEqual(['Chrome']);
      expect((await t.post(`/project/${other.code}/configuration`, { title: 'Chrome' })).status).toBe(201);
      // Titles differ by case: both are kept (the picker shows them as typed).
      expect((await t.post(`/project/${p.code}/configuration`, { title: 'chrome' })).status).toBe(201);
    });

    it('answers 201 to a test-runner member and 403 on an archived project', async () => {
      const runner = await userWithKey(t, 'test-runner');
      const p = await createProject(t, {}, [runner.user.id]);
      expect(
        (await t.post(`/project/${p.code}/configuration`, { title: 'r' }, { key: runner.key })).status,
      ).toBe(201);
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', p.id)
        .execute();
      const res = await t.post(`/project/${p.code}/configuration`, { title: 'late' });
      expect(res.status).toBe(403);
      expect((await t.get(`/project/${p.code}/configuration`)).body.configurations).toHaveLength(1);
    });
  });

  describe('PATCH /project/:p/configuration/:id', () => {
    const titles = async (code: string) =>
      (await t.get(`/project/${code}/configuration`)).body.configurations.map(
        (c: { title: string }) => c.title,
      );

    it('answers 200 with the renamed configuration, trimmed, and lists it under the new title', async () => {
      const p = await createProject(t);
      const { id } = (await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' })).body;
      const before = (await t.get(`/project/${p.code}/configuration`)).body.configurations[0];
      const res = await t.patch(`/project/${p.code}/configuration/${id}`, { title: ' Chrome 130 ' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id,
        title: 'Chrome 130',
        createdAt: before.createdAt,
        updatedAt: expect.stringMatching(ISO),
      });
      expect(await titles(p.code)).toEqual(['Chrome 130']);
    });

    it('answers 409 when another configuration of the project has the title, and keeps both', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' });
      const { id } = (await t.post(`/project/${p.code}/configuration`, { title: 'Firefox' })).body;
      await t.post(`/project/${other.code}/configuration`, { title: 'Safari' });
      const res = await t.patch(`/project/${p.code}/configuration/${id}`, { title: ' Chrome' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('"Chrome"') });
      expect(await titles(p.code)).toEqual(['Chrome', 'Firefox']);
      // The same title in another project, and its own title again, are fine.
      expect((await t.patch(`/project/${p.code}/configuration/${id}`, { title: 'Safari' })).status).toBe(200);
      expect((await t.patch(`/project/${p.code}/configuration/${id}`, { title: 'Safari' })).status).toBe(200);
    });

    it.each([
      [{ title: '' }, '/title'],
      [{ title: '   ' }, '/title'],
      [{ title: 'x'.repeat(256) }, '/title'],
      [{}, '/title'],
      [{ title: 'ok', extra: 1 }, '/extra'],
    ])('answers 400 for the body %j and changes nothing', async (body, path) => {
      const p = await createProject(t);
      const { id } = (await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' })).body;
      const res = await t.patch(`/project/${p.code}/configuration/${id}`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path }] });
      expect(await titles(p.code)).toEqual(['Chrome']);
    });

    it('answers 404 for a configuration of another project or none, and 403 to a viewer', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const other = await createProject(t);
      const { id } = (await t.post(`/project/${other.code}/configuration`, { title: 'Theirs' })).body;
      const foreign = await t.patch(`/project/${p.code}/configuration/${id}`, { title: 'Mine' });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('NOT_FOUND');
      expect((await t.patch(`/project/${p.code}/configuration/nope`, { title: 'x' })).status).toBe(404);
      const own = (await t.post(`/project/${p.code}/configuration`, { title: 'Own' })).body.id;
      const denied = await t.patch(
        `/project/${p.code}/configuration/${own}`,
        { title: 'v' },
        { key: viewer.key },
      );
      expect(denied.status).toBe(403);
      expect(await titles(other.code)).toEqual(['Theirs']);
      expect(await titles(p.code)).toEqual(['Own']);
    });

    it('answers 200 to a test-runner member and 403 on an archived project', async () => {
      const runner = await userWithKey(t, 'test-runner');
      const p = await createProject(t, {}, [runner.user.id]);
      const { id } = (await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' })).body;
      const ok = await t.patch(
        `/project/${p.code}/configuration/${id}`,
        { title: 'Edge' },
        { key: runner.key },
      );
      expect(ok.status).toBe(200);
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', p.id)
        .execute();
      expect((await t.patch(`/project/${p.code}/configuration/${id}`, { title: 'Late' })).status).toBe(403);
      expect(await titles(p.code)).toEqual(['Edge']);
    });
  });

  describe('DELETE /project/:p/configuration/:id', () => {
    it('removes the configuration; a run that used it stays, with its results, and shows none', async () => {
      const p = await createProject(t);
      const { id } = (await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' })).body;
      const keep = (await t.post(`/project/${p.code}/configuration`, { title: 'Firefox' })).body.id;
      const run = await createRun(t, p, { configurationId: id });
      const other = await createRun(t, p, { configurationId: keep });
      const res = await t.del(`/project/${p.code}/configuration/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Configuration deleted' });
      expect((await t.get(`/project/${p.code}/configuration`)).body.configurations).toEqual([
        expect.objectContaining({ id: keep, title: 'Firefox' }),
      ]);
      const shown = await getRun(t, p, run.id);
      expect(shown.configurationId).toBeNull();
      expect(shown.configuration ?? null).toBeNull();
      expect((await getRun(t, p, other.id)).configurationId).toBe(keep);
      expect((await t.del(`/project/${p.code}/configuration/${id}`)).status).toBe(404);
    });

    it("answers 404 for another project's configuration and 403 to a viewer or on an archived project", async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const other = await createProject(t);
      const theirs = (await t.post(`/project/${other.code}/configuration`, { title: 'Theirs' })).body.id;
      const mine = (await t.post(`/project/${p.code}/configuration`, { title: 'Mine' })).body.id;
      expect((await t.del(`/project/${p.code}/configuration/${theirs}`)).status).toBe(404);
      const denied = await t.del(`/project/${p.code}/configuration/${mine}`, { key: viewer.key });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', p.id)
        .execute();
      expect((await t.del(`/project/${p.code}/configuration/${mine}`)).status).toBe(403);
      expect((await t.get(`/project/${p.code}/configuration`)).body.configurations).toHaveLength(1);
      expect((await t.get(`/project/${other.code}/configuration`)).body.configurations).toHaveLength(1);
    });

    it('answers 200 to a test-runner member', async () => {
      const runner = await userWithKey(t, 'test-runner');
      const p = await createProject(t, {}, [runner.user.id]);
      const { id } = (await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' })).body;
      expect((await t.del(`/project/${p.code}/configuration/${id}`, { key: runner.key })).status).toBe(200);
      expect((await t.get(`/project/${p.code}/configuration`)).body.configurations).toEqual([]);
    });
  });

  describe('GET /project/:p/configuration/:id/usage', () => {
    it('counts the runs of the project that use it and the open ones, for a viewer too', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const chrome = (await t.post(`/project/${p.code}/configuration`, { title: 'Chrome' })).body.id;
      const unused = (await t.post(`/project/${p.code}/configuration`, { title: 'Unused' })).body.id;
      const closed = await createRun(t, p, { configurationId: chrome });
      await closeRun(t, p, closed.id);
      await createRun(t, p, { configurationId: chrome });
      await createRun(t, p, {});
      const res = await t.get(`/project/${p.code}/configuration/${chrome}/usage`, { key: viewer.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ runs: 2, openRuns: 1 });
      expect((await t.get(`/project/${p.code}/configuration/${unused}/usage`)).body).toEqual({
        runs: 0,
        openRuns: 0,
      });
    });

    it("answers 404 for another project's configuration or none, and 403 to a non-member", async () => {
      const outsider = await userWithKey(t, 'viewer');
      const p = await createProject(t);
      const other = await createProject(t);
      const theirs = (await t.post(`/project/${other.code}/configuration`, { title: 'Theirs' })).body.id;
      const mine = (await t.post(`/project/${p.code}/configuration`, { title: 'Mine' })).body.id;
      const notHere = await t.get(`/project/${p.code}/configuration/${theirs}/usage`);
      expect(notHere.status).toBe(404);
      expect(notHere.body.code).toBe('NOT_FOUND');
      expect((await t.get(`/project/${p.code}/configuration/nope/usage`)).status).toBe(404);
      const denied = await t.get(`/project/${p.code}/configuration/${mine}/usage`, { key: outsider.key });
      expect(denied.status).toBe(403);
    });
  });

  describe('service: getConfiguration', () => {
    it('returns the configuration of the project and undefined for another project, tenant or id', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const { id } = (await t.post(`/project/${p.code}/configuration`, { title: 'Firefox' })).body;
      expect(await getConfiguration(t.db, t.tenantId, p.id, id)).toEqual({
        id,
        title: 'Firefox',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      expect(await getConfiguration(t.db, t.tenantId, other.id, id)).toBeUndefined();
      expect(await getConfiguration(t.db, 'another-tenant', p.id, id)).toBeUndefined();
      expect(await getConfiguration(t.db, t.tenantId, p.id, 'nope')).toBeUndefined();
    });
  });
});
