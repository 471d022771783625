import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createFolder, getTcase } from '../../../test/helpers/tcase-factories.js';
import {
  drain,
  fixture,
  importFile,
  listCases,
  pathOf,
  postImport,
} from '../../../test/helpers/import-factories.js';

describeEachDb('imports: QA Sphere CSV', (t) => {
  let code: string;
  beforeAll(async () => {
    code = (await createProject(t)).code;
  });

  it('imports the documented layout (BOM, CRLF, quotes and new lines in cells, deep folders, 511-character titles) and lists the cases', async () => {
    const result = await importFile(t, code, fixture('qasphere-documented.csv'));
    expect(result).toMatchObject({
      status: 'done',
      created: 7,
      updated: 0,
      skipped: 0,
      errors: [],
      progress: { done: 7, total: 7 },
    });
    const cases = await listCases(t, code);
    expect(cases.map((c) => c.legacyId)).toEqual(['QS-1', 'QS-2', 'QS-3', 'QS-4', 'QS-5', 'QS-6', 'QS-7']);
    const [visa, transfer, dupA, dupB, long, noSteps, gaps] = cases;
    expect(pathOf(visa)).toBe('Checkout/Payments/Cards/Visa/3-D Secure');
    expect(visa.priority).toBe('high');
    expect(visa.tags.map((g: any) => g.title)).toEqual(['payments', 'smoke']);
    expect(visa.requirements.map((r: any) => [r.text, r.url])).toEqual([
      ['PAY-12', 'https://tracker.example.com/PAY-12'],
    ]);
    expect(visa.links).toEqual([
      { text: 'Spec, v2', url: 'https://docs.example.com/spec?a=1&b=2' },
      { text: 'Runbook', url: 'https://wiki.example.com/runbook' },
    ]);
    expect(visa.precondition.text).toBe(
      '<p>A <strong>signed-in</strong> customer with a basket of 2 items</p>',
    );
    expect(visa.steps).toHaveLength(3);
    expect(visa.steps[2].expected).toBe(
      '<p>The order is <strong>paid</strong>; a receipt e-mail is sent</p>',
    );
    expect(transfer.title).toBe('Zahlung mit Überweisung — «Ünïcödé» 支払い 🚀');
    // `[](url)` names the requirement by its URL; `[title]()` has none.
    expect(transfer.requirements.map((r: any) => [r.text, r.url])).toEqual([
      ['https://tracker.example.com/PAY-13', 'https://tracker.example.com/PAY-13'],
      ['Requirement without URL', ''],
    ]);
    expect(transfer.steps[0].expected).toBe('<p>Instructions appear:\nIBAN, BIC and the reference</p>');
    expect([dupA.title, dupB.title]).toEqual(['Duplicate name', 'Duplicate name']);
    expect(dupA.steps[0].description).toBe('<p>Step with, commas</p>');
    expect(dupB.isDraft).toBe(true);
    expect(dupB.precondition.text).toContain('<li>item one</li>');
    expect(long.title).toHaveLength(511);
    expect(noSteps.steps).toEqual([]);
    // An empty Step 1 / Expected 1 pair is padding, not a step.
    expect(gaps.steps.map((s: any) => s.description)).toEqual(['<p>Only the second step</p>']);
  });

  it('imports the same file a second time without changing anything', async () => {
    const before = await listCases(t, code);
    const result = await importFile(t, code, fixture('qasphere-documented.csv'));
    expect(result).toMatchObject({ status: 'done', created: 0, updated: 0, errors: [] });
    const after = await listCases(t, code);
    expect(after.map((c) => [c.id, c.version, c.updatedAt])).toEqual(
      before.map((c) => [c.id, c.version, c.updatedAt]),
    );
  });

  it('updates the case whose legacy id matches, as a new version, and publishes a draft', async () => {
    const csv = fixture('qasphere-documented.csv')
      .toString('utf8')
      .replace('Log in with e-mail, no steps yet', 'Log in with e-mail or a passkey')
      .replace('Preconditions over', 'Preconditions over')
      .replace(/QS-4,true/, 'QS-4,false');
    const result = await importFile(t, code, Buffer.from(csv));
    expect(result).toMatchObject({ status: 'done', created: 0, updated: 2 });
    const cases = await listCases(t, code);
    const renamed = cases.find((c) => c.legacyId === 'QS-6');
    expect(renamed).toMatchObject({ title: 'Log in with e-mail or a passkey', version: 2 });
    // Publishing is not versioned (D16).
    expect(cases.find((c) => c.legacyId === 'QS-4')).toMatchObject({ isDraft: false, version: 1 });
  });

  it("imports the qasphere-csv library's layout (one Steps column of JSON, [](url) and [title]() lists, LF)", async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('qasphere-library.csv'));
    expect(result).toMatchObject({ status: 'done', created: 4, errors: [] });
    const cases = await listCases(t, p);
    const special = cases.find((c) => c.legacyId === 'legacy-id-2');
    expect(special.title).toBe('tc-with-special-chars.,<>/@$%""\'\'*&()[]{}+-`!~;');
    expect(special.requirements[0].text).toBe('req.,<>/@$%""\'\'*&()[]{}+-`!~;');
    expect(special.links[0]).toEqual({ text: 'link-1.,<>/@$%""\'\'*&()[]{}+-`!~;', url: 'http://link1' });
    const partial = cases.find((c) => c.title === 'tc-with-partial-fields');
    expect(partial.steps.map((s: any) => [s.description, s.expected])).toEqual([
      ['<p>action-1</p>', ''],
      ['', '<p>expected-2</p>'],
    ]);
    expect(partial.isDraft).toBe(true);
  });

  it('reads a file separated by semicolons, the separator guessed from its header', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('qasphere-semicolon.csv'));
    expect(result).toMatchObject({ status: 'done', created: 2, errors: [] });
    const cases = await listCases(t, p);
    expect(cases.map((c) => [pathOf(c), c.title])).toEqual([
      ['Reports/Daily', 'Export; then re-import'],
      ['Reports', 'Totals use a comma, 1,5 %'],
    ]);
  });

  it('imports nothing from a file with bad rows and reports each by line with the reason', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('bad-rows.csv'));
    expect(result.status).toBe('failed');
    expect(result.created).toBe(0);
    expect(result.errors.map((e: any) => [e.row, e.field])).toEqual([
      [3, 'title'],
      [4, 'title'],
      [5, 'priority'],
      [6, 'Draft'],
      [7, 'links'],
      [8, 'folder'],
      [9, 'type'],
    ]);
    expect(result.errors[2].message).toBe('priority must be one of high, medium, low, not "very high"');
    expect(await listCases(t, p)).toEqual([]);
    const folders = await t.get(`/project/${p}/tcase/folders`);
    expect(folders.body.data).toEqual([]);
  });

  it("keeps QA Sphere's files of another service as links, warns about each, and refuses a Files cell that is not a JSON list", async () => {
    const p = (await createProject(t)).code;
    const files = JSON.stringify([
      {
        fileName: 'screen.png',
        id: 'qs-1',
        url: 'https://qas.example.com/file/qs-1',
        mimeType: 'image/png',
        size: 5,
      },
      { fileName: 'notes.txt', id: 'qs-2', url: '', mimeType: 'text/plain', size: 3 },
    ]).replaceAll('"', '""');
    const csv = `Folder,Name,Legacy ID,Files\r\nA,With files,F-1,"${files}"\r\nA,No files,F-2,\r\n`;
    const result = await importFile(t, p, Buffer.from(csv));
    expect(result).toMatchObject({ status: 'done', created: 2, errors: [] });
    expect(result.warnings).toEqual([
      {
        row: 2,
        field: 'Files',
        message: 'file "screen.png" is not in this service: kept as a link to its URL, not as an attachment',
      },
      {
        row: 2,
        field: 'Files',
        message: 'file "notes.txt" is not in this service and has no http(s) URL: left out',
      },
    ]);
    const [withFiles] = await listCases(t, p);
    expect(withFiles.links).toEqual([{ text: 'screen.png', url: 'https://qas.example.com/file/qs-1' }]);
    expect((await getTcase(t, p, withFiles.id)).files).toEqual([]);
    // Again: nothing changes (the link is there already), the warnings are given again.
    const again = await importFile(t, p, Buffer.from(csv));
    expect(again).toMatchObject({ status: 'done', created: 0, updated: 0 });
    expect(again.warnings).toHaveLength(2);

    const bad = await importFile(t, p, Buffer.from('Folder,Name,Files\r\nA,Bad,screen.png\r\n'));
    expect(bad.status).toBe('failed');
    expect(bad.errors).toEqual([
      {
        row: 2,
        field: 'Files',
        message: 'Files must be a JSON array of {"fileName", "id", "url", …} objects',
      },
    ]);
  });

  it('reports bad JSON in a Steps cell; an unknown custom field is no error, only a warning', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('bad-library.csv'));
    expect(result.status).toBe('failed');
    expect(result.errors).toEqual([
      {
        row: 2,
        field: 'Steps',
        message:
          'Steps must be a JSON array of steps ({"description", "expected", "data"}), {"sharedStepId"} ' +
          'or shared blocks ({"title", "subSteps"})',
      },
    ]);
    // An admin's import would create it; this one writes nothing, so the warning says "would be".
    expect(result.warnings).toContainEqual({
      row: 0,
      field: 'customField:no_such_field',
      message: expect.stringMatching(/^custom field "no_such_field" is not in Casebook: would be created as/),
    });
    expect(await listCases(t, p)).toEqual([]);
  });

  it('imports the good rows of a bad file when asked to skip the others', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('bad-rows.csv'), { skipInvalid: 'true' });
    expect(result).toMatchObject({ status: 'done', created: 2, skipped: 7 });
    expect(result.errors).toHaveLength(7);
    expect((await listCases(t, p)).map((c) => c.title)).toEqual(['A good case', 'Another good case']);
  });

  it('writes nothing on a dry run and says what would happen', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('qasphere-documented.csv'), { dryRun: 'true' });
    expect(result).toMatchObject({ status: 'done', dryRun: true, created: 7, updated: 0, errors: [] });
    expect(await listCases(t, p)).toEqual([]);
    expect((await t.get(`/project/${p}/tcase/folders`)).body.data).toEqual([]);
  });

  it('fails a truncated file as a whole and writes nothing', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('truncated.csv'));
    expect(result.status).toBe('failed');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].message).toMatch(/truncated/);
    expect(await listCases(t, p)).toEqual([]);
  });

  it('imports under a given folder', async () => {
    const p = (await createProject(t)).code;
    const folderId = await createFolder(t, p, ['Imported', 'From QA Sphere']);
    const result = await importFile(t, p, fixture('qasphere-semicolon.csv'), { folderId: String(folderId) });
    expect(result.status).toBe('done');
    expect((await listCases(t, p)).map(pathOf)).toEqual([
      'Imported/From QA Sphere/Reports/Daily',
      'Imported/From QA Sphere/Reports',
    ]);
  });

  it('refuses an unknown format, a csv without mapping and a missing file, naming the problem', async () => {
    const file = fixture('qasphere-semicolon.csv');
    const unknown = await postImport(t, code, { format: 'xls' }, file);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe(
      'format must be one of qasphere-csv, csv, xlsx, testrail-xml, testrail-csv, qase-json, testlink-xml, xray-csv, not "xls"',
    );
    const noMapping = await postImport(t, code, { format: 'csv' }, file);
    expect(noMapping.status).toBe(400);
    expect(noMapping.body.message).toMatch(/mapping/);
    const noFile = await postImport(t, code, { format: 'qasphere-csv' });
    expect(noFile.status).toBe(400);
    expect(noFile.body.message).toMatch(/file is missing/);
    const badFlag = await postImport(t, code, { format: 'qasphere-csv', dryRun: 'yes' }, file);
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.message).toBe('dryRun must be true or false');
    const rows = await t.db.selectFrom('imports').select('id').where('format', '=', 'xls').execute();
    expect(rows).toEqual([]);
  });

  it('answers 404 for an import of another project', async () => {
    const started = await postImport(
      t,
      code,
      { format: 'qasphere-csv', dryRun: 'true' },
      fixture('qasphere-semicolon.csv'),
    );
    const other = (await createProject(t)).code;
    const res = await t.get(`/project/${other}/import/${started.body.id}`);
    expect(res.status).toBe(404);
    await drain(t);
  });
});

describeEachDb('imports: any CSV with a mapping', (t) => {
  it('maps columns to fields and matches numbered steps with numbered expected results', async () => {
    const p = (await createProject(t)).code;
    const mapping = {
      Summary: 'title',
      Section: 'folder',
      Importance: 'priority',
      Labels: 'tags',
      Setup: 'precondition',
      Actions: 'steps',
      Results: 'expected',
      Key: 'legacyId',
    };
    const started = await postImport(
      t,
      p,
      { format: 'csv', mapping: JSON.stringify(mapping) },
      fixture('mapped.csv'),
    );
    expect(started.status).toBe(202);
    await drain(t);
    const result = (await t.get(`/project/${p}/import/${started.body.id}`)).body;
    expect(result).toMatchObject({ status: 'done', created: 2, errors: [] });
    const [search, none] = await listCases(t, p);
    expect(search).toMatchObject({ title: 'Search finds a product', priority: 'high', legacyId: 'EXT-1' });
    expect(pathOf(search)).toBe('Shop/Search');
    expect(search.tags.map((g: any) => g.title)).toEqual(['search', 'smoke']);
    expect(search.steps.map((s: any) => [s.description, s.expected])).toEqual([
      ['<p>Open the shop</p>', '<p>The shop opens</p>'],
      ['<p>Type "lamp" in the search box</p>', ''],
      ['<p>Press Enter</p>', '<p>Two lamps are listed</p>'],
    ]);
    expect(none.steps).toHaveLength(1);
    expect(none.priority).toBe('low');
  });

  it('refuses a mapping without a title column or with an unknown field', async () => {
    const p = (await createProject(t)).code;
    const noTitle = await postImport(
      t,
      p,
      { format: 'csv', mapping: '{"Section":"folder"}' },
      fixture('mapped.csv'),
    );
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.message).toBe('mapping must name the column holding the title (field "title")');
    const unknown = await postImport(
      t,
      p,
      { format: 'csv', mapping: '{"Summary":"name"}' },
      fixture('mapped.csv'),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/mapping of column "Summary"/);
  });
});

describeEachDb(
  'imports: the size limit',
  (t) => {
    it('refuses a file over the import limit with 413 and keeps nothing', async () => {
      const p = (await createProject(t)).code;
      // The data directory is shared by the databases' runs of this file: what matters is that nothing is added.
      const dir = path.join(t.config.dataDir, 'files', 'imports');
      const stored = () => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);
      const before = stored();
      const big = Buffer.from(`Folder,Name\r\n${'A,B\r\n'.repeat(2000)}`);
      const res = await postImport(t, p, { format: 'qasphere-csv' }, big);
      expect(res.status).toBe(413);
      expect(res.body.message).toBe('the file is larger than the import limit of 4096 bytes');
      expect(await t.db.selectFrom('imports').selectAll().execute()).toEqual([]);
      expect(stored()).toEqual(before);
      // A file within the limit goes through.
      const ok = await postImport(t, p, { format: 'qasphere-csv' }, Buffer.from('Folder,Name\r\nA,B\r\n'));
      expect(ok.status).toBe(202);
    });
  },
  { env: { CASEBOOK_IMPORT_MAX_BYTES: '4096' } },
);
