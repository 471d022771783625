import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createFolder, createTcase, getTcase, uploadFile } from '../../../test/helpers/tcase-factories.js';
import {
  drain,
  fixture,
  generated,
  importFailingAtChunk,
  importFile,
  listCases,
  pathOf,
  postImport,
} from '../../../test/helpers/import-factories.js';
import { HeldLease } from '../../jobs/lease.js';
import { LeaseLost } from '../../outbox/handler.js';
import { claimJobs } from '../../outbox/outbox.js';
import { IMPORT_JOB, importJob } from './imports.job.js';
import { jobEnv } from '../../jobs/index.js';

describeEachDb('imports: chunks, failures and exports', (t) => {
  it('takes back what it wrote when a chunk fails part-way: cases created, versions added, folders created', async () => {
    const p = (await createProject(t)).code;
    // Before: one case (legacy id G-0) in Suite 0/Area 0, and an empty folder of its own.
    const first = await importFile(
      t,
      p,
      Buffer.from('Folder,Name,Legacy ID,Priority\r\nSuite 0/Area 0,Old title,G-0,high\r\n'),
    );
    expect(first).toMatchObject({ status: 'done', created: 1 });
    await createFolder(t, p, ['Kept']);
    const foldersBefore = (await t.get(`/project/${p}/tcase/folders`)).body.data;
    const [before] = await listCases(t, p);
    // The first chunk (500 cases: 499 new, G-0 changed, 26 new folders) commits; the second fails inside its
    // transaction.
    const id = await importFailingAtChunk(t, p, generated(700, 1), 2);
    const result = (await t.get(`/project/${p}/import/${id}`)).body;
    expect(result).toMatchObject({ status: 'failed', created: 0, updated: 0 });
    expect(result.errors.at(-1).message).toBe(
      'the import stopped part-way (the database went away); what it had written was taken back: ' +
        '499 test cases created, 1 test case changed, 26 folders created',
    );
    const after = await listCases(t, p);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: before.id,
      title: 'Old title',
      priority: 'high',
      steps: [],
      version: 3,
    });
    const versions = await t.get(`/project/${p}/tcase/${before.id}/versions`);
    expect(versions.body.versions.map((v: any) => v.version)).toEqual([3, 2, 1]);
    expect((await t.get(`/project/${p}/tcase/folders`)).body.data).toEqual(foldersBefore);
    expect(await t.db.selectFrom('import_created').selectAll().execute()).toEqual([]);
    expect(await t.db.selectFrom('import_folders').selectAll().execute()).toEqual([]);
    expect(await t.db.selectFrom('import_versions').selectAll().execute()).toEqual([]);
    await drain(t);
  });

  it('stops at its next chunk when another runner took its job over, and that runner finishes the import once', async () => {
    const p = (await createProject(t)).code;
    const started = await postImport(t, p, { format: 'qasphere-csv' }, generated(1200, 1));
    expect(started.status).toBe(202);
    const [job] = await claimJobs(t.db, {
      token: 'runner-a',
      nowMs: Date.now(),
      leaseMs: 60_000,
      limit: 1,
      kinds: [IMPORT_JOB],
    });
    const lease = new HeldLease(t.db, job, { leaseMs: 60_000, now: Date.now });
    // Checks: the start, pass 1's three chunks, then pass 2's: the second runner takes over after its first chunk.
    let checks = 0;
    const check = async () => {
      if (++checks === 6) {
        await t.db
          .updateTable('jobs')
          .set({ locked_until: new Date(Date.now() - 1000).toISOString() })
          .where('id', '=', job.id)
          .execute();
        await claimJobs(t.db, {
          token: 'runner-b',
          nowMs: Date.now(),
          leaseMs: 1,
          limit: 1,
          kinds: [IMPORT_JOB],
        });
      }
      return lease.check();
    };
    const handler = importJob.handler(jobEnv(t.config, t.app.ctx));
    const ctx = { lease: () => ({ held: () => lease.held(), write: lease.write.bind(lease), check }) };
    await expect(
      handler.run(t.db, [job], ctx as unknown as Parameters<typeof handler.run>[2]),
    ).rejects.toThrow(LeaseLost);
    // One chunk written, then nothing: not the second chunk, not an outcome.
    expect((await t.get(`/project/${p}/import/${started.body.id}`)).body).toMatchObject({
      status: 'running',
      progress: { done: 500 },
    });
    expect(await listCases(t, p)).toHaveLength(500);
    // runner-b "died" too (its lease ended at once): a runner takes the job and does the import once, whole.
    await drain(t);
    expect((await t.get(`/project/${p}/import/${started.body.id}`)).body).toMatchObject({
      status: 'done',
      created: 1200,
    });
    expect(await listCases(t, p)).toHaveLength(1200);
  });

  it('exports in QA Sphere layout and imports back into another project unchanged', async () => {
    const a = (await createProject(t)).code;
    expect((await importFile(t, a, fixture('qasphere-documented.csv'))).status).toBe('done');
    expect((await importFile(t, a, fixture('qasphere-library.csv'))).status).toBe('done');
    const folderId = await createFolder(t, a, ['Written here']);
    const evidence = await uploadFile(t, 'evidence, 1.txt');
    await createTcase(t, a, {
      folderId,
      files: [evidence],
      title: 'Made in Casebook, = not a formula',
      precondition: { text: '<p>Some <em>HTML</em> with a <a href="https://example.com/x">link</a></p>' },
      steps: [{ description: '<ol><li>one</li><li>two</li></ol>', expected: '<p>a &amp; b &lt; c</p>' }],
    });
    const exported = await t.get(`/project/${a}/export`, { query: { format: 'qasphere-csv' } });
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = exported.text.split('\r\n');
    expect(lines[0]).toBe(
      'Folder,Type,Name,Legacy ID,Draft,Priority,Tags,Requirements,Links,Files,Preconditions,Parameter Values,Template Suffix Params,Step 1,Expected 1,Step 2,Expected 2,Step 3,Expected 3',
    );
    expect(exported.text).toContain('Made in Casebook, = not a formula');
    // QA Sphere's Files cell: the case's files as JSON.
    const files = exported.text.match(/"(\[\{""fileName"".*?\}\])"/)![1].replaceAll('""', '"');
    expect(JSON.parse(files)).toEqual([
      expect.objectContaining({ fileName: 'evidence, 1.txt', id: evidence, mimeType: 'text/plain', size: 5 }),
    ]);

    // One normalisation (Markdown has one spelling of many HTML ones): A's export imported into B, B's into C.
    const b = (await createProject(t)).code;
    const back = await importFile(t, b, Buffer.from(exported.text));
    expect(back).toMatchObject({ status: 'done', created: 12, errors: [] });
    const fromB = await t.get(`/project/${b}/export`, { query: { format: 'qasphere-csv' } });
    expect(fromB.text).toBe(exported.text);
    const c = (await createProject(t)).code;
    expect((await importFile(t, c, Buffer.from(fromB.text))).created).toBe(12);
    const shape = (x: any) => [
      pathOf(x),
      x.title,
      x.legacyId,
      x.isDraft,
      x.priority,
      x.precondition.text,
      x.steps.map((s: any) => [s.description, s.expected]),
      x.tags.map((g: any) => g.title),
      x.requirements.map((r: any) => [r.text, r.url]),
      x.links,
    ];
    expect((await listCases(t, c)).map(shape)).toEqual((await listCases(t, b)).map(shape));
    const made = (await listCases(t, b)).find((x) => x.title === 'Made in Casebook, = not a formula');
    expect(made.steps[0].description).toBe('<ol><li>one</li><li>two</li></ol>');
    // The file is this service's: attached again, not turned into a link.
    expect((await getTcase(t, b, made.id)).files.map((f: any) => f.id)).toEqual([evidence]);
    expect(made.links).toEqual([]);
  });

  it('streams an export of a few thousand cases whole, folder by folder', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, generated(2000, 5));
    expect(result).toMatchObject({ status: 'done', created: 2000 });
    const res = await t.get(`/project/${p}/export`, { query: { format: 'qasphere-csv' } });
    expect(res.status).toBe(200);
    const rows = res.text.split('\r\n').filter((l) => l !== '');
    expect(rows).toHaveLength(2001);
    expect(rows[0].split(',').slice(13)).toEqual(
      [1, 2, 3, 4, 5].flatMap((s) => [`Step ${s}`, `Expected ${s}`]),
    );
    const ids = new Set(rows.slice(1).map((r) => /,standalone,"[^"]*(?:""[^"]*)*",(G-\d+),/.exec(r)?.[1]));
    expect(ids.size).toBe(2000);
    expect(rows[1]).toMatch(/^Suite 0\/Area 0,standalone,/);
  });

  it('refuses an export in an unknown format', async () => {
    const p = (await createProject(t)).code;
    const res = await t.get(`/project/${p}/export`, { query: { format: 'xlsx' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/format/);
  });
});

describeEachDb('imports: custom fields both ways', (t) => {
  it('exports custom field values as custom_field_<type>_<systemName> JSON cells and imports them back', async () => {
    const field = await t.post('/custom-field', {
      type: 'text',
      systemName: 'env_note',
      name: 'Environment note',
    });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    const a = (await createProject(t)).code;
    const folderId = await createFolder(t, a, ['With fields']);
    await createTcase(t, a, {
      folderId,
      title: 'Has a note',
      customFields: { env_note: { value: 'Staging, "EU"' } },
    });
    await createTcase(t, a, { folderId, title: 'Has none' });
    const exported = await t.get(`/project/${a}/export`, { query: { format: 'qasphere-csv' } });
    const [header, withNote, without] = exported.text.split('\r\n');
    expect(header.endsWith(',custom_field_text_env_note')).toBe(true);
    expect(withNote.endsWith(',"{""value"":""Staging, \\""EU\\"""",""isDefault"":false}"')).toBe(true);
    expect(without.endsWith(',')).toBe(true);

    const b = (await createProject(t)).code;
    const result = await importFile(t, b, Buffer.from(exported.text));
    expect(result).toMatchObject({ status: 'done', created: 2, errors: [] });
    const cases = (
      await t.get(`/project/${b}/tcase`, { query: { include: 'customFields', sortField: 'seq' } })
    ).body.data;
    expect(cases.map((c: any) => [c.title, c.customFields.env_note?.value])).toEqual([
      ['Has a note', 'Staging, "EU"'],
      ['Has none', undefined],
    ]);
  });
});
