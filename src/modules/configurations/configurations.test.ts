import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
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
