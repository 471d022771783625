import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createFolder, createTcase, getTcase } from '../../../test/helpers/tcase-factories.js';
import { importFailingAtChunk, importFile } from '../../../test/helpers/import-factories.js';

/* QA Sphere CSV's template rows: a template and the filled cases its Parameter Values make. */

const HEADER =
  'Folder,Type,Name,Legacy ID,Draft,Priority,Tags,Requirements,Links,Files,Preconditions,Parameter Values,Template Suffix Params,Step 1,Expected 1';
const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
/** A QA Sphere CSV of the given rows (cells by column name; the others empty). */
function csv(rows: Record<string, string>[]): Buffer {
  const columns = HEADER.split(',');
  const lines = rows.map((r) => columns.map((c) => cell(r[c] ?? '')).join(','));
  return Buffer.from([HEADER, ...lines].join('\r\n') + '\r\n');
}
const values = (...sets: Record<string, string>[]) => JSON.stringify(sets.map((v) => ({ values: v })));
const LOGIN = {
  Folder: 'Auth',
  Type: 'template',
  Name: 'Log in as ${role} on ${browser}',
  'Legacy ID': 'T-1',
  Priority: 'high',
  Preconditions: '${role} exists',
  'Parameter Values': values({ role: 'admin', browser: 'chrome' }, { role: 'guest', browser: 'firefox' }),
  'Template Suffix Params': 'browser',
  'Step 1': 'open ${browser}',
  'Expected 1': 'welcome ${role}',
};
const STANDALONE = { Folder: 'Auth', Name: 'Log out', 'Legacy ID': 'S-1', Priority: 'low' };

describeEachDb('imports: QA Sphere CSV template rows', (t) => {
  const all = async (code: string) =>
    (
      await t.get(`/project/${code}/tcase`, {
        query: { limit: 1000, include: 'steps,precondition,tags,parameterValues', sortField: 'seq' },
      })
    ).body.data as any[];
  const versionsOf = async (code: string, id: string) =>
    (await t.get(`/project/${code}/tcase/${id}/versions`)).body.versions.map((v: any) => v.version);

  it('exports a template with its Parameter Values and imports it back as the template and its filled cases; the second export is the same file', async () => {
    const a = (await createProject(t)).code;
    const auth = await createFolder(t, a, ['Auth']);
    const sub = await createFolder(t, a, ['Auth', 'Roles']);
    await createTcase(t, a, { folderId: auth, title: 'Log out', priority: 'low', tags: ['auth'] });
    await createTcase(t, a, {
      folderId: auth,
      type: 'template',
      title: 'Log in as ${role} on ${browser}',
      priority: 'high',
      precondition: { text: '<p>${role} exists</p>' },
      steps: [{ description: '<p>open ${browser}</p>', expected: '<p>welcome <strong>${role}</strong></p>' }],
      tags: ['auth', 'smoke'],
      filledTCaseTitleSuffixParams: ['browser'],
      parameterValues: [
        { values: { role: 'admin', browser: 'chrome' } },
        { values: { role: 'guest', browser: 'firefox' } },
      ],
    });
    await createTcase(t, a, { folderId: sub, title: 'Roles are listed', isDraft: true });
    const exported = await t.get(`/project/${a}/export`, { query: { format: 'qasphere-csv' } });
    expect(exported.status).toBe(200);
    const lines = exported.text.split('\r\n');
    // Filled cases are no rows: the template's Parameter Values make them.
    expect(lines).toHaveLength(1 + 3 + 1);
    expect(lines[2]).toBe(
      'Auth,template,Log in as ${role} on ${browser},,false,high,"auth,smoke",,,,${role} exists,' +
        '"[{""values"":{""role"":""admin"",""browser"":""chrome""}},{""values"":{""role"":""guest"",""browser"":""firefox""}}]",' +
        'browser,open ${browser},welcome **${role}**',
    );

    const b = (await createProject(t)).code;
    const back = await importFile(t, b, Buffer.from(exported.text));
    // A template counts once, as a row of the file: its filled cases are not counted.
    expect(back).toMatchObject({ status: 'done', created: 3, updated: 0, skipped: 0, errors: [] });
    const shape = (c: any) => [
      c.type,
      c.title,
      c.priority,
      c.isDraft,
      c.precondition.text,
      c.steps.map((s: any) => [s.description, s.expected]),
      c.tags.map((g: any) => g.title),
      c.type === 'template'
        ? [c.filledTCaseTitleSuffixParams, c.parameterValues.map((p: any) => p.values)]
        : [],
    ];
    const [fromA, fromB] = [await all(a), await all(b)];
    expect(fromB.map(shape)).toEqual(fromA.map(shape));
    const template = fromB.find((c) => c.type === 'template');
    const filled = fromB.filter((c) => c.type === 'filled');
    expect(filled.map((f) => [f.seq, f.title, f.templateTCaseId, f.steps[0].description])).toEqual([
      [template.seq + 1, 'Log in as admin on chrome [chrome]', template.id, '<p>open chrome</p>'],
      [template.seq + 2, 'Log in as guest on firefox [firefox]', template.id, '<p>open firefox</p>'],
    ]);
    expect((await getTcase(t, b, template.id)).numFilledTCases).toBe(2);

    const again = await t.get(`/project/${b}/export`, { query: { format: 'qasphere-csv' } });
    expect(again.text).toBe(exported.text);
  });

  it('imports the same file twice: the second time nothing changes (no new versions, no new filled cases)', async () => {
    const p = (await createProject(t)).code;
    const dry = await importFile(t, p, csv([LOGIN, STANDALONE]), { dryRun: 'true' });
    expect(dry).toMatchObject({ status: 'done', dryRun: true, created: 2, updated: 0 });
    expect(await all(p)).toEqual([]);

    expect(await importFile(t, p, csv([LOGIN, STANDALONE]))).toMatchObject({
      status: 'done',
      created: 2,
      updated: 0,
      errors: [],
    });
    const before = await all(p);
    expect(before.map((c) => [c.type, c.title, c.legacyId])).toEqual([
      ['template', 'Log in as ${role} on ${browser}', 'T-1'],
      ['filled', 'Log in as admin on chrome [chrome]', ''],
      ['filled', 'Log in as guest on firefox [firefox]', ''],
      ['standalone', 'Log out', 'S-1'],
    ]);
    const second = await importFile(t, p, csv([LOGIN, STANDALONE]));
    expect(second).toMatchObject({ status: 'done', created: 0, updated: 0, errors: [] });
    const after = await all(p);
    expect(after.map((c) => [c.id, c.version, c.updatedAt])).toEqual(
      before.map((c) => [c.id, c.version, c.updatedAt]),
    );
    // The same entries in another order and with the keys in another order are the same filled cases.
    const reordered = {
      ...LOGIN,
      'Parameter Values': values({ browser: 'firefox', role: 'guest' }, { browser: 'chrome', role: 'admin' }),
    };
    expect(await importFile(t, p, csv([reordered]))).toMatchObject({ created: 0, updated: 0 });
    expect((await all(p)).map((c) => [c.id, c.version])).toEqual(before.map((c) => [c.id, c.version]));
  });

  it("replaces a template's filled set as PATCH does: equal values keep their filled case, others are created, unlisted ones deleted", async () => {
    const p = (await createProject(t)).code;
    await importFile(t, p, csv([LOGIN]));
    const [template, admin, guest] = await all(p);
    const changed = {
      ...LOGIN,
      'Step 1': 'open ${browser} and sign in',
      'Parameter Values': values({ role: 'admin', browser: 'chrome' }, { role: 'guest', browser: 'safari' }),
    };
    expect(await importFile(t, p, csv([changed]))).toMatchObject({ status: 'done', created: 0, updated: 1 });
    const after = await all(p);
    expect(after.map((c) => [c.id, c.type, c.title, c.version, c.steps[0].description])).toEqual([
      [template.id, 'template', template.title, 2, '<p>open ${browser} and sign in</p>'],
      [admin.id, 'filled', admin.title, 2, '<p>open chrome and sign in</p>'],
      [
        expect.any(String),
        'filled',
        'Log in as guest on safari [safari]',
        1,
        '<p>open safari and sign in</p>',
      ],
    ]);
    expect(after[2].id).not.toBe(guest.id);
    expect((await t.get(`/project/${p}/tcase/${guest.id}`)).status).toBe(404);
    // Only the values changed: the template keeps its version and counts as updated.
    const fewer = { ...changed, 'Parameter Values': values({ role: 'admin', browser: 'chrome' }) };
    expect(await importFile(t, p, csv([fewer]))).toMatchObject({ created: 0, updated: 1 });
    expect((await all(p)).map((c) => [c.id, c.version])).toEqual([
      [template.id, 2],
      [admin.id, 2],
    ]);
    // An empty cell (a hand-made file without the column) keeps the filled cases, as PATCH without the field;
    // `[]` says there are none.
    expect(await importFile(t, p, csv([{ ...fewer, 'Parameter Values': '' }]))).toMatchObject({ updated: 0 });
    expect((await all(p)).map((c) => c.id)).toEqual([template.id, admin.id]);
    expect(await importFile(t, p, csv([{ ...fewer, 'Parameter Values': '[]' }]))).toMatchObject({
      updated: 1,
    });
    expect((await all(p)).map((c) => c.id)).toEqual([template.id]);
  });

  it('takes back filled cases too when the import fails part-way: new ones deleted, dropped ones restored, changed ones as they were', async () => {
    const p = (await createProject(t)).code;
    await importFile(t, p, csv([LOGIN]));
    const before = await all(p);
    const [template, admin, guest] = before;
    // The first chunk of 500 rows: the template changed (a new step text, guest/firefox dropped, guest/safari
    // new), a new template with one filled case, and 498 standalone rows; the second chunk fails.
    const file = csv([
      {
        ...LOGIN,
        'Step 1': 'open ${browser} first',
        'Parameter Values': values(
          { role: 'admin', browser: 'chrome' },
          { role: 'guest', browser: 'safari' },
        ),
      },
      {
        Folder: 'New',
        Type: 'template',
        Name: 'Pay with ${card}',
        'Parameter Values': values({ card: 'Visa' }),
      },
      ...Array.from({ length: 600 }, (_, i) => ({
        Folder: 'Bulk',
        Name: `Case ${i}`,
        'Legacy ID': `G-${i}`,
      })),
    ]);
    const id = await importFailingAtChunk(t, p, file, 2);
    const result = (await t.get(`/project/${p}/import/${id}`)).body;
    expect(result).toMatchObject({ status: 'failed', created: 0, updated: 0 });
    // Created: 498 standalone, the new template and its filled case, guest/safari; changed: template and admin.
    expect(result.errors.at(-1).message).toBe(
      'the import stopped part-way (the database went away); what it had written was taken back: ' +
        '501 test cases created, 2 test cases changed, 1 filled test case deleted, 2 folders created',
    );
    const after = await all(p);
    expect(after.map((c) => [c.id, c.type, c.title, c.steps[0].description, c.isDraft])).toEqual(
      before.map((c) => [c.id, c.type, c.title, c.steps[0].description, c.isDraft]),
    );
    // The restored guest/firefox case is whole again: its template lists it, its search document is back.
    expect((await getTcase(t, p, template.id)).parameterValues.map((v: any) => v.tcaseId)).toEqual([
      admin.id,
      guest.id,
    ]);
    const found = await t.get(`/project/${p}/tcase`, { query: { search: 'firefox' } });
    expect(found.body.data.map((c: any) => c.id)).toEqual([guest.id]);
    expect(await versionsOf(p, template.id)).toEqual([3, 2, 1]);
    expect(await versionsOf(p, admin.id)).toEqual([3, 2, 1]);
    expect(await versionsOf(p, guest.id)).toEqual([1]);
    expect(await t.db.selectFrom('import_created').selectAll().execute()).toEqual([]);
    expect(await t.db.selectFrom('import_versions').selectAll().execute()).toEqual([]);
  });

  it('refuses bad template rows before writing anything, each by line and field; skipInvalid imports the good ones', async () => {
    const p = (await createProject(t)).code;
    await importFile(t, p, csv([LOGIN, STANDALONE]));
    const before = await all(p);
    const file = csv([
      /* 2 */ { ...LOGIN, 'Legacy ID': 'T-2', 'Parameter Values': '{"role": "admin"}' },
      /* 3 */ {
        ...LOGIN,
        'Legacy ID': 'T-3',
        'Parameter Values': '[{"values": {"role": "admin", "browser": 1}}]',
      },
      /* 4 */ { ...LOGIN, 'Legacy ID': 'T-4', 'Parameter Values': '[null]' },
      /* 5 */ { ...LOGIN, 'Legacy ID': 'T-5', 'Parameter Values': values({ role: 'admin' }) },
      /* 6 */ {
        ...LOGIN,
        'Legacy ID': 'T-6',
        'Template Suffix Params': 'os',
        'Parameter Values': values({ role: 'a', browser: 'b' }),
      },
      /* 7 */ { ...STANDALONE, 'Legacy ID': 'S-7', 'Parameter Values': values({ role: 'admin' }) },
      /* 8 */ { ...LOGIN, 'Legacy ID': 'S-1' },
      /* 9 */ { ...STANDALONE, 'Legacy ID': 'T-1', Type: 'standalone' },
      /* 10 */ { ...LOGIN, 'Legacy ID': 'T-10', 'Template Suffix Params': '["browser", 2]' },
      // Good: a value the template never uses is kept, as the API keeps it.
      /* 11 */ {
        ...LOGIN,
        'Legacy ID': 'T-11',
        'Parameter Values': values({ role: 'r', browser: 'b', os: 'linux' }),
      },
    ]);
    const failed = await importFile(t, p, file);
    expect(failed).toMatchObject({ status: 'failed', created: 0, updated: 0 });
    expect(failed.errors.map((e: any) => [e.row, e.field])).toEqual([
      [2, 'Parameter Values'],
      [3, 'Parameter Values'],
      [4, 'Parameter Values'],
      [5, 'Parameter Values'],
      [5, 'Parameter Values'],
      [6, 'Parameter Values'],
      [7, 'Parameter Values'],
      [8, 'type'],
      [9, 'type'],
      [10, 'Template Suffix Params'],
    ]);
    const messages = failed.errors.map((e: any) => e.message);
    expect(messages[0]).toBe(
      'Parameter Values must be a JSON array like [{"values": {"browser": "Chrome"}}]',
    );
    expect(messages[1]).toBe(
      'Parameter Values entry 1 must be an object of text values, like {"values": {"browser": "Chrome"}}',
    );
    expect(messages.slice(3, 6)).toEqual([
      'no value for the placeholder ${browser} (Parameter Values entry 1)',
      'no value for the title suffix parameter "browser" (Parameter Values entry 1)',
      'no value for the title suffix parameter "os" (Parameter Values entry 1)',
    ]);
    expect(messages[6]).toBe("Parameter Values are for templates only: the row's Type must be template");
    expect(messages[7]).toBe('legacy id "S-1" is on a standalone test case, but the row\'s Type is template');
    expect(messages[8]).toBe('legacy id "T-1" is on a template test case, but the row\'s Type is standalone');
    expect(await all(p)).toEqual(before);

    const dry = await importFile(t, p, file, { dryRun: 'true', skipInvalid: 'true' });
    expect(dry).toMatchObject({ status: 'done', created: 1, updated: 0, skipped: 9 });
    const skipped = await importFile(t, p, file, { skipInvalid: 'true' });
    expect(skipped).toMatchObject({ status: 'done', created: 1, updated: 0, skipped: 9 });
    const made = (await all(p)).filter((c) => !before.some((b) => b.id === c.id));
    expect(made.map((c) => [c.type, c.title])).toEqual([
      ['template', 'Log in as ${role} on ${browser}'],
      ['filled', 'Log in as r on b [b]'],
    ]);
    expect(made[0].parameterValues[0].values).toEqual({ role: 'r', browser: 'b', os: 'linux' });
  });
});
