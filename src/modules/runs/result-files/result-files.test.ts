import { expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../../test/helpers/test-app.js';
import { createProject } from '../../../../test/helpers/factories.js';
import { addResult, createRun } from '../../../../test/helpers/run-factories.js';
import { createTcase } from '../../../../test/helpers/tcase-factories.js';
import { createTenant } from '../../tenants/tenants.service.js';
import { removePendingResultUploads, PENDING_RESULT_UPLOAD_MS } from './result-files.service.js';

/** extensions.md §8 "Attachments on results", docs/api-decisions.md#attachments-on-results. */
describeEachDb('attachments on results', (t) => {
  /** Uploads one file through `POST /file` (with `?purpose=result` when asked) and answers its id. */
  async function upload(t: TestEnv, name: string, purpose?: 'result', type = 'text/plain'): Promise<string> {
    const boundary = `----casebook${Math.random().toString(36).slice(2)}`;
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      `Content-Type: ${type}\r\n\r\ncontent of ${name}\r\n--${boundary}--\r\n`;
    const res = await t.request('POST', '/file', {
      body,
      query: purpose ? { purpose } : undefined,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  }

  const count = async (table: 'result_files' | 'results' | 'files') =>
    Number(
      (
        await t.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function setup() {
    const p = await createProject(t);
    const a = await createTcase(t, p);
    const b = await createTcase(t, p);
    const { id: runId } = await createRun(t, p, { tcaseIds: [a.id, b.id] });
    return { p, a, b, runId };
  }

  it('stores files on single and batch results and answers them on the run test case and the history', async () => {
    const { p, a, b, runId } = await setup();
    const shot = await upload(t, 'shot.png', 'result', 'image/png');
    const log = await upload(t, 'log.txt', 'result');
    const single = await t.post(`/project/${p.code}/run/${runId}/tcase/${a.id}/result`, {
      status: 'failed',
      files: [shot, log],
    });
    expect(single.status, JSON.stringify(single.body)).toBe(201);
    const other = await upload(t, 'other.txt');
    const batch = await t.post(`/project/${p.code}/run/${runId}/result/batch`, {
      items: [
        { tcaseId: b.id, status: 'passed', files: [other] },
        { tcaseId: a.id, status: 'passed' },
      ],
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);

    const detail = await t.get(`/project/${p.code}/run/${runId}/tcase/${a.id}`);
    expect(detail.status).toBe(200);
    const [first, second] = detail.body.results;
    expect(first.files).toEqual([
      {
        id: shot,
        fileName: 'shot.png',
        mimeType: 'image/png',
        size: 'content of shot.png'.length,
        url: `http://casebook.test/api/public/v0/file/${shot}`,
      },
      expect.objectContaining({ id: log, fileName: 'log.txt', mimeType: 'text/plain' }),
    ]);
    // A result without files is answered exactly as before: no `files` key at all.
    expect(second).not.toHaveProperty('files');
    const bDetail = await t.get(`/project/${p.code}/run/${runId}/tcase/${b.id}`);
    expect(bDetail.body.results[0].files.map((f: { id: string }) => f.id)).toEqual([other]);

    // The history shows each run's latest result: a's has no files (the key is left out), b's has one.
    const aHistory = await t.get(`/project/${p.code}/tcase/${a.id}/results`);
    expect(aHistory.status).toBe(200);
    expect(aHistory.body.results[0]).not.toHaveProperty('files');
    const bHistory = await t.get(`/project/${p.code}/tcase/${b.id}/results`);
    expect(bHistory.body.results[0].files).toEqual([
      expect.objectContaining({ id: other, fileName: 'other.txt' }),
    ]);
  });

  it('refuses unknown, foreign, repeated and too many files with a 400 naming the field, storing nothing', async () => {
    const { p, a, b, runId } = await setup();
    await createTenant(t.db, { id: 'other-files', name: 'Other', host: 'other-files.test' });
    await t.db
      .insertInto('files')
      .values({
        id: 'foreignfile1',
        tenant_id: 'other-files',
        storage_key: 'other-files/fo/foreignfile1',
        file_name: 'x.txt',
        mime_type: 'text/plain',
        size: 1,
        sha256: '0'.repeat(64),
        uploaded_by: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const mine = await upload(t, 'mine.txt', 'result');
    const before = { results: await count('results'), links: await count('result_files') };

    const unknown = await t.post(`/project/${p.code}/run/${runId}/tcase/${a.id}/result`, {
      status: 'failed',
      files: [mine, 'nosuchfile'],
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('/files/1');
    expect(JSON.stringify(unknown.body)).toContain('nosuchfile');

    const foreign = await t.post(`/project/${p.code}/run/${runId}/result/batch`, {
      items: [
        { tcaseId: b.id, status: 'passed', files: [mine] },
        { tcaseId: a.id, status: 'failed', files: ['foreignfile1'] },
      ],
    });
    expect(foreign.status).toBe(400);
    expect(JSON.stringify(foreign.body)).toContain('/items/1/files/0');

    const twice = await t.post(`/project/${p.code}/run/${runId}/tcase/${a.id}/result`, {
      status: 'failed',
      files: [mine, mine],
    });
    expect(twice.status).toBe(400);
    expect(JSON.stringify(twice.body)).toContain('more than once');

    const many = await t.post(`/project/${p.code}/run/${runId}/tcase/${a.id}/result`, {
      status: 'failed',
      files: Array.from({ length: 21 }, (_, i) => `f${i}`),
    });
    expect(many.status).toBe(400);
    expect(JSON.stringify(many.body)).toContain('files');

    expect({ results: await count('results'), links: await count('result_files') }).toEqual(before);
  });

  it("deleting the project takes its results' links to files, and the files stay", async () => {
    const { p, a, runId } = await setup();
    const kept = await upload(t, 'kept.txt', 'result');
    await addResult(t, p, runId, a.id, 'failed', { files: [kept] });
    const linksOf = () =>
      t.db.selectFrom('result_files').select('file_id').where('file_id', '=', kept).execute();
    expect(await linksOf()).toHaveLength(1);
    expect((await t.del(`/project/${p.code}`)).status).toBe(200);
    expect(await linksOf()).toEqual([]);
    expect((await t.get(`/file/${kept}`)).status).toBe(200);
  });

  it('upload purpose: only result is accepted', async () => {
    const boundary = '----casebookpurpose';
    const res = await t.request('POST', '/file', {
      body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\na\r\n--${boundary}--\r\n`,
      query: { purpose: 'case' },
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status).toBe(400);
  });

  it('the cleanup removes only pending purpose=result uploads older than 24 hours, bytes included', async () => {
    const { p, a, runId } = await setup();
    const attached = await upload(t, 'attached.png', 'result', 'image/png');
    const pendingOld = await upload(t, 'pending-old.txt', 'result');
    const pendingNew = await upload(t, 'pending-new.txt', 'result');
    const plainOld = await upload(t, 'cli-attachment.txt');
    await addResult(t, p, runId, a.id, 'passed');
    const res = await t.post(`/project/${p.code}/run/${runId}/tcase/${a.id}/result`, {
      status: 'failed',
      files: [attached],
    });
    expect(res.status).toBe(201);
    const files = t.app.ctx.files;
    const keyOf = async (id: string) =>
      (await t.db
        .selectFrom('files')
        .select(['storage', 'storage_key'])
        .where('id', '=', id)
        .executeTakeFirst()) ?? null;
    const pendingKey = (await keyOf(pendingOld))!;

    // The clock: two days on for everything but pendingNew, which is only an hour old then.
    const now = Date.now() + 2 * 86_400_000;
    await t.db
      .updateTable('files')
      .set({ created_at: new Date(now - PENDING_RESULT_UPLOAD_MS + 3_600_000).toISOString() })
      .where('id', '=', pendingNew)
      .execute();
    // Pending old uploads of the earlier tests (the refused results' "mine.txt") go too; nothing else does.
    const all = (await t.db.selectFrom('files').select(['id', 'purpose']).execute()).map((f) => f.id);
    const linked = new Set(
      (await t.db.selectFrom('result_files').select('file_id').execute()).map((r) => r.file_id),
    );
    const resultPurpose = (
      await t.db.selectFrom('files').select('id').where('purpose', '=', 'result').execute()
    ).map((f) => f.id);
    const expectedGone = resultPurpose.filter((id) => !linked.has(id) && id !== pendingNew);
    expect(expectedGone).toContain(pendingOld);
    const removed = await removePendingResultUploads(t.db, files, { nowMs: now, batchSize: 1 });
    expect(removed).toBe(expectedGone.length);
    const left = (await t.db.selectFrom('files').select('id').execute()).map((f) => f.id);
    expect(left.sort()).toEqual(all.filter((id) => !expectedGone.includes(id)).sort());
    expect(await keyOf(pendingOld)).toBeNull();
    expect(await files.storages.of(pendingKey.storage).get(pendingKey.storage_key)).toBeFalsy();
    for (const kept of [attached, pendingNew, plainOld]) expect(await keyOf(kept)).not.toBeNull();
    expect((await t.get(`/file/${attached}`)).status).toBe(200);
    expect((await t.get(`/file/${plainOld}`)).status).toBe(200);
    // A second pass finds nothing more.
    expect(await removePendingResultUploads(t.db, files, { nowMs: now })).toBe(0);
  });
});
