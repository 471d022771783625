import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import { addResult, createRun, listRunTcases } from '../../../test/helpers/run-factories.js';

/** docs/api-decisions.md#folder-edits and #folder-deletion: what the repository page does to the folder tree. */
describeEachDb('folder edits and deletion', (t) => {
  const patch = (code: string, id: number, body: unknown, key?: string) =>
    t.patch(`/project/${code}/tcase/folder/${id}`, body, key === undefined ? {} : { key });
  const del = (code: string, id: number, recursive?: boolean) =>
    t.del(`/project/${code}/tcase/folder/${id}`, recursive === undefined ? {} : { query: { recursive } });
  const tree = async (code: string) =>
    (
      (await t.get(`/project/${code}/tcase/folders`)).body.data as {
        id: number;
        parentId: number;
        pos: number;
        title: string;
      }[]
    ).map((f) => [f.title, f.parentId, f.pos]);

  /** Roots A (A1, A2), B, C in that order. */
  async function setup() {
    const p = await createProject(t);
    const res = await t.post(`/project/${p.code}/tcase/folder/bulk`, {
      folders: [{ path: ['A', 'A1'] }, { path: ['A', 'A2'] }, { path: ['B'] }, { path: ['C'] }],
    });
    expect(res.status).toBe(200);
    const [[a, a1], [, a2], [b], [c]] = res.body.ids as number[][];
    return { p, a, a1, a2, b, c };
  }

  describe('PATCH /project/:project/tcase/folder/:folderId', () => {
    it('renames a folder and answers it', async () => {
      const { p, b } = await setup();
      const res = await patch(p.code, b, { title: 'Billing', comment: '<p>x</p><script>bad()</script>' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        id: b,
        projectId: p.id,
        parentId: 0,
        pos: 1,
        title: 'Billing',
        comment: '<p>x</p>',
      });
      expect(await tree(p.code)).toContainEqual(['Billing', 0, 1]);
    });

    it('answers 409 when a sibling already has the title, and changes nothing', async () => {
      const { p, b } = await setup();
      const res = await patch(p.code, b, { title: 'C' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT' });
      expect(res.body.message).toContain('"C"');
      expect(await tree(p.code)).toContainEqual(['B', 0, 1]);
    });

    it('moves a folder under another parent, last among its new siblings, and renumbers nothing else', async () => {
      const { p, a, c } = await setup();
      const res = await patch(p.code, c, { parentId: a });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ id: c, parentId: a, pos: 2 });
      expect(await tree(p.code)).toEqual([
        ['A', 0, 0],
        ['A1', a, 0],
        ['A2', a, 1],
        ['C', a, 2],
        ['B', 0, 1],
      ]);
    });

    it('moves a subfolder to the root at a given position, renumbering its new siblings', async () => {
      const { p, a2 } = await setup();
      const res = await patch(p.code, a2, { parentId: 0, pos: 1 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await tree(p.code)).toEqual([
        ['A', 0, 0],
        ['A1', expect.any(Number), 0],
        ['A2', 0, 1],
        ['B', 0, 2],
        ['C', 0, 3],
      ]);
    });

    it('reorders among siblings: first, and past the end means last', async () => {
      const { p, c, a } = await setup();
      expect((await patch(p.code, c, { pos: 0 })).status).toBe(200);
      expect((await tree(p.code)).filter((f) => f[1] === 0)).toEqual([
        ['C', 0, 0],
        ['A', 0, 1],
        ['B', 0, 2],
      ]);
      expect((await patch(p.code, a, { pos: 99 })).body.pos).toBe(2);
      expect((await tree(p.code)).filter((f) => f[1] === 0)).toEqual([
        ['C', 0, 0],
        ['B', 0, 1],
        ['A', 0, 2],
      ]);
    });

    it('refuses to move a folder into itself or its own subtree (400), and changes nothing', async () => {
      const { p, a, a1 } = await setup();
      for (const parentId of [a, a1]) {
        const res = await patch(p.code, a, { parentId });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/parentId' }] });
      }
      expect(await tree(p.code)).toContainEqual(['A', 0, 0]);
    });

    it('answers 400 for a parent that does not exist and 404 for an unknown folder', async () => {
      const { p, a } = await setup();
      expect((await patch(p.code, a, { parentId: 999999 })).status).toBe(400);
      const res = await patch(p.code, 999999, { title: 'x' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });

    it('answers 400 for a blank title, an empty body and an unknown field', async () => {
      const { p, a } = await setup();
      expect((await patch(p.code, a, { title: '  ' })).body.details).toEqual([
        { path: '/title', message: expect.stringContaining('1-255') },
      ]);
      expect((await patch(p.code, a, {})).status).toBe(400);
      expect((await patch(p.code, a, { name: 'x' })).status).toBe(400);
    });

    it('keeps the order consistent under concurrent reorders (positions stay 0..n-1)', async () => {
      const { p, a, b, c } = await setup();
      const results = await Promise.all([
        patch(p.code, c, { pos: 0 }),
        patch(p.code, a, { pos: 2 }),
        patch(p.code, b, { pos: 0 }),
      ]);
      for (const r of results) expect(r.status).toBe(200);
      const roots = (await tree(p.code)).filter((f) => f[1] === 0);
      expect(roots.map((f) => f[2]).sort()).toEqual([0, 1, 2]);
    });

    it('is refused to a viewer (403)', async () => {
      const { p, a } = await setup();
      const viewer = await userWithKey(t, 'viewer');
      expect((await patch(p.code, a, { title: 'x' }, viewer.key)).status).toBe(403);
    });
  });

  describe('DELETE /project/:project/tcase/folder/:folderId', () => {
    it('deletes an empty folder: it leaves the list and its title can be used again', async () => {
      const { p, b } = await setup();
      const res = await del(p.code, b);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ message: 'Folder deleted', deletedFolderIds: [b], deletedTcaseCount: 0 });
      expect((await tree(p.code)).map((f) => f[0])).not.toContain('B');
      const again = await createFolder(t, p, ['B']);
      expect(again).not.toBe(b);
      expect((await del(p.code, b)).status).toBe(404);
    });

    it('refuses a folder holding subfolders or test cases without recursive (409 naming the counts)', async () => {
      const { p, a, a1 } = await setup();
      await createTcase(t, p, { folderId: a1 });
      const res = await del(p.code, a);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'CONFLICT',
        message:
          'folder "A" holds 2 subfolders and 1 test case; delete with recursive=true to delete them too',
      });
      expect((await tree(p.code)).map((f) => f[0])).toEqual(['A', 'A1', 'A2', 'B', 'C']);
    });

    it('leaves a live run that selects by the deleted folder selecting nothing through it', async () => {
      const { p, b, c } = await setup();
      const gone = await createTcase(t, p, { folderId: b });
      const kept = await createTcase(t, p, { folderId: c });
      const run = await createRun(t, p, {
        type: 'live',
        queryPlans: [{ folderIds: [b] }, { folderIds: [c] }],
      });
      expect((await listRunTcases(t, p, run.id)).map((i) => i.id)).toEqual([gone.id, kept.id]);
      expect((await del(p.code, b, true)).status).toBe(200);
      expect((await listRunTcases(t, p, run.id)).map((i) => i.id)).toEqual([kept.id]);
      // A new case in a folder of that name is a new folder: the run does not pick it up.
      const again = await createFolder(t, p, ['B']);
      await createTcase(t, p, { folderId: again });
      expect((await listRunTcases(t, p, run.id)).map((i) => i.id)).toEqual([kept.id]);
      // Moving a case into the deleted folder is refused like any unknown folder.
      expect((await t.patch(`/project/${p.code}/tcase/${kept.id}`, { folderId: b })).status).toBe(404);
    });

    it('with recursive deletes the subtree and soft-deletes its cases; runs keep their results', async () => {
      const { p, a, a1, a2, c } = await setup();
      const inside = await createTcase(t, p, { folderId: a1, priority: 'high' });
      const outside = await createTcase(t, p, { folderId: c, priority: 'high' });
      const live = await createRun(t, p, { type: 'live', queryPlans: [{ priorities: ['high'] }] });
      const fixed = await createRun(t, p, { tcaseIds: [inside.id] });
      await addResult(t, p, fixed.id, inside.id, 'passed');

      const res = await del(p.code, a, true);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.deletedTcaseCount).toBe(1);
      expect([...res.body.deletedFolderIds].sort()).toEqual([a, a1, a2].sort());
      expect((await tree(p.code)).map((f) => f[0])).toEqual(['B', 'C']);
      expect((await t.get(`/project/${p.code}/tcase/${inside.id}`)).status).toBe(404);
      const stored = await t.db
        .selectFrom('tcases')
        .select(['deleted_at'])
        .where('id', '=', inside.id)
        .executeTakeFirst();
      expect(stored?.deleted_at).not.toBeNull();
      // D17: the live run drops it; the static_struct run keeps it with its result.
      expect((await listRunTcases(t, p, live.id)).map((i) => i.id)).toEqual([outside.id]);
      expect((await listRunTcases(t, p, fixed.id)).map((i) => [i.id, i.status])).toEqual([
        [inside.id, 'passed'],
      ]);
      // Creating a case in a deleted folder is refused.
      const late = await t.post(`/project/${p.code}/tcase`, {
        title: 'late',
        type: 'standalone',
        priority: 'low',
        folderId: a1,
      });
      expect(late.status).toBe(404);
    });
  });
});
