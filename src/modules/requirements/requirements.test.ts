import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase, getTcase } from '../../../test/helpers/tcase-factories.js';
import { ensureRequirementIds, getRequirementsByIds } from './requirements.service.js';

/** Creation times have millisecond resolution: wait so that "oldest first" is well defined. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

describeEachDb('requirements', (t) => {
  describe('ensureRequirementIds', () => {
    it('creates missing requirements and gives the same text and url the same string id', async () => {
      const p = await createProject(t);
      const [a, b] = await ensureRequirementIds(t.db, t.tenantId, p.id, [
        { text: 'REQ-1', url: 'https://tracker.example/REQ-1' },
        { text: 'REQ-2' },
      ]);
      expect(a).toMatch(/^[a-z][a-z0-9]+$/);
      expect(a).not.toBe(b);
      const again = await ensureRequirementIds(t.db, t.tenantId, p.id, [
        { text: 'REQ-2', url: '' },
        { text: ' REQ-1 ', url: 'https://tracker.example/REQ-1' },
        { text: 'REQ-1', url: 'https://tracker.example/other' },
        { text: 'REQ-2' },
      ]);
      expect(again.slice(0, 2)).toEqual([b, a]);
      expect(again[2]).not.toBe(a);
      expect(again[3]).toBe(b);
      const rows = await t.db
        .selectFrom('requirements')
        .select(['text', 'url'])
        .where('project_id', '=', p.id)
        .orderBy('url')
        .execute();
      expect(rows).toEqual([
        { text: 'REQ-2', url: '' },
        { text: 'REQ-1', url: 'https://tracker.example/REQ-1' },
        { text: 'REQ-1', url: 'https://tracker.example/other' },
      ]);
    });

    it('keeps requirements per project', async () => {
      const a = await createProject(t);
      const b = await createProject(t);
      const [inA] = await ensureRequirementIds(t.db, t.tenantId, a.id, [{ text: 'same', url: '' }]);
      const [inB] = await ensureRequirementIds(t.db, t.tenantId, b.id, [{ text: 'same', url: '' }]);
      expect(inA).not.toBe(inB);
    });

    it('refuses empty or long text and a url that is not an absolute http(s) URL, naming the position', async () => {
      const p = await createProject(t);
      const cases: [{ text: string; url?: string }, string][] = [
        [{ text: '  ' }, '/requirements/1/text'],
        [{ text: 'x'.repeat(256) }, '/requirements/1/text'],
        [{ text: 'ok', url: '/relative' }, '/requirements/1/url'],
        [{ text: 'ok', url: 'ftp://files.example/x' }, '/requirements/1/url'],
        [{ text: 'ok', url: `https://e.com/${'x'.repeat(250)}` }, '/requirements/1/url'],
      ];
      for (const [bad, path] of cases) {
        const err = await ensureRequirementIds(t.db, t.tenantId, p.id, [{ text: 'fine' }, bad]).catch(
          (e) => e,
        );
        expect(err, JSON.stringify(bad).slice(0, 60)).toMatchObject({ code: 'VALIDATION_FAILED' });
        expect(err.details).toEqual([{ path, message: expect.any(String) }]);
      }
      expect(
        await t.db.selectFrom('requirements').select('id').where('project_id', '=', p.id).execute(),
      ).toEqual([]);
    });

    it('gives concurrent callers one requirement for the same text and url', async () => {
      const p = await createProject(t);
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.db
            .transaction()
            .execute((trx) =>
              ensureRequirementIds(trx, t.tenantId, p.id, [{ text: 'RACE', url: 'https://r.example' }]),
            ),
        ),
      );
      expect(new Set(results.map((r) => r[0])).size).toBe(1);
      const rows = await t.db
        .selectFrom('requirements')
        .select('id')
        .where('project_id', '=', p.id)
        .execute();
      expect(rows).toHaveLength(1);
    });
  });

  describe('getRequirementsByIds', () => {
    it('maps ids to {id, text, url} and leaves out unknown ids', async () => {
      const p = await createProject(t);
      const [a] = await ensureRequirementIds(t.db, t.tenantId, p.id, [
        { text: 'R', url: 'https://r.example/1' },
      ]);
      const map = await getRequirementsByIds(t.db, t.tenantId, [a, 'nope']);
      expect([...map.entries()]).toEqual([[a, { id: a, text: 'R', url: 'https://r.example/1' }]]);
      expect((await getRequirementsByIds(t.db, 'another-tenant', [a])).size).toBe(0);
    });
  });

  describe('GET /project/:p/requirement', () => {
    it('lists {id, text, url, integrationLink: null}, oldest first, only of this project', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const [first] = await ensureRequirementIds(t.db, t.tenantId, p.id, [
        { text: 'zeta', url: 'https://z.example' },
      ]);
      await tick();
      const [second] = await ensureRequirementIds(t.db, t.tenantId, p.id, [{ text: 'alpha' }]);
      await ensureRequirementIds(t.db, t.tenantId, other.id, [{ text: 'elsewhere' }]);
      const res = await t.get(`/project/${p.code}/requirement`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        requirements: [
          { id: first, text: 'zeta', url: 'https://z.example', integrationLink: null },
          { id: second, text: 'alpha', url: '', integrationLink: null },
        ],
      });
    });

    it('sorts by text or created_at in either order, and adds tcaseCount when asked', async () => {
      const p = await createProject(t);
      const [b] = await ensureRequirementIds(t.db, t.tenantId, p.id, [{ text: 'b' }]);
      await tick();
      const [a] = await ensureRequirementIds(t.db, t.tenantId, p.id, [{ text: 'a' }]);
      const ids = async (query: Record<string, string>) =>
        (await t.get(`/project/${p.code}/requirement`, { query })).body.requirements.map(
          (r: { id: string }) => r.id,
        );
      expect(await ids({ sortField: 'text' })).toEqual([a, b]);
      expect(await ids({ sortField: 'text', sortOrder: 'desc' })).toEqual([b, a]);
      expect(await ids({ sortField: 'created_at', sortOrder: 'desc' })).toEqual([a, b]);
      expect(await ids({ sortField: 'createdAt', sortOrder: 'asc' })).toEqual([b, a]);
      const counted = await t.get(`/project/${p.code}/requirement`, { query: { include: 'tcaseCount' } });
      expect(counted.body.requirements.map((r: { tcaseCount: number }) => r.tcaseCount)).toEqual([0, 0]);
    });

    it('answers 400 for sortOrder without sortField and an unknown sortField, 404 and 403 for the project', async () => {
      const p = await createProject(t);
      const noField = await t.get(`/project/${p.code}/requirement`, { query: { sortOrder: 'desc' } });
      expect(noField.status).toBe(400);
      expect(noField.body.message).toBe('sortOrder needs sortField');
      const unknown = await t.get(`/project/${p.code}/requirement`, { query: { sortField: 'url' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details[0].path).toBe('/sortField');
      expect((await t.get('/project/NOPE2/requirement')).status).toBe(404);
      const outsider = await userWithKey(t, 'test-runner');
      expect((await t.get(`/project/${p.code}/requirement`, { key: outsider.key })).status).toBe(403);
    });
  });

  describe('with test cases', () => {
    it('lists requirements test cases created, counting live cases whose latest version links each', async () => {
      const p = await createProject(t);
      const req = { text: 'REQ-42', url: 'https://tracker.example/REQ-42' };
      const a = await createTcase(t, p, { requirements: [req, { text: 'REQ-43', url: '' }] });
      const b = await createTcase(t, p, { requirements: [req] });
      const list = async () =>
        (
          await t.get(`/project/${p.code}/requirement`, {
            query: { include: 'tcaseCount', sortField: 'text' },
          })
        ).body.requirements;
      const [r42, r43] = await list();
      expect(r42).toEqual({ id: expect.any(String), ...req, integrationLink: null, tcaseCount: 2 });
      expect(r43).toEqual({
        id: expect.any(String),
        text: 'REQ-43',
        url: '',
        integrationLink: null,
        tcaseCount: 1,
      });
      expect((await getTcase(t, p, a.id)).requirements).toEqual([
        { id: r42.id, ...req },
        { id: r43.id, text: 'REQ-43', url: '' },
      ]);
      const relinked = await t.patch(`/project/${p.code}/tcase/${b.id}`, { requirements: [] });
      expect(relinked.status, JSON.stringify(relinked.body)).toBe(200);
      expect((await list()).map((r: { tcaseCount: number }) => r.tcaseCount)).toEqual([1, 1]);
      expect((await t.del(`/project/${p.code}/tcase/${a.id}`)).status).toBe(200);
      expect((await list()).map((r: { tcaseCount: number }) => r.tcaseCount)).toEqual([0, 0]);
    });
  });
});
