import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';

describeEachDb('test case lists', (t) => {
  // One project with a known set of cases, shared by the read-only tests below.
  const fx = {} as {
    p: { id: string; code: string };
    root: number;
    sub: number;
    other: number;
    a: { id: string; seq: number };
    b: { id: string; seq: number };
    c: { id: string; seq: number };
    d: { id: string; seq: number };
    tpl: { id: string; seq: number };
    filled: string[];
    tagSmoke: number;
    tagSlow: number;
    reqId: string;
  };
  const list = (query: Record<string, any> = {}) => t.get(`/project/${fx.p.code}/tcase`, { query });
  const seqsOf = (res: { body: { data: { seq: number }[] } }) => res.body.data.map((c) => c.seq);

  beforeAll(async () => {
    const res = await t.post('/custom-field', { type: 'text', systemName: 'lst_env', name: 'Env' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    fx.p = await createProject(t);
    fx.root = await createFolder(t, fx.p, ['Root']);
    fx.sub = await createFolder(t, fx.p, ['Root', 'Sub']);
    fx.other = await createFolder(t, fx.p, ['Other']);
    fx.a = await createTcase(t, fx.p, {
      folderId: fx.root,
      title: 'Alpha login',
      priority: 'high',
      tags: ['smoke'],
      requirements: [{ text: 'REQ-A', url: 'https://example.com/a' }],
      customFields: { lst_env: { value: 'prod' } },
    });
    fx.b = await createTcase(t, fx.p, {
      folderId: fx.root,
      title: 'beta LOGOUT',
      priority: 'low',
      tags: ['slow'],
      customFields: { lst_env: { value: 'staging' } },
    });
    fx.c = await createTcase(t, fx.p, {
      folderId: fx.sub,
      title: 'Gamma',
      priority: 'medium',
      tags: ['smoke', 'slow'],
    });
    fx.d = await createTcase(t, fx.p, {
      folderId: fx.other,
      title: 'Delta draft',
      priority: 'high',
      isDraft: true,
    });
    fx.tpl = await createTcase(t, fx.p, {
      folderId: fx.other,
      type: 'template',
      title: 'Pay by ${method}',
      priority: 'low',
      parameterValues: [{ values: { method: 'card' } }, { values: { method: 'cash' } }],
    });
    const filled = await t.get(`/project/${fx.p.code}/tcase`, { query: { types: 'filled' } });
    fx.filled = filled.body.data.map((c: any) => c.id);
    const tags = (await t.get(`/project/${fx.p.code}/tag`)).body.tags;
    fx.tagSmoke = tags.find((x: any) => x.title === 'smoke').id;
    fx.tagSlow = tags.find((x: any) => x.title === 'slow').id;
    fx.reqId = (await t.get(`/project/${fx.p.code}/requirement`)).body.requirements[0].id;
    const gone = await createTcase(t, fx.p, { folderId: fx.root, title: 'Alpha deleted' });
    await t.del(`/project/${fx.p.code}/tcase/${gone.id}`);
  });

  describe('GET /project/:p/tcase', () => {
    it('answers the full envelope by seq with the list shape, without optional relations', async () => {
      const res = await list();
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['total', 'offset', 'limit', 'page', 'data']);
      expect(res.body).toMatchObject({ total: 7, offset: 0, limit: 5000, page: 1 });
      expect(seqsOf(res)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const first = res.body.data[0];
      expect(Object.keys(first).sort()).toEqual(
        [
          'id',
          'legacyId',
          'version',
          'type',
          'title',
          'seq',
          'projectId',
          'folderId',
          'pos',
          'priority',
          'comment',
          'files',
          'links',
          'authorId',
          'isDraft',
          'isLatestVersion',
          'isEmpty',
          'createdAt',
          'updatedAt',
        ].sort(),
      );
      const tpl = res.body.data.find((c: any) => c.id === fx.tpl.id);
      expect(tpl).toMatchObject({ type: 'template', filledTCaseTitleSuffixParams: [], numFilledTCases: 2 });
      expect(tpl.parameterValues).toBeUndefined();
      const filled = res.body.data.find((c: any) => c.id === fx.filled[0]);
      expect(filled).toMatchObject({ type: 'filled', templateTCaseId: fx.tpl.id, title: 'Pay by card' });
    });

    it('paginates with limit, offset and page, limit=0 answering only the total', async () => {
      expect((await list({ limit: 2 })).body).toMatchObject({ total: 7, offset: 0, limit: 2, page: 1 });
      const page2 = await list({ limit: 2, page: 2 });
      expect(page2.body).toMatchObject({ offset: 2, limit: 2, page: 2 });
      expect(seqsOf(page2)).toEqual([3, 4]);
      const byOffset = await list({ limit: 2, offset: 5 });
      expect(byOffset.body).toMatchObject({ offset: 5, page: 3 });
      expect(seqsOf(byOffset)).toEqual([6, 7]);
      expect((await list({ limit: 2, offset: 4, page: 1 })).body).toMatchObject({ offset: 4, page: 3 });
      expect((await list({ limit: 0 })).body).toEqual({ total: 7, offset: 0, limit: 0, page: 1, data: [] });
      expect((await list({ limit: 0, page: 3 })).body).toMatchObject({ page: 1, data: [] });
      expect((await list({ offset: 50 })).body).toMatchObject({ total: 7, offset: 50, data: [] });
      expect((await list({ limit: 5000 })).status).toBe(200);
      for (const bad of [{ limit: 5001 }, { limit: -1 }, { offset: -1 }, { page: 0 }, { limit: 'x' }]) {
        const res = await list(bad);
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
    });

    it('filters by folders (directly in them), as repeated keys or comma-separated', async () => {
      expect(seqsOf(await list({ folders: fx.root }))).toEqual([fx.a.seq, fx.b.seq]);
      expect(seqsOf(await list({ folders: [fx.root, fx.sub] }))).toEqual([fx.a.seq, fx.b.seq, fx.c.seq]);
      expect(seqsOf(await list({ folders: `${fx.root},${fx.sub}` }))).toEqual([fx.a.seq, fx.b.seq, fx.c.seq]);
      expect((await list({ folders: 999999 })).body).toMatchObject({ total: 0, data: [] });
    });

    it('with recursive=true takes the folders with their subfolders, and an unknown folder matches nothing', async () => {
      expect(seqsOf(await list({ folders: fx.root, recursive: true }))).toEqual([
        fx.a.seq,
        fx.b.seq,
        fx.c.seq,
      ]);
      expect(seqsOf(await list({ folders: fx.root, recursive: false }))).toEqual([fx.a.seq, fx.b.seq]);
      expect((await list({ folders: fx.root, recursive: true, limit: 1 })).body).toMatchObject({
        total: 3,
        data: [{ seq: fx.a.seq }],
      });
      expect((await list({ folders: 999999, recursive: true })).body).toMatchObject({ total: 0, data: [] });
      // Without folders it restricts nothing; a bad value is refused like any other.
      expect((await list({ recursive: true })).body.total).toBe(7);
      expect((await list({ folders: fx.root, recursive: 'maybe' })).status).toBe(400);
    });

    it('filters by tags, priorities, search, types, draft, templates, requirements and custom fields', async () => {
      const [f1, f2] = fx.filled;
      const idsOf = (res: any) => res.body.data.map((c: any) => c.id);
      expect(idsOf(await list({ tags: fx.tagSmoke }))).toEqual([fx.a.id, fx.c.id]);
      expect(idsOf(await list({ tags: [fx.tagSmoke, fx.tagSlow] }))).toEqual([fx.a.id, fx.b.id, fx.c.id]);
      expect(idsOf(await list({ priorities: 'high' }))).toEqual([fx.a.id, fx.d.id]);
      expect(idsOf(await list({ priorities: ['high', 'medium'] }))).toEqual([fx.a.id, fx.c.id, fx.d.id]);
      expect(idsOf(await list({ search: 'LOG' }))).toEqual([fx.a.id, fx.b.id]);
      expect(idsOf(await list({ search: '%' }))).toEqual([]);
      expect(idsOf(await list({ types: 'template' }))).toEqual([fx.tpl.id]);
      expect(idsOf(await list({ types: ['filled', 'template'] }))).toEqual([fx.tpl.id, f1, f2]);
      expect(idsOf(await list({ draft: true }))).toEqual([fx.d.id]);
      expect((await list({ draft: false })).body.total).toBe(6);
      expect(idsOf(await list({ templateTCaseIds: fx.tpl.id }))).toEqual([f1, f2]);
      expect(idsOf(await list({ requirementIds: fx.reqId }))).toEqual([fx.a.id]);
      expect(idsOf(await list({ cf_lst_env: 'staging' }))).toEqual([fx.b.id]);
      expect(idsOf(await list({ cf_lst_env: 'staging,prod' }))).toEqual([fx.a.id, fx.b.id]);
      // AND across filters.
      expect(idsOf(await list({ tags: [fx.tagSmoke, fx.tagSlow], priorities: 'low' }))).toEqual([fx.b.id]);
      expect(idsOf(await list({ folders: fx.root, search: 'alpha', priorities: 'high' }))).toEqual([fx.a.id]);
      expect(idsOf(await list({ folders: fx.root, cf_lst_env: 'prod', tags: fx.tagSlow }))).toEqual([]);
    });

    it('answers 400 for an unknown custom field, include or sort field, and for sortOrder alone', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ cf_nosuch: 'x' }, 'unknown custom field "nosuch"'],
        [{ include: 'steps,bogus' }, 'unknown include "bogus"'],
        [{ sortField: 'colour' }, 'unknown sortField "colour"'],
        [{ sortOrder: 'desc' }, 'sortOrder needs sortField'],
        [{ sortField: 'seq', sortOrder: 'sideways' }, 'sortOrder'],
        [{ types: 'weird' }, 'types'],
        [{ priorities: 'urgent' }, 'priorities'],
        [{ draft: 'maybe' }, 'draft'],
      ];
      for (const [query, message] of cases) {
        const res = await list(query);
        expect(res.status, JSON.stringify(query)).toBe(400);
        expect(res.body.message).toContain(message);
      }
    });

    it('sorts by every allowed field, snake_case or camelCase, ascending or descending', async () => {
      const titles = (res: any) => res.body.data.map((c: any) => c.title);
      expect(seqsOf(await list({ sortField: 'seq', sortOrder: 'desc' }))).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(titles(await list({ sortField: 'title', folders: fx.root }))).toEqual([
        'Alpha login',
        'beta LOGOUT',
      ]);
      expect(
        seqsOf(await list({ sortField: 'priority', sortOrder: 'desc', folders: [fx.root, fx.sub] })),
      ).toEqual([fx.a.seq, fx.c.seq, fx.b.seq]);
      const byFolder = (await list({ sortField: 'folderId', sortOrder: 'desc' })).body.data;
      expect(byFolder.map((c: any) => c.folderId)).toEqual(
        [fx.other, fx.other, fx.other, fx.other, fx.sub, fx.root, fx.root].sort((x, y) => y - x),
      );
      // Ties are broken by seq in the same direction.
      expect(byFolder.slice(0, 4).map((c: any) => c.seq)).toEqual([7, 6, 5, 4]);
      for (const field of [
        'id',
        'seq',
        'folder_id',
        'folderId',
        'author_id',
        'authorId',
        'pos',
        'title',
        'priority',
        'created_at',
        'createdAt',
        'updated_at',
        'updatedAt',
        'legacy_id',
        'legacyId',
      ]) {
        const res = await list({ sortField: field, sortOrder: 'asc' });
        expect(res.status, field).toBe(200);
        expect(res.body.total).toBe(7);
      }
    });

    it('adds each named relation, and only those', async () => {
      const res = await list({
        folders: fx.sub,
        include: [
          'precondition',
          'steps',
          'tags',
          'project',
          'folder',
          'path',
          'requirements',
          'customFields',
        ],
      });
      const c = res.body.data[0];
      expect(c.precondition).toMatchObject({ type: 'standalone', text: '', projectId: fx.p.id });
      expect(c.steps).toEqual([]);
      expect(c.tags.map((x: any) => x.title)).toEqual(['smoke', 'slow']);
      expect(c.project).toMatchObject({ id: fx.p.id, code: fx.p.code });
      expect(c.folder).toMatchObject({ id: fx.sub, title: 'Sub', parentId: fx.root, projectId: fx.p.id });
      expect(c.path.map((f: any) => f.title)).toEqual(['Root', 'Sub']);
      expect(c.requirements).toEqual([]);
      expect(c.customFields).toEqual({});
      const one = (await list({ folders: fx.root, include: 'requirements', limit: 1 })).body.data[0];
      expect(one.requirements).toEqual([{ id: fx.reqId, text: 'REQ-A', url: 'https://example.com/a' }]);
      for (const key of ['precondition', 'steps', 'tags', 'project', 'folder', 'path', 'customFields']) {
        expect(one[key], key).toBeUndefined();
      }
      const tpl = (await list({ types: 'template', include: 'parameterValues' })).body.data[0];
      expect(tpl.parameterValues).toEqual([
        { tcaseId: fx.filled[0], tcaseVersion: 1, values: { method: 'card' } },
        { tcaseId: fx.filled[1], tcaseVersion: 1, values: { method: 'cash' } },
      ]);
    });

    it('answers 403 to a non-member and 404 for an unknown project', async () => {
      const outsider = await userWithKey(t, 'user');
      expect((await t.get(`/project/${fx.p.code}/tcase`, { key: outsider.key })).status).toBe(403);
      expect((await t.get('/project/NOPE1/tcase')).status).toBe(404);
    });
  });

  describe('GET /project/:p/tcase/count', () => {
    it('counts with folders (optionally recursive), tags, priorities and draft', async () => {
      const count = async (query: Record<string, any> = {}) =>
        (await t.get(`/project/${fx.p.code}/tcase/count`, { query })).body;
      expect(await count()).toEqual({ count: 7 });
      expect(await count({ folders: fx.root })).toEqual({ count: 2 });
      expect(await count({ folders: fx.root, recursive: true })).toEqual({ count: 3 });
      expect(await count({ folders: fx.root, recursive: false })).toEqual({ count: 2 });
      expect(await count({ folders: 999999, recursive: true })).toEqual({ count: 0 });
      expect(await count({ tags: [fx.tagSmoke] })).toEqual({ count: 2 });
      expect(await count({ priorities: ['low'] })).toEqual({ count: 4 });
      expect(await count({ draft: true })).toEqual({ count: 1 });
      expect(
        await count({ folders: fx.root, recursive: true, tags: fx.tagSlow, priorities: 'medium' }),
      ).toEqual({
        count: 1,
      });
      const bad = await t.get(`/project/${fx.p.code}/tcase/count`, { query: { folders: 'x' } });
      expect(bad.status).toBe(400);
    });
  });

  describe('POST /project/:p/tcase/seq', () => {
    it('finds cases by markers in any case and zero-padding, leaving unknown markers out', async () => {
      const code = fx.p.code;
      const res = await t.post(`/project/${code}/tcase/seq`, {
        seqIds: [
          `${code}-002`,
          `${code.toLowerCase()}-1`,
          `${code}-0000003`,
          `${code}-999`,
          'ZZZZ-001',
          'garbage',
          `${code}-002`,
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 3, offset: 0, limit: 5000, page: 1 });
      expect(seqsOf(res)).toEqual([1, 2, 3]);
      expect(res.body.data[0]).toMatchObject({
        id: fx.a.id,
        title: 'Alpha login',
        projectId: fx.p.id,
        folderId: fx.root,
      });
    });

    it('paginates the matches and answers an empty envelope for no markers', async () => {
      const code = fx.p.code;
      const seqIds = [1, 2, 3, 4, 5].map((n) => `${code}-${String(n).padStart(3, '0')}`);
      const page2 = await t.post(`/project/${code}/tcase/seq`, { seqIds, limit: 2, page: 2 });
      expect(page2.body).toMatchObject({ total: 5, offset: 2, limit: 2, page: 2 });
      expect(seqsOf(page2)).toEqual([3, 4]);
      const none = await t.post(`/project/${code}/tcase/seq`, { seqIds: [] });
      expect(none.body).toEqual({ total: 0, offset: 0, limit: 5000, page: 1, data: [] });
      expect((await t.post(`/project/${code}/tcase/seq`, {})).status).toBe(400);
      expect((await t.post(`/project/${code}/tcase/seq`, { seqIds: [1] })).status).toBe(400);
    });
  });

  describe('POST /project/:p/tcase/bulk', () => {
    it('creates the folder path and standalone published medium cases in request order', async () => {
      const p = await createProject(t);
      const res = await t.post(`/project/${p.code}/tcase/bulk`, {
        folderPath: ['cli-import', 'suite'],
        tcases: [
          { title: 'first', tags: ['cli-import'] },
          { title: 'second', tags: ['cli-import', 'extra'] },
          { title: 'third', tags: [] },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        tcases: [
          { id: expect.any(String), seq: 1 },
          { id: expect.any(String), seq: 2 },
          { id: expect.any(String), seq: 3 },
        ],
      });
      const cases = (await t.get(`/project/${p.code}/tcase`, { query: { include: 'tags,path' } })).body.data;
      expect(
        cases.map((c: any) => [
          c.id,
          c.title,
          c.type,
          c.priority,
          c.isDraft,
          c.pos,
          c.tags.map((x: any) => x.title),
        ]),
      ).toEqual([
        [res.body.tcases[0].id, 'first', 'standalone', 'medium', false, 0, ['cli-import']],
        [res.body.tcases[1].id, 'second', 'standalone', 'medium', false, 1, ['cli-import', 'extra']],
        [res.body.tcases[2].id, 'third', 'standalone', 'medium', false, 2, []],
      ]);
      expect(cases[0].path.map((f: any) => f.title)).toEqual(['cli-import', 'suite']);

      const again = await t.post(`/project/${p.code}/tcase/bulk`, {
        folderPath: ['cli-import', 'suite'],
        tcases: [{ title: 'fourth', tags: ['cli-import'] }],
      });
      expect(again.body.tcases[0].seq).toBe(4);
      const fourth = (await t.get(`/project/${p.code}/tcase/4`)).body;
      expect(fourth).toMatchObject({ folderId: cases[0].folderId, pos: 3 });
      expect((await t.get(`/project/${p.code}/tcase/folders`)).body.total).toBe(2);
    });

    it('answers 400 for an empty folder path or a blank title, and 403 to a viewer', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      const empty = await t.post(`/project/${p.code}/tcase/bulk`, {
        folderPath: [],
        tcases: [{ title: 'x', tags: [] }],
      });
      expect(empty.status).toBe(400);
      expect(empty.body.details[0].path).toBe('/folderPath');
      const blank = await t.post(`/project/${p.code}/tcase/bulk`, {
        folderPath: ['a'],
        tcases: [{ title: ' ', tags: [] }],
      });
      expect(blank.status).toBe(400);
      expect(blank.body.details[0].path).toBe('/tcases/0/title');
      const denied = await t.post(
        `/project/${p.code}/tcase/bulk`,
        { folderPath: ['a'], tcases: [{ title: 'x', tags: [] }] },
        { key: viewer.key },
      );
      expect(denied.status).toBe(403);
      expect((await t.get(`/project/${p.code}/tcase/count`)).body.count).toBe(0);
      expect((await t.get(`/project/${p.code}/tcase/folders`)).body.total).toBe(0);
    });
  });
});
