import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { importFile, listCases, pathOf, postImport } from '../../../test/helpers/import-factories.js';

/*
 * A spreadsheet as teams keep one (TestRail's sample layout: sections as `A > B`, a step a row under its case,
 * priorities named as Jira and TestRail name them), through the generic mapping with values mapped.
 */

const SHEET = [
  'Case ID,Title,Section,Prio,Component,Steps,Expected Result,Notes,Owner',
  'TR-1,Sign in with a password,Accounts > Sign-in,Critical,Web,Open the sign-in page,The form shows,,ann',
  ',,,,,Type the password and press Enter,The dashboard opens,,',
  'TR-2,Sign out,Accounts > Sign-in,Major,web app,Press Sign out,The sign-in page shows,Flaky on Safari,ann',
  'TR-3,Reset a password,Accounts > Recovery,Minor,Mail,Ask for a reset,A mail arrives,,bob',
  'TR-4,Change the e-mail,Accounts,Normal,Web,,,,bob',
  'TR-5,Export the data,Accounts,Urgent-ish,Web,,,,bob',
].join('\n');

const MAPPING = {
  'Case ID': 'legacyId',
  Title: 'title',
  Section: { field: 'folder', separator: ' > ' },
  Prio: 'priority',
  Component: {
    field: 'customField:component',
    values: { Web: 'Web app', 'web app': 'Web app', Mail: 'E-mail' },
  },
  Steps: 'steps',
  'Expected Result': 'expected',
  Owner: 'skip',
};

describeEachDb('imports: values mapped as well as columns', (t) => {
  beforeAll(async () => {
    const res = await t.post('/custom-field', {
      type: 'dropdown',
      systemName: 'component',
      name: 'Component',
      options: [{ value: 'Web app' }, { value: 'E-mail' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("maps other tools' priority words and the column's own values, splits sections on the separator, and appends a step row to the case above", async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, Buffer.from(SHEET), {
      format: 'csv',
      mapping: JSON.stringify(MAPPING),
      skipInvalid: 'true',
    });
    // A priority no map knows is the one bad row, reported by its line.
    expect(result).toMatchObject({ status: 'done', created: 4, skipped: 1 });
    expect(result.errors).toEqual([
      { row: 7, field: 'priority', message: 'priority must be one of high, medium, low, not "Urgent-ish"' },
    ]);
    // Nothing dropped unsaid: the column not mapped and the one skipped are each named.
    expect(result.warnings.filter((w: any) => w.row === 0)).toEqual([
      { row: 0, field: 'column:Notes', message: 'column "Notes" left out not in the mapping' },
      { row: 0, field: 'column:Owner', message: 'column "Owner" left out as chosen' },
    ]);
    const cases = await listCases(t, p);
    expect(cases.map((c) => [c.legacyId, pathOf(c), c.priority])).toEqual([
      ['TR-1', 'Accounts/Sign-in', 'high'],
      ['TR-2', 'Accounts/Sign-in', 'medium'],
      ['TR-3', 'Accounts/Recovery', 'low'],
      ['TR-4', 'Accounts', 'medium'],
    ]);
    expect(cases[0].steps.map((s: any) => [s.description, s.expected])).toEqual([
      ['<p>Open the sign-in page</p>', '<p>The form shows</p>'],
      ['<p>Type the password and press Enter</p>', '<p>The dashboard opens</p>'],
    ]);
    const components = await Promise.all(
      cases.map(
        async (c) => (await t.get(`/project/${p}/tcase/${c.id}`)).body.customFields?.component?.value,
      ),
    );
    expect(components).toEqual(['Web app', 'Web app', 'E-mail', 'Web app']);
  });

  it('refuses a values map on a column that takes none, a blank separator and an unknown key, and starts nothing', async () => {
    const p = (await createProject(t)).code;
    const refused = async (mapping: object) => {
      const res = await postImport(
        t,
        p,
        { format: 'csv', mapping: JSON.stringify(mapping) },
        Buffer.from(SHEET),
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      return res.body.message as string;
    };
    expect(await refused({ Title: { field: 'title', values: { a: 'b' } } })).toBe(
      'mapping of column "Title": values map only priority and custom field columns',
    );
    expect(await refused({ Title: 'title', Section: { field: 'folder', separator: '  ' } })).toBe(
      'mapping of column "Section": separator must be 1-10 characters, not only spaces',
    );
    expect(await refused({ Title: 'title', Prio: { field: 'priority', order: 1 } })).toBe(
      'mapping of column "Prio": unknown key "order" (field, values, separator)',
    );
    expect(await refused({ Title: 'title', Prio: { field: 'priority', values: { Critical: 3 } } })).toBe(
      'mapping of column "Prio": the value for "Critical" must be text of at most 255 characters',
    );
    const before = await t.db.selectFrom('imports').select('id').execute();
    expect(await refused({ Title: 'title', Owner: { field: 'skip', separator: ',' } })).toBe(
      'mapping of column "Owner": a separator splits only folder and tags columns',
    );
    expect(await t.db.selectFrom('imports').select('id').execute()).toEqual(before);
  });
});
