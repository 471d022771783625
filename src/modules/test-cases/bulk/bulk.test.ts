import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase, getTcase } from '../../../../test/helpers/tcase-factories.js';
import { addResult, createRun, listRunTcases } from '../../../../test/helpers/run-factories.js';

/** docs/api-decisions.md#bulk-test-case-operations: move, tag and delete many test cases in one request. */
describeEachDb('bulk test-case operations', (t) => {
  const bulk = (code: string, op: 'move' | 'tags' | 'delete', body: unknown, key?: string) =>
    t.post(`/project/${code}/tcase/bulk/${op}`, body, key === undefined ? {} : { key });
  const stored = (ids: string[]) =>
    t.db
      .selectFrom('tcases')
      .select(['id', 'folder_id', 'pos', 'version', 'deleted_at'])
      .where('id', 'in', ids)
      .orderBy('seq')
      .execute();

  async function setup() {
    const p = await createProject(t);
    const from = await createFolder(t, p, ['From']);
    const to = await createFolder(t, p, ['To']);
    const there = await createTcase(t, p, { folderId: to });
    const x = await createTcase(t, p, { folderId: from, tags: ['keep'] });
    const y = await createTcase(t, p, { folderId: from, priority: 'high' });
    return { p, from, to, there, x, y };
  }

  describe('POST /project/:project/tcase/bulk/move', () => {
    it('moves the cases after those in the folder, in the order named, without a new version', async () => {
      const { p, to, there, x, y } = await setup();
      const res = await bulk(p.code, 'move', { tcaseIds: [y.id, x.id, y.id], folderId: to });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ message: 'Test cases moved', changed: 2 });
      expect(await stored([there.id, x.id, y.id])).toEqual([
        { id: there.id, folder_id: to, pos: 0, version: 1, deleted_at: null },
        { id: x.id, folder_id: to, pos: 2, version: 1, deleted_at: null },
        { id: y.id, folder_id: to, pos: 1, version: 1, deleted_at: null },
      ]);
    });

    it('answers 400 naming every unknown id and moves nothing', async () => {
      const { p, from, to, x } = await setup();
      const other = await createProject(t);
      const foreign = await createTcase(t, other);
      const res = await bulk(p.code, 'move', { tcaseIds: [x.id, 'nope', foreign.id], folderId: to });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['/tcaseIds/1', '/tcaseIds/2']);
      expect((await stored([x.id]))[0].folder_id).toBe(from);
    });

    it('answers 400 for a folder that is not in the project', async () => {
      const { p, x } = await setup();
      const res = await bulk(p.code, 'move', { tcaseIds: [x.id], folderId: 999999 });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: '/folderId', message: expect.stringContaining('999999') }]);
    });

    it('refuses an empty list and more than 1000 ids (400)', async () => {
      const { p, to } = await setup();
      expect((await bulk(p.code, 'move', { tcaseIds: [], folderId: to })).status).toBe(400);
      const many = Array.from({ length: 1001 }, (_, i) => `id${i}`);
      expect((await bulk(p.code, 'move', { tcaseIds: many, folderId: to })).status).toBe(400);
    });

    it('re-evaluates live runs that select by folder (D17)', async () => {
      const { p, from, x, y, to } = await setup();
      const run = await createRun(t, p, { type: 'live', queryPlans: [{ folderIds: [from] }] });
      expect((await listRunTcases(t, p, run.id)).map((i) => i.id)).toEqual([x.id, y.id]);
      await bulk(p.code, 'move', { tcaseIds: [x.id], folderId: to });
      expect((await listRunTcases(t, p, run.id)).map((i) => i.id)).toEqual([y.id]);
    });

    it('moves a template with its filled cases; a filled case alone is refused', async () => {
      const { p, from, to } = await setup();
      const tpl = await createTcase(t, p, {
        folderId: from,
        type: 'template',
        title: 'Login as ${role}',
        parameterValues: [{ values: { role: 'admin' } }],
      });
      const filled = (await getTcase(t, p, tpl.id)).parameterValues[0].tcaseId as string;
      const alone = await bulk(p.code, 'move', { tcaseIds: [filled], folderId: to });
      expect(alone.status).toBe(400);
      expect(alone.body.message).toContain('name the template');
      const res = await bulk(p.code, 'move', { tcaseIds: [tpl.id], folderId: to });
      expect(res.body).toEqual({ message: 'Test cases moved', changed: 2 });
      expect((await stored([tpl.id, filled])).map((r) => r.folder_id)).toEqual([to, to]);
    });

    it('is refused to a viewer (403)', async () => {
      const { p, x, to } = await setup();
      const viewer = await userWithKey(t, 'viewer');
      expect((await bulk(p.code, 'move', { tcaseIds: [x.id], folderId: to }, viewer.key)).status).toBe(403);
    });
  });

  describe('POST /project/:project/tcase/bulk/tags', () => {
    it('adds and removes tags, making a new version only for cases that changed (D15)', async () => {
      const { p, x, y } = await setup();
      const res = await bulk(p.code, 'tags', {
        tcaseIds: [x.id, y.id],
        addTags: ['smoke'],
        removeTags: ['keep'],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ message: 'Test cases tagged', changed: 2 });
      const gx = await getTcase(t, p, x.id);
      expect(gx.version).toBe(2);
      expect(gx.tags.map((tag: { title: string }) => tag.title)).toEqual(['smoke']);
      const v1 = await t.get(`/project/${p.code}/tcase/${x.id}/version/1`);
      expect(v1.body.tags.map((tag: { title: string }) => tag.title)).toEqual(['keep']);
      // Again: nothing changes, so no version.
      const again = await bulk(p.code, 'tags', { tcaseIds: [x.id, y.id], addTags: ['smoke'] });
      expect(again.body.changed).toBe(0);
      expect((await stored([x.id, y.id])).map((r) => r.version)).toEqual([2, 2]);
    });

    it('lets live runs selecting by tag pick the newly tagged cases (D17)', async () => {
      const { p, x, y } = await setup();
      await bulk(p.code, 'tags', { tcaseIds: [y.id], addTags: ['smoke'] });
      const tagId = (await getTcase(t, p, y.id)).tags[0].id;
      const run = await createRun(t, p, { type: 'live', queryPlans: [{ tagIds: [tagId] }] });
      expect((await listRunTcases(t, p, run.id)).map((i) => i.id)).toEqual([y.id]);
      await bulk(p.code, 'tags', { tcaseIds: [x.id], addTags: ['smoke'] });
      expect((await listRunTcases(t, p, run.id)).map((i) => i.id)).toEqual([x.id, y.id]);
      await bulk(p.code, 'tags', { tcaseIds: [x.id, y.id], removeTags: ['smoke'] });
      expect(await listRunTcases(t, p, run.id)).toEqual([]);
    });

    it("tags a template's filled cases with it: each gets a new version", async () => {
      const { p, from } = await setup();
      const tpl = await createTcase(t, p, {
        folderId: from,
        type: 'template',
        title: 'Pay with ${card}',
        parameterValues: [{ values: { card: 'visa' } }, { values: { card: 'amex' } }],
      });
      const filled = ((await getTcase(t, p, tpl.id)).parameterValues as { tcaseId: string }[]).map(
        (v) => v.tcaseId,
      );
      const res = await bulk(p.code, 'tags', { tcaseIds: [tpl.id, filled[0]], addTags: ['payments'] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.changed).toBe(3);
      for (const id of filled) {
        const tc = await getTcase(t, p, id);
        expect(tc.version).toBe(2);
        expect(tc.tags.map((tag: { title: string }) => tag.title)).toEqual(['payments']);
      }
    });

    it('answers 400 without any tag, for a blank title and for an unknown id (nothing changes)', async () => {
      const { p, x } = await setup();
      expect((await bulk(p.code, 'tags', { tcaseIds: [x.id] })).status).toBe(400);
      const blank = await bulk(p.code, 'tags', { tcaseIds: [x.id], addTags: ['ok', ' '] });
      expect(blank.body.details).toEqual([{ path: '/addTags/1', message: expect.any(String) }]);
      const unknown = await bulk(p.code, 'tags', { tcaseIds: [x.id, 'nope'], addTags: ['new'] });
      expect(unknown.status).toBe(400);
      expect((await stored([x.id]))[0].version).toBe(1);
    });
  });

  describe('POST /project/:project/tcase/bulk/delete', () => {
    it('soft-deletes the cases: they leave lists and live runs, runs keep their results', async () => {
      const { p, x, y, there } = await setup();
      const live = await createRun(t, p, { type: 'live', queryPlans: [{ priorities: ['medium', 'high'] }] });
      const fixed = await createRun(t, p, { tcaseIds: [x.id] });
      await addResult(t, p, fixed.id, x.id, 'failed');
      const res = await bulk(p.code, 'delete', { tcaseIds: [x.id, y.id] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ message: 'Test cases deleted', changed: 2 });
      expect((await stored([x.id, y.id])).every((r) => r.deleted_at !== null)).toBe(true);
      expect((await t.get(`/project/${p.code}/tcase`)).body.data.map((c: { id: string }) => c.id)).toEqual([
        there.id,
      ]);
      expect((await listRunTcases(t, p, live.id)).map((i) => i.id)).toEqual([there.id]);
      expect((await listRunTcases(t, p, fixed.id)).map((i) => [i.id, i.status])).toEqual([[x.id, 'failed']]);
    });

    it('refuses the whole request when one id is already deleted (400) and deletes nothing', async () => {
      const { p, x, y } = await setup();
      await bulk(p.code, 'delete', { tcaseIds: [x.id] });
      const res = await bulk(p.code, 'delete', { tcaseIds: [y.id, x.id] });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: '/tcaseIds/1', message: expect.stringContaining(x.id) }]);
      expect((await stored([y.id]))[0].deleted_at).toBeNull();
    });
  });
});
