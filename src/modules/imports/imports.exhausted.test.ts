import { gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { drain, generated, listCases, postImport } from '../../../test/helpers/import-factories.js';
import { exportArchive, postArchive } from '../../../test/helpers/archive-factories.js';
import { EXHAUSTED } from '../../outbox/outbox.js';
import { PROJECT_IMPORT_JOB } from './archive/archive.service.js';
import { IMPORT_JOB } from './imports.job.js';
import { runImport } from './imports.pipeline.js';
import { LeaseLost } from '../../outbox/handler.js';

/*
 * An import whose worker stopped answering on every attempt (each attempt's lease expired) is not started again:
 * its job fails, and the import says so instead of staying running for ever.
 */

/** Leaves the import's job as its last attempt's dead runner did: running, its lease expired, no attempt left. */
async function diedOnLastAttempt(t: TestEnv, kind: string, importId: number) {
  const jobs = await t.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', kind).execute();
  const job = jobs.find((j) => (JSON.parse(j.payload) as { importId: number }).importId === importId)!;
  await t.db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      attempts: eb.ref('max_attempts'),
      locked_by: 'dead-runner',
      locked_until: new Date(Date.now() - 1000).toISOString(),
    }))
    .where('id', '=', job.id)
    .execute();
  return job.id;
}

describeEachDb('imports whose worker stopped answering on every attempt', (t) => {
  it('ends a test case import failed, saying why, and does not run it a fourth time', async () => {
    const p = (await createProject(t)).code;
    const started = await postImport(t, p, { format: 'qasphere-csv' }, generated(3, 1));
    expect(started.status).toBe(202);
    const id = started.body.id as number;
    await t.db
      .updateTable('imports')
      .set({ status: 'running', run_token: 'dead-attempt' })
      .where('id', '=', id)
      .execute();
    const jobId = await diedOnLastAttempt(t, IMPORT_JOB, id);
    await drain(t);
    const res = await t.get(`/project/${p}/import/${id}`);
    expect(res.body).toMatchObject({ status: 'failed', created: 0 });
    expect(res.body.errors.at(-1)).toEqual({
      row: 0,
      message:
        'the import was stopped: its worker stopped answering 3 times (the server restarted or stalled while it ran); start it again',
    });
    expect(res.body.finishedAt).toEqual(expect.any(String));
    const job = await t.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'failed', attempts: 3, last_error: EXHAUSTED });
  });

  it('takes back what its dead attempts wrote, once its attempts ran out, and removes its file', async () => {
    const p = (await createProject(t)).code;
    const started = await postImport(t, p, { format: 'qasphere-csv' }, generated(1200, 1));
    expect(started.status).toBe(202);
    const id = started.body.id as number;
    const row = await t.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const storage = t.app.ctx.files.storages.of(row.file_storage ?? 'local');
    // An attempt that wrote its first chunk, then lost its job (its runner stalled past the lease).
    const done = async () =>
      (await t.db.selectFrom('imports').select('done').where('id', '=', id).executeTakeFirstOrThrow()).done;
    await runImport(
      t.db,
      id,
      { open: async () => (await storage.get(row.file_key!))!, parsers: t.app.ctx.parsers },
      t.app.ctx.tcasesChanged,
      async () => {
        if ((await done()) >= 500) throw new LeaseLost(0);
      },
    );
    expect(await listCases(t, p)).toHaveLength(500);
    await diedOnLastAttempt(t, IMPORT_JOB, id);
    await drain(t);
    const res = await t.get(`/project/${p}/import/${id}`);
    expect(res.body).toMatchObject({ status: 'failed', created: 0 });
    expect(res.body.errors.map((e: { message: string }) => e.message)).toEqual([
      'the import was stopped: its worker stopped answering 3 times (the server restarted or stalled while it ran); start it again',
      'the import was not finished; what it had written was taken back: 500 test cases created, 0 test cases changed, 28 folders created',
    ]);
    expect(await listCases(t, p)).toEqual([]);
    expect(await storage.get(row.file_key!)).toBeUndefined();
  });

  it('ends a project import failed, saying why, and does not run it a third time', async () => {
    const project = await createProject(t, { title: 'Source' });
    const archive = await exportArchive(t, project.code);
    expect(gunzipSync(archive.bytes).length).toBeGreaterThan(0);
    const started = await postArchive(t, archive.bytes, { code: 'GONE' });
    expect(started.status).toBe(202);
    const id = started.body.id as number;
    await t.db.updateTable('project_imports').set({ status: 'running' }).where('id', '=', id).execute();
    const jobId = await diedOnLastAttempt(t, PROJECT_IMPORT_JOB, id);
    await drain(t);
    const res = await t.get(`/import/${id}`);
    expect(res.body).toMatchObject({
      status: 'failed',
      error:
        'the import was stopped: its worker stopped answering 2 times (the server restarted or stalled while it ran); start it again',
    });
    expect(res.body.project).toBeUndefined();
    expect((await t.get('/project/GONE')).status).toBe(404);
    const job = await t.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'failed', attempts: 2, last_error: EXHAUSTED });
  });
});
