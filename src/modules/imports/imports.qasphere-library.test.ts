import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import {
  fixture,
  folderComments,
  importFile,
  listCases,
  pathOf,
} from '../../../test/helpers/import-factories.js';

/* The CSV QA Sphere's CSV library (Hypersequent/qasphere-csv) writes, from its own expected outputs (real/SOURCES.md). */

const real = (name: string) => fixture(`real/qasphere-csv/${name}`);

const messages = (result: { warnings: { row: number; field?: string; message: string }[] }) =>
  result.warnings.map((w) => `${w.row} ${w.field ?? ''}: ${w.message}`);

describeEachDb('imports: what QA Sphere’s CSV library writes', (t) => {
  beforeAll(async () => {
    for (const body of [
      {
        type: 'dropdown',
        systemName: 'test_env',
        name: 'Test environment',
        options: [{ value: 'staging' }, { value: 'production' }, { value: 'development' }],
      },
      {
        type: 'dropdown',
        systemName: 'automation',
        name: 'Automation',
        options: [{ value: 'Automated' }, { value: 'In Progress' }],
      },
      { type: 'text', systemName: 'notes', name: 'Notes' },
    ]) {
      const res = await t.post('/custom-field', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });

  it.each([
    ['json-steps-success.csv', 'a Steps column'],
    ['step-columns-success.csv', 'Step N / Expected N columns'],
  ])(
    'imports every row of the library’s sample with %s (%s, a Folder Comment column), the second row of a shared Legacy ID as "<id> (2)", and a second import matches each',
    async (file) => {
      const code = (await createProject(t)).code;
      const result = await importFile(t, code, real(file));
      expect(result).toMatchObject({ status: 'done', created: 4, updated: 0, skipped: 0, errors: [] });
      expect(messages(result)).toContain(
        '3 legacyId: legacy id "legacy-id" is already on row 2: this row\'s case gets "legacy-id (2)"',
      );
      const cases = await listCases(t, code);
      expect(cases.map((c) => [pathOf(c), c.title, c.legacyId, c.isDraft])).toEqual([
        ['root/child', 'tc-with-all-fields', 'legacy-id', false],
        ['root/child', 'tc-with-special-chars.,<>/@$%""\'\'*&()[]{}+-`!~;', 'legacy-id (2)', false],
        ['root', 'tc-with-minimal-fields', '', false],
        ['root', 'tc-with-partial-fields', '', true],
      ]);
      const [all, special, , partial] = cases;
      expect(all.steps.map((s: any) => [s.description, s.expected])).toEqual([
        ['<p>action-1</p>', '<p>expected-1</p>'],
        ['<p>action-2</p>', '<p>expected-2</p>'],
      ]);
      // A file of another service is not fetched: its URL is kept as a link, with a warning.
      expect(all.links).toContainEqual({ text: 'file-1.csv', url: 'http://file1' });
      expect(special.steps[0].description).toBe('<p>action.,&lt;&gt;/@$%""\'\'*&amp;()[]{}+-`!~;</p>');
      expect(partial.steps.map((s: any) => [s.description, s.expected])).toEqual([
        ['<p>action-1</p>', ''],
        ['', '<p>expected-2</p>'],
      ]);

      // The rows with a Legacy ID update their cases (nothing changed); the two without one are new again.
      const again = await importFile(t, code, real(file));
      expect(again).toMatchObject({ status: 'done', created: 2, updated: 0, skipped: 0, errors: [] });
      expect((await listCases(t, code)).map((c) => c.legacyId)).toEqual([
        'legacy-id',
        'legacy-id (2)',
        '',
        '',
        '',
        '',
      ]);
    },
  );

  it('reads `file_name` in the Files items of the library’s older layout (no Type column), keeping each file of another service as a link or naming it in a warning', async () => {
    const code = (await createProject(t)).code;
    const result = await importFile(t, code, real('old-layout-success.csv'));
    expect(result).toMatchObject({ status: 'done', created: 4, skipped: 0, errors: [] });
    const cases = await listCases(t, code);
    const partial = cases.find((c) => c.title === 'tc-with-partial-fields');
    expect(partial.links).toEqual([{ text: 'file-1.csv', url: 'http://file1' }]);
    expect(messages(result)).toContain(
      '3 Files: file "file-1.csv" is not in this service and has no http(s) URL: left out',
    );
    expect(messages(result)).toContain(
      '3 Files: file "file-1.csv" is not in this service: kept as a link to its URL, not as an attachment',
    );
  });

  it.each(['json-steps-custom-fields.csv', 'step-columns-custom-fields.csv'])(
    'imports every row of the library’s custom-field sample %s',
    async (file) => {
      const code = (await createProject(t)).code;
      const result = await importFile(t, code, real(file));
      expect(result).toMatchObject({ status: 'done', created: 5, skipped: 0, errors: [] });
      const cases = (
        await t.get(`/project/${code}/tcase`, { query: { include: 'customFields', sortField: 'seq' } })
      ).body.data;
      expect(
        cases.map((c: any) => [c.title, c.customFields.test_env?.value, c.customFields.notes?.value]),
      ).toEqual([
        ['tc-with-single-custom-field', 'staging', undefined],
        [
          'tc-with-multiple-custom-fields',
          'production',
          'This is a test note with special chars: !@#$%^&*()',
        ],
        ['tc-with-empty-custom-field-value', undefined, undefined],
        ['tc-with-default-custom-field', undefined, undefined],
        ['tc-with-all-fields-and-custom-fields', 'development', undefined],
      ]);
    },
  );

  it('creates the folders of rows that name only a folder: empty, with a comment (kept as the folder’s comment), and with `\\/` in a name', async () => {
    const code = (await createProject(t)).code;
    for (const file of [
      'json-steps-folder-empty.csv',
      'json-steps-folder-comment.csv',
      'json-steps-folder-slash-comment.csv',
    ]) {
      const result = await importFile(t, code, real(file));
      expect(result, file).toMatchObject({
        status: 'done',
        created: 0,
        skipped: 0,
        errors: [],
        warnings: [],
      });
    }
    expect(await folderComments(t, code)).toEqual({
      'empty-folder': '',
      'commented-folder': '<p>This is a folder comment</p>',
      'folder/with/slashes': '',
      'folder/with/slashes > child': '<p>slash comment</p>',
    });
    expect(await listCases(t, code)).toEqual([]);
  });

  it.each(['json-steps-folder-comment-and-case.csv', 'step-columns-folder-comment-and-case.csv'])(
    'imports a folder row with its comment and the case after it in the same folder (%s)',
    async (file) => {
      const code = (await createProject(t)).code;
      const result = await importFile(t, code, real(file));
      expect(result).toMatchObject({ status: 'done', created: 1, skipped: 0, errors: [] });
      expect(await folderComments(t, code)).toEqual({ 'my-folder': '<p>Folder description</p>' });
      const [only] = await listCases(t, code);
      expect([pathOf(only), only.title]).toEqual(['my-folder', 'tc-in-commented-folder']);
    },
  );

  it.each(['json-steps-folder-slash.csv', 'step-columns-folder-slash.csv'])(
    'reads `\\/` as a slash inside a folder name (%s)',
    async (file) => {
      const code = (await createProject(t)).code;
      const result = await importFile(t, code, real(file));
      expect(result).toMatchObject({ status: 'done', created: 1, errors: [] });
      expect(Object.keys(await folderComments(t, code))).toEqual(['root/parent', 'root/parent > child/leaf']);
    },
  );

  it('keeps a folder named "Release 1/10.0.0" whole through an export and an import back', async () => {
    const a = (await createProject(t)).code;
    const folderId = await createFolder(t, a, ['Suites', 'Release 1/10.0.0']);
    await createTcase(t, a, { folderId, title: 'Upgrade keeps the settings' });
    const exported = await t.get(`/project/${a}/export`, { query: { format: 'qasphere-csv' } });
    expect(exported.text.split('\r\n')[1].startsWith('Suites/Release 1\\/10.0.0,')).toBe(true);
    const b = (await createProject(t)).code;
    const result = await importFile(t, b, Buffer.from(exported.text));
    expect(result).toMatchObject({ status: 'done', created: 1, errors: [] });
    const [only] = await listCases(t, b);
    expect(only.path.map((f: any) => f.title)).toEqual(['Suites', 'Release 1/10.0.0']);
  });

  it('keeps every kind of Steps item: data written into the step, a shared block made a shared step (once), an unknown sharedStepId named in a warning', async () => {
    const code = (await createProject(t)).code;
    const result = await importFile(t, code, real('json-steps-modern-steps.csv'));
    expect(result).toMatchObject({ status: 'done', created: 1, skipped: 0, errors: [] });
    expect(messages(result)).toEqual([
      '2 Steps: step 2: file "evidence.txt" is not in this service: kept as a link to its URL in the step',
      '2 Steps: step 3: shared step 42 is not in this project: left out',
    ]);
    const [c] = await listCases(t, code);
    expect(c.steps).toHaveLength(3);
    expect([c.steps[0].description, c.steps[0].expected]).toEqual([
      '<p>Open the page</p>',
      '<p>The page opens</p>',
    ]);
    expect(c.steps[1].description).toContain('<pre><code class="language-sql">SELECT 1');
    expect(c.steps[1].description).toContain('<a href="https://example.com"');
    expect(c.steps[1].description).toContain('<a href="https://files.example.com/evidence.txt"');
    expect(c.steps[1].description).toContain('Evidence: evidence.txt</a>');
    expect(c.steps[2]).toMatchObject({ type: 'shared', title: 'Sign in' });
    const shared = await t.get(`/project/${code}/shared-step`);
    expect(shared.body.sharedSteps ?? shared.body.data ?? shared.body).toMatchObject([
      {
        title: 'Sign in',
        subSteps: [{ description: '<p>Enter credentials</p><p>alice</p>', expected: '' }],
      },
    ]);

    // The row has no Legacy ID, so its case is made again; the shared step is found by its title, not made again.
    const again = await importFile(t, code, real('json-steps-modern-steps.csv'));
    expect(again).toMatchObject({ status: 'done', created: 1, errors: [] });
    const sharedAgain = await t.get(`/project/${code}/shared-step`);
    expect(sharedAgain.body).toEqual(shared.body);
  });

  it('uses a sharedStepId that names a shared step of the project', async () => {
    const code = (await createProject(t)).code;
    const step = await t.post(`/project/${code}/shared-step`, {
      title: 'Log in',
      subSteps: [{ description: 'Open the login page', expected: 'The form shows' }],
    });
    expect(step.status).toBe(201);
    const csv =
      'Folder,Name,Steps\r\n' +
      `Auth,Uses a shared step,"[{""sharedStepId"":${step.body.id}},{""description"":""Then this""}]"\r\n`;
    const result = await importFile(t, code, Buffer.from(csv));
    expect(result).toMatchObject({ status: 'done', created: 1, errors: [], warnings: [] });
    const [c] = await listCases(t, code);
    expect(c.steps.map((s: any) => s.type)).toEqual(['shared', 'standalone']);
    expect(c.steps[0]).toMatchObject({ id: step.body.id, title: 'Log in' });
  });
});
