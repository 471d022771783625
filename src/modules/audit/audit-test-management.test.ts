import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { auditRows, createProject, userWithKey } from '../../../test/helpers/factories.js';
import { importFile } from '../../../test/helpers/import-factories.js';
import { listAuditActions } from './audit-actions.js';

/** The meta of every event of `action` recorded since `afterId`, oldest first. */
async function metas(t: TestEnv, action: string, afterId = 0) {
  return (await auditRows(t, action))
    .filter((r) => Number(r.id) > afterId)
    .map((r) => (r.meta === null ? null : JSON.parse(r.meta)));
}

async function lastEventId(t: TestEnv): Promise<number> {
  const row = await t.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** A project with `n` cases in the folder "Suite", made in one bulk request. */
async function casesIn(t: TestEnv, n: number) {
  const project = await createProject(t);
  const res = await t.post(`/project/${project.code}/tcase/bulk`, {
    folderPath: ['Suite'],
    tcases: Array.from({ length: n }, (_, i) => ({ title: `Case ${i + 1}`, tags: [] })),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const folders = await t.get(`/project/${project.code}/tcase/folders`);
  const folderId = folders.body.data.find((f: { title: string }) => f.title === 'Suite').id as number;
  return { project, folderId, tcases: res.body.tcases as { id: string; seq: number }[] };
}

describeEachDb('audit events of test-management changes', (t) => {
  describe('test cases', () => {
    it('records one tcase.created per request, naming the project, the count and the ids', async () => {
      const { project, folderId, tcases } = await casesIn(t, 3);
      const [bulk] = await metas(t, 'tcase.created', 0).then((all) => all.slice(-1));
      expect(bulk).toEqual({
        project_id: project.id,
        project_code: project.code,
        count: 3,
        tcase_ids: tcases.map((c) => c.id),
        folder_id: folderId,
      });

      const before = await lastEventId(t);
      const one = await t.post(`/project/${project.code}/tcase`, {
        title: 'Checkout works',
        type: 'standalone',
        folderId,
        priority: 'high',
      });
      expect(one.status, JSON.stringify(one.body)).toBe(201);
      expect(await metas(t, 'tcase.created', before)).toEqual([
        expect.objectContaining({ count: 1, tcase_ids: [one.body.id], title: 'Checkout works' }),
      ]);
      const [row] = (await auditRows(t, 'tcase.created')).slice(-1);
      expect(row.user_id).toBe(t.ownerId);
    });

    it('records an edit as tcase.updated with the fields given, and a move alone as tcase.moved', async () => {
      const { project, tcases } = await casesIn(t, 2);
      const other = await t.post(`/project/${project.code}/tcase/bulk`, {
        folderPath: ['Other'],
        tcases: [{ title: 'Elsewhere', tags: [] }],
      });
      expect(other.status).toBe(201);
      const folders = await t.get(`/project/${project.code}/tcase/folders`);
      const to = folders.body.data.find((f: { title: string }) => f.title === 'Other').id as number;
      const before = await lastEventId(t);

      const edit = await t.patch(`/project/${project.code}/tcase/${tcases[0].id}`, { title: 'Renamed' });
      expect(edit.status, JSON.stringify(edit.body)).toBe(200);
      const moveOne = await t.patch(`/project/${project.code}/tcase/${tcases[1].id}`, { folderId: to });
      expect(moveOne.status, JSON.stringify(moveOne.body)).toBe(200);

      expect(await metas(t, 'tcase.updated', before)).toEqual([
        expect.objectContaining({
          project_code: project.code,
          count: 1,
          tcase_ids: [tcases[0].id],
          title: 'Renamed',
          version: 2,
          fields: ['title'],
        }),
      ]);
      expect(await metas(t, 'tcase.moved', before)).toEqual([
        expect.objectContaining({ count: 1, tcase_ids: [tcases[1].id], folder_id: to, version: 1 }),
      ]);
    });

    it('records bulk moves, tags and deletions once per request, and nothing for a request that changed nothing', async () => {
      const { project, folderId, tcases } = await casesIn(t, 3);
      const ids = tcases.map((c) => c.id);
      const before = await lastEventId(t);

      const unchanged = await t.post(`/project/${project.code}/tcase/bulk/move`, { tcaseIds: ids, folderId });
      expect(unchanged.status, JSON.stringify(unchanged.body)).toBe(200);
      expect(unchanged.body.changed).toBe(0);
      expect(await metas(t, 'tcase.moved', before)).toEqual([]);

      const tagged = await t.post(`/project/${project.code}/tcase/bulk/tags`, {
        tcaseIds: ids,
        addTags: ['smoke'],
      });
      expect(tagged.status, JSON.stringify(tagged.body)).toBe(200);
      const deleted = await t.post(`/project/${project.code}/tcase/bulk/delete`, {
        tcaseIds: ids.slice(0, 2),
      });
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);

      expect(await metas(t, 'tcase.updated', before)).toEqual([
        expect.objectContaining({ count: 3, fields: ['tags'], added_tags: ['smoke'], removed_tags: [] }),
      ]);
      expect(await metas(t, 'tcase.deleted', before)).toEqual([
        expect.objectContaining({ count: 2, tcase_ids: expect.arrayContaining(ids.slice(0, 2)) }),
      ]);

      const one = await t.del(`/project/${project.code}/tcase/${ids[2]}`);
      expect(one.status).toBe(200);
      expect((await metas(t, 'tcase.deleted', before)).at(-1)).toEqual(
        expect.objectContaining({ count: 1, tcase_ids: [ids[2]], title: 'Case 3' }),
      );
    });

    it('records nothing when a request is refused', async () => {
      const { project, folderId } = await casesIn(t, 1);
      const before = await lastEventId(t);
      const refused = await t.post(`/project/${project.code}/tcase`, {
        title: '  ',
        type: 'standalone',
        folderId,
      });
      expect(refused.status).toBe(400);
      const viewer = await userWithKey(t, 'viewer');
      const forbidden = await t.post(
        `/project/${project.code}/tcase/bulk`,
        { folderPath: ['X'], tcases: [{ title: 'No', tags: [] }] },
        { key: viewer.key },
      );
      expect(forbidden.status).toBe(403);
      expect(await lastEventId(t)).toBe(before);
    });
  });

  describe('runs, results and milestones', () => {
    it('records run.created, results.recorded per request with its statuses, and run.closed', async () => {
      const { project, tcases } = await casesIn(t, 4);
      const before = await lastEventId(t);
      const run = await t.post(`/project/${project.code}/run`, {
        title: 'Nightly',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: tcases.map((c) => c.id) }],
      });
      expect(run.status, JSON.stringify(run.body)).toBe(201);
      const runId = run.body.id as number;

      const single = await t.post(`/project/${project.code}/run/${runId}/tcase/${tcases[0].id}/result`, {
        status: 'passed',
      });
      expect(single.status, JSON.stringify(single.body)).toBe(201);
      const batch = await t.post(`/project/${project.code}/run/${runId}/result/batch`, {
        items: [
          { tcaseId: tcases[1].id, status: 'failed' },
          { tcaseId: tcases[2].id, status: 'failed' },
          { tcaseId: tcases[3].id, status: 'blocked' },
        ],
      });
      expect(batch.status, JSON.stringify(batch.body)).toBe(201);
      const closed = await t.post(`/project/${project.code}/run/${runId}/close`);
      expect(closed.status, JSON.stringify(closed.body)).toBe(200);

      expect(await metas(t, 'run.created', before)).toEqual([
        {
          project_id: project.id,
          run_id: runId,
          run_title: 'Nightly',
          run_type: 'static_struct',
          tcase_count: 4,
        },
      ]);
      expect(await metas(t, 'results.recorded', before)).toEqual([
        { project_id: project.id, run_id: runId, count: 1, statuses: { passed: 1 } },
        { project_id: project.id, run_id: runId, count: 3, statuses: { failed: 2, blocked: 1 } },
      ]);
      expect(await metas(t, 'run.closed', before)).toEqual([
        { project_id: project.id, run_id: runId, run_title: 'Nightly' },
      ]);
    });

    it('records milestone.created with its title and due date', async () => {
      const project = await createProject(t);
      const before = await lastEventId(t);
      const res = await t.post(`/project/${project.code}/milestone`, {
        title: 'Release 2.0',
        due: '2027-01-31',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await metas(t, 'milestone.created', before)).toEqual([
        {
          project_id: project.id,
          project_code: project.code,
          milestone_id: res.body.id,
          milestone_title: 'Release 2.0',
          due: '2027-01-31',
        },
      ]);
    });
  });

  describe('imports and exports', () => {
    it('records project.imported when an import is done, with what it created, and project.exported per download', async () => {
      const project = await createProject(t);
      const before = await lastEventId(t);
      const csv = Buffer.from('Folder,Name\r\nImported,First\r\nImported,Second\r\n');
      const done = await importFile(t, project.code, csv);
      expect(done.status, JSON.stringify(done)).toBe('done');
      expect(await metas(t, 'project.imported', before)).toEqual([
        expect.objectContaining({
          project_code: project.code,
          import_id: done.id,
          format: 'qasphere-csv',
          created: 2,
          updated: 0,
          skipped: 0,
        }),
      ]);

      const csvOut = await t.get(`/project/${project.code}/export`, { query: { format: 'qasphere-csv' } });
      expect(csvOut.status).toBe(200);
      const archive = await t.get(`/project/${project.code}/export`, { query: { format: 'casebook' } });
      expect(archive.status).toBe(200);
      expect(await metas(t, 'project.exported', before)).toEqual([
        { project_id: project.id, project_code: project.code, format: 'qasphere-csv' },
        { project_id: project.id, project_code: project.code, format: 'casebook' },
      ]);
    });
  });

  describe('GET /audit-logs/actions', () => {
    it("lists every action with the viewer's words, the contract's marked, for admins only", async () => {
      const res = await t.get('/audit-logs/actions');
      expect(res.status).toBe(200);
      expect(res.body.actions).toEqual(listAuditActions());
      const byAction = new Map(res.body.actions.map((a: { action: string }) => [a.action, a]));
      expect(byAction.get('login')).toEqual({
        action: 'login',
        area: 'Sign-in',
        label: 'Signed in',
        contract: true,
      });
      expect(byAction.get('tcase.created')).toMatchObject({ area: 'Test cases', contract: false });
      const tester = await userWithKey(t, 'test-runner');
      expect((await t.get('/audit-logs/actions', { key: tester.key })).status).toBe(403);
    });

    it('names every action stored by the tests above', async () => {
      const known = new Set(listAuditActions().map((a) => a.action as string));
      const stored = await t.db.selectFrom('audit_events').select('action').distinct().execute();
      expect(stored.map((r) => r.action).filter((a) => !known.has(a))).toEqual([]);
    });
  });
});
