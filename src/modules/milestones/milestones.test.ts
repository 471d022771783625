import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { assertMilestoneUsable, getMilestone } from './milestones.service.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachDb('milestones', (t) => {
  describe('POST /project/:p/milestone', () => {
    it('answers 201 with a numeric id and lists the milestone with every field, archivedAt absent', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/milestone`, { title: '  Release 1.0  ' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number) });
      const list = await t.get(`/project/${p.code}/milestone`);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        milestones: [
          {
            id: res.body.id,
            title: 'Release 1.0',
            description: '',
            archived: false,
            createdAt: expect.stringMatching(ISO),
            updatedAt: expect.stringMatching(ISO),
          },
        ],
      });
      // docs/api-decisions.md#response-shapes: never null for an optional scalar.
      expect('archivedAt' in list.body.milestones[0]).toBe(false);
      expect('due' in list.body.milestones[0]).toBe(false);
    });

    it('resolves the project code in any letter case and by id', async () => {
      const p = await createProject(t);
      expect((await t.post(`/project/${p.code.toLowerCase()}/milestone`, { title: 'a' })).status).toBe(201);
      expect((await t.post(`/project/${p.id}/milestone`, { title: 'b' })).status).toBe(201);
      const list = await t.get(`/project/${p.code.toLowerCase()}/milestone`);
      expect(list.body.milestones.map((m: { title: string }) => m.title)).toEqual(['a', 'b']);
    });

    it('accepts a title of exactly 255 characters', async () => {
      const p = await createProject(t);
      expect((await t.post(`/project/${p.code}/milestone`, { title: 'm'.repeat(255) })).status).toBe(201);
    });

    it.each([
      [{ title: '' }, '/title'],
      [{ title: '   ' }, '/title'],
      [{ title: 'x'.repeat(256) }, '/title'],
      [{}, '/title'],
      [{ title: 5 }, '/title'],
      [{ title: 'ok', color: 'red' }, '/color'],
    ])('answers 400 for the body %j and stores nothing', async (body, path) => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/milestone`, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe(path);
      expect((await t.get(`/project/${p.code}/milestone`)).body).toEqual({ milestones: [] });
    });

    it('answers 403 to a viewer member (writes need test-runner) and 201 to a test-runner member', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const runner = await userWithKey(t, 'test-runner');
      const p = await createProject(t, {}, [viewer.user.id, runner.user.id]);
      const denied = await t.post(`/project/${p.code}/milestone`, { title: 'v' }, { key: viewer.key });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      expect((await t.get(`/project/${p.code}/milestone`, { key: viewer.key })).body.milestones).toEqual([]);
      const ok = await t.post(`/project/${p.code}/milestone`, { title: 'r' }, { key: runner.key });
      expect(ok.status).toBe(201);
    });

    it('answers 403 to a test-runner who is not a member, 404 for an unknown project, 401 without a key', async () => {
      const outsider = await userWithKey(t, 'test-runner');
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/milestone`, { title: 'x' }, { key: outsider.key });
      expect(res.status).toBe(403);
      expect((await t.get(`/project/${p.code}/milestone`, { key: outsider.key })).status).toBe(403);
      const missing = await t.post('/project/NOPE9/milestone', { title: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      expect((await t.post(`/project/${p.code}/milestone`, { title: 'x' }, { key: null })).status).toBe(401);
    });

    it('answers 403 for writes to an archived project but still lists its milestones', async () => {
      const p = await createProject(t);
      const { body } = await t.post(`/project/${p.code}/milestone`, { title: 'before' });
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', p.id)
        .execute();
      const res = await t.post(`/project/${p.code}/milestone`, { title: 'after' });
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/archived/);
      expect((await t.post(`/project/${p.code}/milestone/${body.id}/archive`)).status).toBe(403);
      const list = await t.get(`/project/${p.code}/milestone`);
      expect(list.body.milestones.map((m: { title: string }) => m.title)).toEqual(['before']);
    });
  });

  describe('archive, unarchive and the archived filter', () => {
    it('archives with 200 {message}, sets archivedAt and filters by archived=true|false', async () => {
      const p = await createProject(t);
      const a = (await t.post(`/project/${p.code}/milestone`, { title: 'A' })).body.id;
      const b = (await t.post(`/project/${p.code}/milestone`, { title: 'B' })).body.id;
      const res = await t.post(`/project/${p.code}/milestone/${a}/archive`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Milestone archived' });

      const all = (await t.get(`/project/${p.code}/milestone`)).body.milestones;
      expect(all.map((m: { id: number }) => m.id)).toEqual([a, b]);
      expect(all[0]).toEqual({
        id: a,
        title: 'A',
        description: '',
        archived: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        archivedAt: expect.stringMatching(ISO),
      });
      expect(all[0].updatedAt).toBe(all[0].archivedAt);

      const archived = await t.get(`/project/${p.code}/milestone`, { query: { archived: true } });
      expect(archived.body.milestones.map((m: { id: number }) => m.id)).toEqual([a]);
      const active = await t.get(`/project/${p.code}/milestone`, { query: { archived: false } });
      expect(active.body.milestones.map((m: { id: number }) => m.id)).toEqual([b]);
    });

    it('answers 409 when archiving an archived milestone or unarchiving an active one', async () => {
      const p = await createProject(t);
      const id = (await t.post(`/project/${p.code}/milestone`, { title: 'A' })).body.id;
      const notArchived = await t.post(`/project/${p.code}/milestone/${id}/unarchive`);
      expect(notArchived.status).toBe(409);
      expect(notArchived.body).toEqual({ code: 'CONFLICT', message: `milestone ${id} is not archived` });
      expect((await t.post(`/project/${p.code}/milestone/${id}/archive`)).status).toBe(200);
      const again = await t.post(`/project/${p.code}/milestone/${id}/archive`);
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(`milestone ${id} is already archived`);
    });

    it('unarchives with 200 {message} and drops archivedAt again', async () => {
      const p = await createProject(t);
      const id = (await t.post(`/project/${p.code}/milestone`, { title: 'A' })).body.id;
      await t.post(`/project/${p.code}/milestone/${id}/archive`);
      const res = await t.post(`/project/${p.code}/milestone/${id}/unarchive`, undefined, {
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Milestone unarchived' });
      const [m] = (await t.get(`/project/${p.code}/milestone`)).body.milestones;
      expect(m.archived).toBe(false);
      expect('archivedAt' in m).toBe(false);
    });

    it('answers 404 for an unknown milestone and for a milestone of another project, 400 for a non-numeric id', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const id = (await t.post(`/project/${other.code}/milestone`, { title: 'theirs' })).body.id;
      const foreign = await t.post(`/project/${p.code}/milestone/${id}/archive`);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('NOT_FOUND');
      expect((await t.post(`/project/${p.code}/milestone/999999/unarchive`)).status).toBe(404);
      expect((await t.post(`/project/${p.code}/milestone/abc/archive`)).status).toBe(400);
      const [theirs] = (await t.get(`/project/${other.code}/milestone`)).body.milestones;
      expect(theirs.archived).toBe(false);
    });

    it('answers 403 to a viewer who archives', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const id = (await t.post(`/project/${p.code}/milestone`, { title: 'A' })).body.id;
      expect(
        (await t.post(`/project/${p.code}/milestone/${id}/archive`, undefined, { key: viewer.key })).status,
      ).toBe(403);
      expect((await t.get(`/project/${p.code}/milestone`)).body.milestones[0].archived).toBe(false);
    });

    it('answers 400 for an archived filter that is not a boolean', async () => {
      const p = await createProject(t);
      const res = await t.get(`/project/${p.code}/milestone`, { query: { archived: 'maybe' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('service: getMilestone and assertMilestoneUsable (used by runs and plans)', () => {
    it('returns the milestone of the project, undefined for another project or unknown id', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const id = (await t.post(`/project/${p.code}/milestone`, { title: 'A' })).body.id;
      expect(await getMilestone(t.db, t.tenantId, p.id, id)).toMatchObject({
        id,
        title: 'A',
        archived: false,
      });
      expect(await getMilestone(t.db, t.tenantId, other.id, id)).toBeUndefined();
      expect(await getMilestone(t.db, 'another-tenant', p.id, id)).toBeUndefined();
      expect(await getMilestone(t.db, t.tenantId, p.id, 999999)).toBeUndefined();
    });

    it('throws 400 at the given path for a missing or archived milestone (D9)', async () => {
      const p = await createProject(t);
      const id = (await t.post(`/project/${p.code}/milestone`, { title: 'A' })).body.id;
      await expect(assertMilestoneUsable(t.db, t.tenantId, p.id, id)).resolves.toMatchObject({ id });
      await expect(
        assertMilestoneUsable(t.db, t.tenantId, p.id, 999999, '/runs/0/milestoneId'),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ path: '/runs/0/milestoneId' }],
      });
      await t.post(`/project/${p.code}/milestone/${id}/archive`);
      await expect(assertMilestoneUsable(t.db, t.tenantId, p.id, id)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: `milestone ${id} is archived`,
        details: [{ path: '/milestoneId' }],
      });
    });
  });
});
