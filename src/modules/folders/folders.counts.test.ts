import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { statementLog } from '../../../test/helpers/statement-log.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';

const statements = statementLog();

/** docs/api-decisions.md#folder-case-counts: `GET …/tcase/folders?withCounts=true`. */
describeEachDb(
  'folder case counts',
  (t) => {
    const list = (code: string, query: Record<string, string | number | boolean> = {}) =>
      t.get(`/project/${code}/tcase/folders`, { query });
    type Listed = { id: number; title: string; tcaseCount?: number; subtreeTcaseCount?: number };
    const countsOf = (data: Listed[]) =>
      Object.fromEntries(data.map((f) => [f.title, [f.tcaseCount, f.subtreeTcaseCount]]));

    /** Shop (1 case) > Checkout (2, one more deleted) > Cards (3); Shop > Empty; Docs (none). */
    async function setup() {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/tcase/folder/bulk`, {
        folders: [{ path: ['Shop', 'Checkout', 'Cards'] }, { path: ['Shop', 'Empty'] }, { path: ['Docs'] }],
      });
      expect(res.status).toBe(200);
      const [[shop, checkout, cards]] = res.body.ids as number[][];
      await createTcase(t, p, { folderId: shop });
      for (let i = 0; i < 2; i++) await createTcase(t, p, { folderId: checkout });
      for (let i = 0; i < 3; i++) await createTcase(t, p, { folderId: cards });
      const gone = await createTcase(t, p, { folderId: checkout });
      expect((await t.del(`/project/${p.code}/tcase/${gone.id}`)).status).toBe(200);
      return { p, shop, checkout, cards };
    }

    describe('GET /project/:project/tcase/folders?withCounts=true', () => {
      it("answers each folder's own live cases and those of its whole subtree", async () => {
        const { p } = await setup();
        const res = await list(p.code, { withCounts: true });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.total).toBe(5);
        expect(countsOf(res.body.data)).toEqual({
          Shop: [1, 6],
          Checkout: [2, 5],
          Cards: [3, 3],
          Empty: [0, 0],
          Docs: [0, 0],
        });
      });

      it('counts only cases of this project', async () => {
        const { p } = await setup();
        const other = await createProject(t);
        await createTcase(t, other, {});
        const res = await list(other.code, { withCounts: 'true' });
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject([{ title: 'Cases', tcaseCount: 1, subtreeTcaseCount: 1 }]);
        expect(countsOf((await list(p.code, { withCounts: true })).body.data).Shop).toEqual([1, 6]);
      });

      it('keeps subtree counts whole when search or pagination leave subfolders out', async () => {
        const { p } = await setup();
        const searched = await list(p.code, { withCounts: true, search: 'shop' });
        expect(searched.status).toBe(200);
        expect(countsOf(searched.body.data)).toEqual({ Shop: [1, 6] });
        const paged = await list(p.code, { withCounts: true, offset: 1, limit: 1 });
        expect(paged.status).toBe(200);
        expect(paged.body).toMatchObject({ total: 5, offset: 1, limit: 1 });
        expect(countsOf(paged.body.data)).toEqual({ Checkout: [2, 5] });
      });

      it('follows a folder moved to the top at once', async () => {
        const { p, cards } = await setup();
        const moved = await t.patch(`/project/${p.code}/tcase/folder/${cards}`, { parentId: 0 });
        expect(moved.status, JSON.stringify(moved.body)).toBe(200);
        expect(countsOf((await list(p.code, { withCounts: true })).body.data)).toMatchObject({
          Shop: [1, 3],
          Checkout: [2, 2],
          Cards: [3, 3],
        });
      });

      it('counts with one statement over the test cases, however many folders there are', async () => {
        const { p } = await setup();
        statements.clear();
        expect((await list(p.code, { withCounts: true })).status).toBe(200);
        const reads = statements.statements().filter((s) => /from "tcases"/.test(s.sql));
        expect(reads).toHaveLength(1);
        expect(reads[0].sql).toMatch(/group by "folder_id"/);
      });

      it('leaves the counts out without withCounts (or with withCounts=false)', async () => {
        const { p } = await setup();
        for (const query of [{}, { withCounts: false }] as Record<string, boolean>[]) {
          const res = await list(p.code, query);
          expect(res.status).toBe(200);
          expect(Object.keys(res.body.data[0]).sort()).toEqual([
            'comment',
            'id',
            'parentId',
            'pos',
            'projectId',
            'title',
          ]);
        }
      });

      it('answers 400 for a withCounts that is not a boolean', async () => {
        const { p } = await setup();
        const res = await list(p.code, { withCounts: 'yes' });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
        expect(JSON.stringify(res.body)).toContain('withCounts');
      });
    });
  },
  { db: { log: statements.log } },
);
