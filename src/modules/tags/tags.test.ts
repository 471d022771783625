import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { ensureTagIds, getTagsByIds } from './tags.service.js';

describeEachDb('tags', (t) => {
  describe('ensureTagIds', () => {
    it('creates missing tags, reuses existing ones and answers one id per title in input order', async () => {
      const p = await createProject(t);
      const first = await ensureTagIds(t.db, t.tenantId, p.id, ['smoke', 'api']);
      expect(first).toHaveLength(2);
      expect(first[0]).not.toBe(first[1]);
      const again = await ensureTagIds(t.db, t.tenantId, p.id, ['api', ' smoke ', 'new', 'api']);
      expect(again).toEqual([first[1], first[0], expect.any(Number), first[1]]);
      const rows = await t.db.selectFrom('tags').select(['title']).where('project_id', '=', p.id).execute();
      expect(rows.map((r) => r.title).sort()).toEqual(['api', 'new', 'smoke']);
    });

    it('keeps tags per project: the same title in two projects is two tags', async () => {
      const a = await createProject(t);
      const b = await createProject(t);
      const [inA] = await ensureTagIds(t.db, t.tenantId, a.id, ['shared-title']);
      const [inB] = await ensureTagIds(t.db, t.tenantId, b.id, ['shared-title']);
      expect(inA).not.toBe(inB);
    });

    it('answers [] for no titles', async () => {
      const p = await createProject(t);
      expect(await ensureTagIds(t.db, t.tenantId, p.id, [])).toEqual([]);
    });

    it('refuses an empty or over-long title with a 400 naming its position, creating nothing', async () => {
      const p = await createProject(t);
      for (const bad of [
        ['ok', '  '],
        ['ok', 'x'.repeat(256)],
      ]) {
        await expect(ensureTagIds(t.db, t.tenantId, p.id, bad)).rejects.toMatchObject({
          code: 'VALIDATION_FAILED',
          message: 'tag titles must be 1-255 characters',
          details: [{ path: '/tags/1', message: 'tag titles must be 1-255 characters' }],
        });
      }
      expect(await t.db.selectFrom('tags').select('id').where('project_id', '=', p.id).execute()).toEqual([]);
      expect(await ensureTagIds(t.db, t.tenantId, p.id, ['y'.repeat(255)])).toHaveLength(1);
    });

    it('gives every concurrent caller the same id for the same title, creating it once', async () => {
      const p = await createProject(t);
      const titles = ['c1', 'c2', 'c3', 'c4'];
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          t.db
            .transaction()
            .execute((trx) => ensureTagIds(trx, t.tenantId, p.id, [titles[i % 4], titles[(i + 1) % 4]])),
        ),
      );
      const idOf = new Map<string, number>();
      results.forEach((ids, i) => {
        for (const [j, title] of [titles[i % 4], titles[(i + 1) % 4]].entries()) {
          if (idOf.has(title)) expect(ids[j]).toBe(idOf.get(title));
          idOf.set(title, ids[j]);
        }
      });
      const rows = await t.db.selectFrom('tags').select('title').where('project_id', '=', p.id).execute();
      expect(rows).toHaveLength(4);
    });
  });

  describe('getTagsByIds', () => {
    it('maps ids to {id, title} and leaves out unknown ids and other tenants', async () => {
      const p = await createProject(t);
      const [a, b] = await ensureTagIds(t.db, t.tenantId, p.id, ['alpha', 'beta']);
      const map = await getTagsByIds(t.db, t.tenantId, [a, b, a, 999999]);
      expect([...map.entries()].sort((x, y) => x[0] - y[0])).toEqual([
        [a, { id: a, title: 'alpha' }],
        [b, { id: b, title: 'beta' }],
      ]);
      expect((await getTagsByIds(t.db, 'another-tenant', [a])).size).toBe(0);
      expect((await getTagsByIds(t.db, t.tenantId, [])).size).toBe(0);
    });
  });

  describe('GET /project/:p/tag', () => {
    it('lists the project tags as {id, title}, by title by default, without tcaseCount unless asked', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const [b, a, c] = await ensureTagIds(t.db, t.tenantId, p.id, ['bravo', 'alpha', 'charlie']);
      await ensureTagIds(t.db, t.tenantId, other.id, ['elsewhere']);
      const res = await t.get(`/project/${p.code.toLowerCase()}/tag`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        tags: [
          { id: a, title: 'alpha' },
          { id: b, title: 'bravo' },
          { id: c, title: 'charlie' },
        ],
      });
    });

    it('sorts by title, id and created_at (camelCase too), ascending or descending', async () => {
      const p = await createProject(t);
      const [z, y, x] = await ensureTagIds(t.db, t.tenantId, p.id, ['zulu', 'yankee', 'xray']);
      const ids = async (query: Record<string, string>) =>
        (await t.get(`/project/${p.code}/tag`, { query })).body.tags.map((tag: { id: number }) => tag.id);
      expect(await ids({ sortField: 'title', sortOrder: 'desc' })).toEqual([z, y, x]);
      expect(await ids({ sortField: 'title' })).toEqual([x, y, z]);
      expect(await ids({ sortField: 'id' })).toEqual([z, y, x]);
      expect(await ids({ sortField: 'id', sortOrder: 'desc' })).toEqual([x, y, z]);
      expect(await ids({ sortField: 'created_at', sortOrder: 'asc' })).toEqual([z, y, x]);
      expect(await ids({ sortField: 'createdAt', sortOrder: 'desc' })).toEqual([x, y, z]);
    });

    it('adds tcaseCount 0 to unused tags with include=tcaseCount', async () => {
      const p = await createProject(t);
      const [id] = await ensureTagIds(t.db, t.tenantId, p.id, ['unused']);
      const res = await t.get(`/project/${p.code}/tag`, { query: { include: 'tcaseCount' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tags: [{ id, title: 'unused', tcaseCount: 0 }] });
    });

    it('answers [] for a project without tags', async () => {
      const p = await createProject(t);
      expect((await t.get(`/project/${p.code}/tag`)).body).toEqual({ tags: [] });
    });

    it('answers 400 for sortOrder without sortField, an unknown sortField or an unknown include', async () => {
      const p = await createProject(t);
      const noField = await t.get(`/project/${p.code}/tag`, { query: { sortOrder: 'asc' } });
      expect(noField.status).toBe(400);
      expect(noField.body).toMatchObject({ code: 'VALIDATION_FAILED', message: 'sortOrder needs sortField' });
      const unknown = await t.get(`/project/${p.code}/tag`, { query: { sortField: 'colour' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details[0].path).toBe('/sortField');
      const include = await t.get(`/project/${p.code}/tag`, { query: { include: 'everything' } });
      expect(include.status).toBe(400);
      expect(include.body.code).toBe('VALIDATION_FAILED');
    });

    it('answers 404 for an unknown project and 403 to a non-member', async () => {
      const missing = await t.get('/project/NOPE1/tag');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'project "NOPE1" not found' });
      const p = await createProject(t);
      const outsider = await userWithKey(t, 'user');
      const res = await t.get(`/project/${p.code}/tag`, { key: outsider.key });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });

    it('lets a viewer who is a member read the list', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      expect((await t.get(`/project/${p.code}/tag`, { key: viewer.key })).status).toBe(200);
    });
  });

  describe('tcaseCount', () => {
    it('counts live test cases whose latest version has the tag, following retags and deletes', async () => {
      const p = await createProject(t);
      const a = await createTcase(t, p, { tags: ['smoke', 'api'] });
      const b = await createTcase(t, p, { tags: ['smoke'] });
      await createTcase(t, p, { tags: [] });
      const counts = async () =>
        Object.fromEntries(
          (await t.get(`/project/${p.code}/tag`, { query: { include: 'tcaseCount' } })).body.tags.map(
            (tag: { title: string; tcaseCount: number }) => [tag.title, tag.tcaseCount],
          ),
        );
      expect(await counts()).toEqual({ api: 1, smoke: 2 });
      const retag = await t.patch(`/project/${p.code}/tcase/${b.id}`, { tags: ['api', 'fresh'] });
      expect(retag.status, JSON.stringify(retag.body)).toBe(200);
      expect(await counts()).toEqual({ api: 2, fresh: 1, smoke: 1 });
      expect((await t.del(`/project/${p.code}/tcase/${a.id}`)).status).toBe(200);
      expect(await counts()).toEqual({ api: 1, fresh: 1, smoke: 0 });
    });
  });
});
