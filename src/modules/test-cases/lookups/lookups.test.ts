import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../../test/helpers/tcase-factories.js';
import {
  getTcaseAtVersion,
  getTcasesAtVersions,
  resolveTcaseRef,
  selectMatchingTcaseIds,
} from '../test-cases.service.js';

// The service functions other modules (runs) rely on.
describeEachDb('test-cases service lookups', (t) => {
  describe('resolveTcaseRef', () => {
    it('finds a case by id, seq, zero-padded seq and legacy id, and answers undefined otherwise', async () => {
      const p = await createProject(t);
      const a = await createTcase(t, p);
      const b = await createTcase(t, p);
      await t.db.updateTable('tcases').set({ legacy_id: 'LEG-9' }).where('id', '=', b.id).execute();
      const expected = { id: a.id, seq: a.seq, version: 1 };
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, a.id)).toEqual(expected);
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, String(a.seq))).toEqual(expected);
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, `00${a.seq}`)).toEqual(expected);
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, 'LEG-9')).toEqual({
        id: b.id,
        seq: b.seq,
        version: 1,
      });
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, '999')).toBeUndefined();
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, 'nosuchid')).toBeUndefined();
    });

    it('does not find a case of another project, nor a deleted one unless asked', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const a = await createTcase(t, p);
      expect(await resolveTcaseRef(t.db, t.tenantId, other.id, a.id)).toBeUndefined();
      expect((await t.del(`/project/${p.code}/tcase/${a.id}`)).status).toBe(200);
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, a.id)).toBeUndefined();
      expect(await resolveTcaseRef(t.db, t.tenantId, p.id, a.id, { includeDeleted: true })).toEqual({
        id: a.id,
        seq: a.seq,
        version: 1,
      });
    });

    it('answers the latest version after an edit', async () => {
      const p = await createProject(t);
      const a = await createTcase(t, p);
      await t.patch(`/project/${p.code}/tcase/${a.id}`, { title: 'Renamed' });
      expect((await resolveTcaseRef(t.db, t.tenantId, p.id, a.id))?.version).toBe(2);
    });
  });

  describe('selectMatchingTcaseIds', () => {
    it('selects standalone and filled published cases only, by folder (with subfolders), tag and priority', async () => {
      const p = await createProject(t);
      const top = await createFolder(t, p, ['Top']);
      const sub = await createFolder(t, p, ['Top', 'Sub']);
      const elsewhere = await createFolder(t, p, ['Elsewhere']);
      const s1 = await createTcase(t, p, { folderId: top, priority: 'high', tags: ['smoke'] });
      const s2 = await createTcase(t, p, { folderId: sub, priority: 'low', tags: ['smoke', 'slow'] });
      const s3 = await createTcase(t, p, { folderId: elsewhere, priority: 'high' });
      await createTcase(t, p, { folderId: top, isDraft: true, tags: ['smoke'] });
      const tpl = await createTcase(t, p, {
        folderId: sub,
        type: 'template',
        title: 'Login as ${role}',
        tags: ['smoke'],
        parameterValues: [{ values: { role: 'admin' } }],
      });
      const filled = (await t.get(`/project/${p.code}/tcase`, { query: { types: 'filled' } })).body.data[0]
        .id;
      const deleted = await createTcase(t, p, { folderId: top });
      await t.del(`/project/${p.code}/tcase/${deleted.id}`);

      const all = await selectMatchingTcaseIds(t.db, t.tenantId, p.id, {});
      expect(all).toEqual([s1.id, s2.id, s3.id, filled]);
      expect(all).not.toContain(tpl.id);

      expect(await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { folderIds: [top] })).toEqual([
        s1.id,
        s2.id,
        filled,
      ]);
      const smoke = (await t.get(`/project/${p.code}/tag`)).body.tags.find(
        (x: any) => x.title === 'smoke',
      ).id;
      expect(await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { tagIds: [smoke] })).toEqual([
        s1.id,
        s2.id,
        filled,
      ]);
      expect(
        await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { tagIds: [smoke], priorities: ['high'] }),
      ).toEqual([s1.id]);
      expect(
        await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { folderIds: [], tagIds: [], priorities: [] }),
      ).toEqual(all);
      expect(await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { folderIds: [987654] })).toEqual([]);
    });

    it('keeps given tcaseIds that qualify, narrows with onlyAmong and combines with filters', async () => {
      const p = await createProject(t);
      const a = await createTcase(t, p, { priority: 'high' });
      const b = await createTcase(t, p, { priority: 'low' });
      const draft = await createTcase(t, p, { isDraft: true });
      const ids = [b.id, a.id, draft.id, 'unknownid', b.id];
      expect(await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { tcaseIds: ids })).toEqual([a.id, b.id]);
      expect(
        await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { tcaseIds: ids, priorities: ['low'] }),
      ).toEqual([b.id]);
      expect(await selectMatchingTcaseIds(t.db, t.tenantId, p.id, {}, [b.id])).toEqual([b.id]);
      expect(await selectMatchingTcaseIds(t.db, t.tenantId, p.id, { tcaseIds: [a.id] }, [b.id])).toEqual([]);
      expect(await selectMatchingTcaseIds(t.db, t.tenantId, p.id, {}, [])).toEqual([]);
    });
  });

  describe('getTcaseAtVersion(s)', () => {
    it('answers every relation as of the asked version, old versions unchanged by later edits', async () => {
      const p = await createProject(t);
      const a = await createTcase(t, p, {
        title: 'First',
        priority: 'high',
        precondition: { text: '<p>pre 1</p>' },
        steps: [{ description: 'd1', expected: 'e1' }],
        tags: ['one'],
        links: [{ text: 'Doc', url: 'https://example.com/doc' }],
        requirements: [{ text: 'REQ-1', url: 'https://example.com/req/1' }],
      });
      await t.patch(`/project/${p.code}/tcase/${a.id}`, {
        title: 'Second',
        steps: [{ description: 'd2', expected: 'e2' }],
        tags: ['two'],
        precondition: { text: '<p>pre 2</p>' },
      });
      const v1 = await getTcaseAtVersion(t.db, t.app.ctx.files, t.tenantId, a.id, 1);
      expect(v1).toMatchObject({
        id: a.id,
        version: 1,
        title: 'First',
        priority: 'high',
        comment: '<p>pre 1</p>',
        isLatestVersion: false,
        precondition: { type: 'standalone', text: '<p>pre 1</p>' },
        steps: [{ type: 'standalone', description: 'd1', expected: 'e1', version: 1, isLatest: true }],
        tags: [{ title: 'one' }],
        links: [{ text: 'Doc', url: 'https://example.com/doc' }],
        requirements: [{ text: 'REQ-1', url: 'https://example.com/req/1' }],
        customFields: {},
        files: [],
      });
      const v2 = await getTcaseAtVersion(t.db, t.app.ctx.files, t.tenantId, a.id, 2);
      expect(v2).toMatchObject({
        version: 2,
        title: 'Second',
        isLatestVersion: true,
        steps: [{ description: 'd2' }],
        tags: [{ title: 'two' }],
        comment: '<p>pre 2</p>',
      });
      await expect(getTcaseAtVersion(t.db, t.app.ctx.files, t.tenantId, a.id, 3)).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });

      const batch = await getTcasesAtVersions(t.db, t.app.ctx.files, t.tenantId, [
        { tcaseId: a.id, version: 2 },
        { tcaseId: 'nosuchcase', version: 1 },
        { tcaseId: a.id, version: 1 },
      ]);
      expect(batch.map((c) => [c.id, c.version, c.title])).toEqual([
        [a.id, 2, 'Second'],
        [a.id, 1, 'First'],
      ]);
    });

    it('still answers for a deleted case (runs keep their results)', async () => {
      const p = await createProject(t);
      const a = await createTcase(t, p, { title: 'Gone soon' });
      await t.del(`/project/${p.code}/tcase/${a.id}`);
      expect((await getTcaseAtVersion(t.db, t.app.ctx.files, t.tenantId, a.id, 1)).title).toBe('Gone soon');
    });
  });
});
