import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { setSuspended } from '../tenants/tenants.service.js';
import {
  folderExists,
  folderPath,
  getFolder,
  listFoldersByIds,
  subtreeFolderIds,
  upsertFolderPaths,
} from './folders.service.js';

describeEachDb('folders', (t) => {
  const bulk = (project: string, folders: unknown, key?: string) =>
    t.post(`/project/${project}/tcase/folder/bulk`, { folders }, key === undefined ? {} : { key });
  const list = (project: string, query: Record<string, string | number> = {}, key?: string) =>
    t.get(`/project/${project}/tcase/folders`, key === undefined ? { query } : { query, key });
  const storedFolders = (projectId: string) =>
    t.db.selectFrom('folders').selectAll().where('project_id', '=', projectId).orderBy('id').execute();

  /** B (pos 0) with child B1; A (pos 1) with children A2 (pos 0) and A1 (pos 1): pos, not title, orders siblings. */
  async function treeProject() {
    const p = await createProject(t);
    const res = await bulk(p.code, [
      { path: ['B'] },
      { path: ['A', 'A2'] },
      { path: ['A', 'A1'], comment: '<p>one</p>' },
      { path: ['B', 'B1'] },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [[b], [a, a2], [, a1], [, b1]] = res.body.ids as number[][];
    return { p, b, a, a2, a1, b1 };
  }

  describe('GET /project/:project/tcase/folders', () => {
    it('answers {total: 0, data: []} without offset or limit for a project with no folders', async () => {
      const p = await createProject(t);
      const res = await list(p.code);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ total: 0, data: [] });
    });

    it('returns the whole tree depth-first, siblings by pos, without offset and limit (D12)', async () => {
      const { p, a, a1, a2, b, b1 } = await treeProject();
      const res = await list(p.code.toLowerCase());
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['total', 'data']);
      expect(res.body.total).toBe(5);
      expect(res.body.data).toEqual([
        { id: b, projectId: p.id, parentId: 0, pos: 0, title: 'B', comment: '' },
        { id: b1, projectId: p.id, parentId: b, pos: 0, title: 'B1', comment: '' },
        { id: a, projectId: p.id, parentId: 0, pos: 1, title: 'A', comment: '' },
        { id: a2, projectId: p.id, parentId: a, pos: 0, title: 'A2', comment: '' },
        { id: a1, projectId: p.id, parentId: a, pos: 1, title: 'A1', comment: '<p>one</p>' },
      ]);
    });

    it('applies offset and limit to the tree order and echoes them with the page they fall on (D12)', async () => {
      const { p, b1, a, a2, a1 } = await treeProject();
      const res = await list(p.code, { offset: 1, limit: 2 });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'limit', 'offset', 'page', 'total']);
      expect(res.body).toMatchObject({ total: 5, offset: 1, limit: 2, page: 1 });
      expect(res.body.data.map((f: { id: number }) => f.id)).toEqual([b1, a]);

      const later = await list(p.code, { offset: 3, limit: 2 });
      expect(later.body).toMatchObject({ total: 5, offset: 3, limit: 2, page: 2 });
      expect(later.body.data.map((f: { id: number }) => f.id)).toEqual([a2, a1]);
    });

    it('answers only the total for limit=0', async () => {
      const { p } = await treeProject();
      const res = await list(p.code, { limit: 0 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ total: 5, offset: 0, limit: 0, page: 1, data: [] });
      // No page holds rows at limit 0: a page that was sent is echoed as sent.
      expect((await list(p.code, { limit: 0, page: 3 })).body).toEqual({
        total: 5,
        offset: 0,
        limit: 0,
        page: 3,
        data: [],
      });
    });

    it('applies offset alone from that row on and reports the applied limit', async () => {
      const { p, a2, a1 } = await treeProject();
      const res = await list(p.code, { offset: 3 });
      expect(res.body).toMatchObject({ total: 5, offset: 3, limit: 5000, page: 1 });
      expect(res.body.data.map((f: { id: number }) => f.id)).toEqual([a2, a1]);
    });

    it('supports the deprecated page: 1-based, page size 10 without limit; offset wins and decides the page echoed', async () => {
      const p = await createProject(t);
      const names = Array.from({ length: 12 }, (_, i) => `F${String(i).padStart(2, '0')}`);
      const created = await bulk(
        p.code,
        names.map((n) => ({ path: [n] })),
      );
      const ids = (created.body.ids as number[][]).map(([id]) => id);

      const page2 = await list(p.code, { page: 2 });
      expect(page2.status).toBe(200);
      expect(page2.body).toMatchObject({ total: 12, offset: 10, limit: 10, page: 2 });
      expect(page2.body.data.map((f: { id: number }) => f.id)).toEqual(ids.slice(10));

      const sized = await list(p.code, { page: 3, limit: 4 });
      expect(sized.body).toMatchObject({ total: 12, offset: 8, limit: 4, page: 3 });
      expect(sized.body.data.map((f: { id: number }) => f.id)).toEqual(ids.slice(8, 12));

      const withOffset = await list(p.code, { page: 3, offset: 1, limit: 2 });
      expect(withOffset.body).toMatchObject({ total: 12, offset: 1, limit: 2, page: 1 });
      expect(withOffset.body.data.map((f: { id: number }) => f.id)).toEqual(ids.slice(1, 3));
    });

    it('sorts by a snake_case or camelCase field, ascending by default or descending', async () => {
      const { p, a, a1, a2, b, b1 } = await treeProject();
      const byTitle = await list(p.code, { sortField: 'title' });
      expect(byTitle.status).toBe(200);
      expect(byTitle.body.data.map((f: { title: string }) => f.title)).toEqual(['A', 'A1', 'A2', 'B', 'B1']);
      expect(Object.keys(byTitle.body)).toEqual(['total', 'data']);
      const desc = await list(p.code, { sortField: 'id', sortOrder: 'desc' });
      expect(desc.body.data.map((f: { id: number }) => f.id)).toEqual(
        [b, a, a2, a1, b1].sort((x, y) => y - x),
      );
      const camel = await list(p.code, { sortField: 'parentId', sortOrder: 'asc', limit: 2 });
      expect(camel.body).toMatchObject({ total: 5, offset: 0, limit: 2 });
      expect(camel.body.data.map((f: { id: number }) => f.id)).toEqual([a, b].sort((x, y) => x - y));
      const snake = await list(p.code, { sortField: 'parent_id', sortOrder: 'desc' });
      expect(snake.body.data[0].parentId).toBe(Math.max(a, b));
      for (const field of ['project_id', 'pos', 'created_at', 'updatedAt']) {
        expect((await list(p.code, { sortField: field })).status, field).toBe(200);
      }
    });

    it('filters by a case-insensitive substring of the title, keeping tree order', async () => {
      const p = await createProject(t);
      await bulk(p.code, [
        { path: ['User Login'] },
        { path: ['Cart'] },
        { path: ['Cart', 'login flow'] },
        { path: ['cli-import'] },
      ]);
      const res = await list(p.code, { search: 'LOGIN' });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.data.map((f: { title: string }) => f.title)).toEqual(['User Login', 'login flow']);
      const cli = await list(p.code, { search: 'cli-import' });
      expect(cli.body.data.map((f: { title: string }) => f.title)).toEqual(['cli-import']);
      const none = await list(p.code, { search: '%' });
      expect(none.body).toEqual({ total: 0, data: [] });
    });

    it.each([
      [{ limit: 5001 }, '/limit'],
      [{ limit: -1 }, '/limit'],
      [{ limit: 'ten' }, '/limit'],
      [{ offset: -1 }, '/offset'],
      [{ page: 0 }, '/page'],
      [{ sortField: 'colour' }, '/sortField'],
      [{ sortField: 'title', sortOrder: 'up' }, '/sortOrder'],
      [{ sortOrder: 'asc' }, '/sortOrder'],
    ])('answers 400 for the query %j', async (query, path) => {
      const p = await createProject(t);
      const res = await list(p.code, query as Record<string, string | number>);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe(path);
    });

    it('accepts limit 5000', async () => {
      const p = await createProject(t);
      expect((await list(p.code, { limit: 5000 })).body).toEqual({
        total: 0,
        offset: 0,
        limit: 5000,
        page: 1,
        data: [],
      });
    });

    it('answers 401 without a valid key, 404 for an unknown project and 403 to a non-member', async () => {
      const p = await createProject(t);
      const missing = await list(p.code, {}, null as unknown as string);
      expect(missing.status).toBe(401);
      expect(missing.body.code).toBe('UNAUTHORIZED');
      const wrong = await list(p.code, {}, 'default.nokey.nosecret');
      expect(wrong.status).toBe(401);
      const unknown = await list('NOPE1');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ code: 'NOT_FOUND', message: 'project "NOPE1" not found' });
      const outsider = await userWithKey(t, 'user');
      const denied = await list(p.code, {}, outsider.key);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
    });

    it('lets a viewer who is a member read the folders, and reads an archived project', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const { p } = await treeProject();
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', p.id)
        .execute();
      const { addMember } = await import('../projects/projects.service.js');
      await addMember(t.db, t.tenantId, p.id, viewer.user.id);
      const res = await list(p.code, {}, viewer.key);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(5);
    });
  });

  describe('POST /project/:project/tcase/folder/bulk', () => {
    it('creates every folder of a path, parents included, and answers the ids root to leaf', async () => {
      const p = await createProject(t);
      const res = await bulk(p.code, [{ path: ['Web', 'Checkout', 'Payment'], comment: '<b>cards</b>' }]);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['ids']);
      const [[web, checkout, payment]] = res.body.ids;
      const rows = await storedFolders(p.id);
      expect(rows.map((r) => [r.id, r.parent_id, r.title, r.pos, r.comment, r.tenant_id])).toEqual([
        [web, 0, 'Web', 0, '', t.tenantId],
        [checkout, web, 'Checkout', 0, '', t.tenantId],
        [payment, checkout, 'Payment', 0, '<b>cards</b>', t.tenantId],
      ]);
    });

    it('answers one id array per path, in request order, with exactly path.length ids', async () => {
      const p = await createProject(t);
      const res = await bulk(p.code, [{ path: ['X', 'Y', 'Z'] }, { path: ['Q'] }, { path: ['X', 'Y'] }]);
      expect(res.status).toBe(200);
      const ids = res.body.ids as number[][];
      expect(ids.map((a) => a.length)).toEqual([3, 1, 2]);
      expect(ids[2]).toEqual(ids[0].slice(0, 2));
      expect(new Set([...ids[0], ...ids[1]]).size).toBe(4);
    });

    it('keeps the ids, parent and position of existing folders and puts new siblings after the last (pos max + 1)', async () => {
      const { p, a, a1, a2, b } = await treeProject();
      // Move A2 to the end by hand: existing positions must be preserved, new ones come after the maximum.
      await t.db.updateTable('folders').set({ pos: 7 }).where('id', '=', a2).execute();
      const before = await storedFolders(p.id);
      const res = await bulk(p.code, [{ path: ['A', 'A1'] }, { path: ['A', 'A3'] }, { path: ['C'] }]);
      expect(res.status).toBe(200);
      const [[ra, ra1], [ra_, a3], [c]] = res.body.ids;
      expect([ra, ra1, ra_]).toEqual([a, a1, a]);
      const after = await storedFolders(p.id);
      for (const row of before) expect(after.find((r) => r.id === row.id)).toEqual(row);
      expect(after.find((r) => r.id === a3)).toMatchObject({ parent_id: a, pos: 8, title: 'A3' });
      expect(after.find((r) => r.id === c)).toMatchObject({ parent_id: 0, pos: 2, title: 'C' });
      expect(b).toBeLessThan(a);
    });

    it('updates only the leaf comment of an existing path, sanitised; null or no comment keeps it', async () => {
      const p = await createProject(t);
      const first = await bulk(p.code, [{ path: ['Root', 'Leaf'], comment: 'old' }]);
      const [[root, leaf]] = first.body.ids;
      const stamp = (await storedFolders(p.id)).find((r) => r.id === leaf)!.updated_at;

      for (const entry of [{ path: ['Root', 'Leaf'], comment: null }, { path: ['Root', 'Leaf'] }]) {
        const res = await bulk(p.code, [entry]);
        expect(res.body.ids).toEqual([[root, leaf]]);
        const row = (await storedFolders(p.id)).find((r) => r.id === leaf)!;
        expect(row.comment).toBe('old');
        expect(row.updated_at).toBe(stamp);
      }

      const res = await bulk(p.code, [
        {
          path: ['Root', 'Leaf'],
          comment: '<p onclick="x()">new <script>alert(1)</script><a href="javascript:x">l</a></p>',
        },
      ]);
      expect(res.status).toBe(200);
      const rows = await storedFolders(p.id);
      expect(rows.find((r) => r.id === leaf)!.comment).toBe('<p>new <a>l</a></p>');
      expect(rows.find((r) => r.id === root)!.comment).toBe('');
      const listed = await list(p.code);
      expect(listed.body.data[1].comment).toBe('<p>new <a>l</a></p>');

      // A path through an existing folder to a new leaf leaves the existing folder's comment alone.
      await bulk(p.code, [{ path: ['Root'], comment: 'root note' }]);
      await bulk(p.code, [{ path: ['Root', 'Other'], comment: 'other note' }]);
      const again = await storedFolders(p.id);
      expect(again.find((r) => r.id === root)!.comment).toBe('root note');
      expect(again.find((r) => r.title === 'Other')!.comment).toBe('other note');
    });

    it('is idempotent: the same request twice answers the same ids and changes nothing', async () => {
      const p = await createProject(t);
      const body = [{ path: ['I', 'J'], comment: 'c' }, { path: ['I', 'K'], comment: null }, { path: ['L'] }];
      const first = await bulk(p.code, body);
      const stored = await storedFolders(p.id);
      const second = await bulk(p.code, body);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await storedFolders(p.id)).toEqual(stored);
    });

    it('treats names as exact: different case or spacing makes another folder', async () => {
      const p = await createProject(t);
      const res = await bulk(p.code, [{ path: ['Auth'] }, { path: ['auth'] }, { path: ['Auth '] }]);
      expect(res.status).toBe(200);
      expect(new Set(res.body.ids.flat()).size).toBe(3);
    });

    it('answers 200 with no ids for an empty list', async () => {
      const p = await createProject(t);
      const res = await bulk(p.code, []);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ids: [] });
    });

    it('accepts a name of exactly 255 characters', async () => {
      const p = await createProject(t);
      const res = await bulk(p.code, [{ path: ['n'.repeat(255)] }]);
      expect(res.status).toBe(200);
      expect((await storedFolders(p.id))[0].title).toBe('n'.repeat(255));
    });

    it.each([
      ['an empty path', [{ path: [] }], '/folders/0/path', /at least one folder/],
      [
        'an empty name',
        [{ path: ['ok'] }, { path: ['a', 'b', ''] }],
        '/folders/1/path/2',
        /1-255 characters/,
      ],
      ['a blank name', [{ path: ['  '] }], '/folders/0/path/0', /not blank/],
      ['a name over 255 characters', [{ path: ['ok', 'x'.repeat(256)] }], '/folders/0/path/1', /1-255/],
    ])('answers 400 naming the element for %s and creates nothing', async (_name, folders, path, message) => {
      const p = await createProject(t);
      const res = await bulk(p.code, folders);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details).toEqual([{ path, message: expect.stringMatching(message) }]);
      expect(await storedFolders(p.id)).toEqual([]);
    });

    it.each([
      ['no folders key', {}, '/folders'],
      ['an unknown field', { folders: [], extra: 1 }, '/extra'],
      ['an unknown field in a folder', { folders: [{ path: ['a'], parent: 3 }] }, '/folders/0/parent'],
      ['a path that is a string', { folders: [{ path: 'a/b' }] }, '/folders/0/path'],
      ['a name that is a number', { folders: [{ path: ['a', 5] }] }, '/folders/0/path/1'],
      ['a comment that is a number', { folders: [{ path: ['a'], comment: 5 }] }, '/folders/0/comment'],
      ['folders that is an object', { folders: { path: ['a'] } }, '/folders'],
    ])('answers 400 for %s', async (_name, body, path) => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/tcase/folder/bulk`, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe(path);
      expect(await storedFolders(p.id)).toEqual([]);
    });

    it('answers 400 for a missing body', async () => {
      const p = await createProject(t);
      const res = await t.request('POST', `/project/${p.code}/tcase/folder/bulk`, {
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it('lets a test-runner member write, and answers 403 to a viewer member', async () => {
      const runner = await userWithKey(t, 'test-runner');
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [runner.user.id, viewer.user.id]);
      expect((await bulk(p.code, [{ path: ['R'] }], runner.key)).status).toBe(200);
      const denied = await bulk(p.code, [{ path: ['V'] }], viewer.key);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      expect(denied.body.message).toMatch(/test-runner/);
      expect((await storedFolders(p.id)).map((r) => r.title)).toEqual(['R']);
    });

    it('answers 401 without a key, 404 for an unknown project, 403 to a non-member and for an archived project', async () => {
      const p = await createProject(t);
      const missing = await bulk(p.code, [{ path: ['a'] }], null as unknown as string);
      expect(missing.status).toBe(401);
      expect(missing.body.code).toBe('UNAUTHORIZED');
      const unknown = await bulk('NOPE2', [{ path: ['a'] }]);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('NOT_FOUND');
      const outsider = await userWithKey(t, 'user');
      expect((await bulk(p.code, [{ path: ['a'] }], outsider.key)).status).toBe(403);
      await t.db
        .updateTable('projects')
        .set({ archived_at: new Date().toISOString() })
        .where('id', '=', p.id)
        .execute();
      const archived = await bulk(p.code, [{ path: ['a'] }]);
      expect(archived.status).toBe(403);
      expect(archived.body.message).toMatch(/archived/);
      expect(await storedFolders(p.id)).toEqual([]);
    });

    it('answers 403 to a SIEM-LOG-ONLY key', async () => {
      const p = await createProject(t);
      const { key } = await userWithKey(t, 'admin', { keyName: 'SIEM-LOG-ONLY reader' });
      const res = await bulk(p.code, [{ path: ['a'] }], key);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });

    it('gives concurrent identical requests the same ids and creates each folder once', async () => {
      const p = await createProject(t);
      const body = [{ path: ['Con', 'Cur', 'Rent'], comment: 'c' }, { path: ['Con', 'Other'] }];
      const answers = await Promise.all(Array.from({ length: 6 }, () => bulk(p.code, body)));
      for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (const res of answers) expect(res.body).toEqual(answers[0].body);
      const rows = await storedFolders(p.id);
      expect(rows.map((r) => r.title).sort()).toEqual(['Con', 'Cur', 'Other', 'Rent']);
    });
    it('updates the comments of the same folders from two requests in opposite order without failing', async () => {
      const p = await createProject(t);
      expect((await bulk(p.code, [{ path: ['X'] }, { path: ['Y'] }])).status).toBe(200);
      for (let round = 0; round < 5; round++) {
        const [a, b] = await Promise.all([
          bulk(p.code, [
            { path: ['X'], comment: `a${round}` },
            { path: ['Y'], comment: `a${round}` },
          ]),
          bulk(p.code, [
            { path: ['Y'], comment: `b${round}` },
            { path: ['X'], comment: `b${round}` },
          ]),
        ]);
        expect([a.status, b.status], JSON.stringify([a.body, b.body])).toEqual([200, 200]);
      }
    });

    it('gives different sibling folders created at the same time each its own position', async () => {
      const p = await createProject(t);
      expect((await bulk(p.code, [{ path: ['Parent'] }])).status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => bulk(p.code, [{ path: ['Parent', `Child ${i}`] }])),
      );
      for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const parent = (await storedFolders(p.id)).find((r) => r.title === 'Parent')!;
      const children = (await storedFolders(p.id)).filter((r) => r.parent_id === parent.id);
      expect(children).toHaveLength(8);
      expect(new Set(children.map((c) => c.pos)).size).toBe(8);
    });
  });

  describe('403 for a suspended tenant', () => {
    it('answers 403 on GET folders and POST folder/bulk while the tenant is suspended', async () => {
      const p = await createProject(t);
      await setSuspended(t.db, t.tenantId, true);
      try {
        const get = await list(p.code);
        expect(get.status).toBe(403);
        expect(get.body).toEqual({ code: 'FORBIDDEN', message: 'this tenant is suspended' });
        const post = await bulk(p.code, [{ path: ['a'] }]);
        expect(post.status).toBe(403);
      } finally {
        await setSuspended(t.db, t.tenantId, false);
      }
      expect(await storedFolders(p.id)).toEqual([]);
    });
  });

  describe('folders.service', () => {
    it('walks subtrees, paths, and finds folders by id within the project only', async () => {
      const { p, a, a1, a2, b, b1 } = await treeProject();
      const other = await createProject(t);
      const [[foreign]] = (await bulk(other.code, [{ path: ['Foreign'] }])).body.ids;

      expect(await subtreeFolderIds(t.db, t.tenantId, p.id, [a])).toEqual([a, a1, a2].sort((x, y) => x - y));
      expect(await subtreeFolderIds(t.db, t.tenantId, p.id, [b1, a2, foreign, 99999])).toEqual(
        [b1, a2].sort((x, y) => x - y),
      );
      expect(await subtreeFolderIds(t.db, t.tenantId, p.id, [])).toEqual([]);

      expect((await folderPath(t.db, t.tenantId, p.id, a1)).map((f) => f.title)).toEqual(['A', 'A1']);
      expect((await folderPath(t.db, t.tenantId, p.id, b)).map((f) => f.id)).toEqual([b]);
      await expect(folderPath(t.db, t.tenantId, p.id, foreign)).rejects.toMatchObject({ code: 'NOT_FOUND' });

      expect(await getFolder(t.db, t.tenantId, p.id, a1)).toEqual({
        id: a1,
        projectId: p.id,
        parentId: a,
        pos: 1,
        title: 'A1',
        comment: '<p>one</p>',
      });
      await expect(getFolder(t.db, t.tenantId, p.id, foreign)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(getFolder(t.db, 'other-tenant', p.id, a1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await folderExists(t.db, t.tenantId, p.id, b)).toBe(true);
      expect(await folderExists(t.db, t.tenantId, p.id, foreign)).toBe(false);

      const found = await listFoldersByIds(t.db, t.tenantId, p.id, [b1, foreign, a, b1]);
      expect(found.map((f) => f.id)).toEqual([b1, a]);
    });

    it("joins the caller's transaction: a rollback there removes the folders", async () => {
      const p = await createProject(t);
      await expect(
        t.db.transaction().execute(async (trx) => {
          const ids = await upsertFolderPaths(trx, t.tenantId, p.id, [{ path: ['Tx', 'Inner'] }]);
          expect(ids[0]).toHaveLength(2);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await storedFolders(p.id)).toEqual([]);
    });

    it('names the caller-chosen pointer in validation errors', async () => {
      const p = await createProject(t);
      await expect(
        upsertFolderPaths(t.db, t.tenantId, p.id, [{ path: ['ok', ''] }], { pointer: () => '/folderPath' }),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/folderPath/1' }] });
    });
  });
});
