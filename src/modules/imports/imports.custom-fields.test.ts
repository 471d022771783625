import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, memberWithKey } from '../../../test/helpers/factories.js';
import { drain, importFile, listCases, multipart } from '../../../test/helpers/import-factories.js';

/*
 * Custom fields a file carries that Casebook lacks (extensions.md §7a): never an error; created, mapped or left out,
 * with a warning; and the reconciliation every import ends with. The tenant's fields are shared by the file's tests,
 * so each test uses keys of its own (the order matters where a later test reads fields an earlier one created).
 */

const TESTRAIL = path.resolve(import.meta.dirname, '../../../test/fixtures/testrail/suite-export.xml');
const REAL = path.resolve(import.meta.dirname, '../../../test/fixtures/imports/real/qasphere-csv');
const BOUNDARY = '----casebook-import-boundary';

async function post(t: TestEnv, url: string, fields: Record<string, string>, file: Buffer, key = t.ownerKey) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/public/v0${url}`,
    headers: { authorization: `ApiKey ${key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipart(fields, file),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

const fieldsNamed = async (t: TestEnv, names: string[]) =>
  ((await t.get('/custom-field')).body.customFields ?? (await t.get('/custom-field')).body).filter((f: any) =>
    names.includes(f.systemName),
  );

const none = { inFile: 0, created: 0, updated: 0, leftOut: 0 };

describeEachDb('imports: custom fields the file carries, and the reconciliation', (t) => {
  it("leaves out a user's custom fields Casebook lacks, naming each in a warning, and imports every good row", async () => {
    const project = await createProject(t);
    const user = await memberWithKey(t, 'user', project);
    const started = await post(
      t,
      `/project/${project.code}/import`,
      { format: 'testrail-xml', skipInvalid: 'true' },
      fs.readFileSync(TESTRAIL),
      user.key,
    );
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await drain(t);
    const result = (await t.get(`/project/${project.code}/import/${started.body.id}`)).body;
    expect(result).toMatchObject({ status: 'done', created: 3, skipped: 2 });
    expect(result.warnings.filter((w: any) => w.row === 0)).toEqual(
      ['estimate', 'automation_type', 'platforms', 'reviewed'].map((k) => ({
        row: 0,
        field: `customField:${k}`,
        message: `custom field "${k}" left out: only an admin may create custom fields (1 value)`,
      })),
    );
    expect(result.reconciliation.customValues).toEqual({ inFile: 4, created: 0, updated: 0, leftOut: 4 });
    expect(result.reconciliation.cases).toEqual({ inFile: 5, created: 3, updated: 0, leftOut: 2 });
    expect(await fieldsNamed(t, ['automation_type', 'platforms', 'reviewed'])).toEqual([]);
  });

  it('creates an admin’s custom fields without a choice (types guessed, names from the keys), and a second import creates nothing', async () => {
    const code = (await createProject(t)).code;
    const xml = fs.readFileSync(TESTRAIL);
    const first = await importFile(t, code, xml, { format: 'testrail-xml', skipInvalid: 'true' });
    expect(first).toMatchObject({ status: 'done', created: 3, updated: 0, skipped: 2 });
    expect(first.warnings.filter((w: any) => w.row === 0).map((w: any) => w.message)).toEqual([
      'custom field "estimate" is not in Casebook: created as the dropdown field "Estimate" (estimate) with 1 value',
      'custom field "automation_type" is not in Casebook: created as the dropdown field "Automation Type" (automation_type) with 1 value',
      'custom field "platforms" is not in Casebook: created as the dropdown field "Platforms" (platforms) with 1 value',
      'custom field "reviewed" is not in Casebook: created as the checkbox field "Reviewed" (reviewed) with 1 value',
    ]);
    const made = await fieldsNamed(t, ['automation_type', 'platforms', 'reviewed']);
    expect(
      made.map((f: any) => [f.systemName, f.type, f.name, f.options?.map((o: any) => o.value) ?? null]),
    ).toEqual([
      ['automation_type', 'dropdown', 'Automation Type', ['Automated']],
      ['platforms', 'dropdown', 'Platforms', ['Chrome, Safari']],
      ['reviewed', 'checkbox', 'Reviewed', null],
    ]);
    const [listed] = await listCases(t, code);
    const card = (await t.get(`/project/${code}/tcase/${listed.id}`)).body;
    expect(card.customFields).toMatchObject({
      estimate: { value: '2m' },
      automation_type: { value: 'Automated' },
      platforms: { value: 'Chrome, Safari' },
      reviewed: { value: 'true' },
    });
    expect(first.reconciliation).toEqual({
      // The section whose only case is refused is kept, as an empty folder: it is a folder row of its own.
      folders: { inFile: 5, created: 5, updated: 0, leftOut: 0 },
      cases: { inFile: 5, created: 3, updated: 0, leftOut: 2 },
      steps: { inFile: 4, created: 4, updated: 0, leftOut: 0 },
      customValues: { inFile: 4, created: 4, updated: 0, leftOut: 0 },
      requirements: { inFile: 3, created: 3, updated: 0, leftOut: 0 },
      links: none,
      files: none,
    });

    const again = await importFile(t, code, xml, { format: 'testrail-xml', skipInvalid: 'true' });
    expect(again).toMatchObject({ status: 'done', created: 0, updated: 0, skipped: 2 });
    for (const count of Object.values(again.reconciliation)) expect(count).toMatchObject({ created: 0 });
    expect(again.warnings.filter((w: any) => w.row === 0)).toEqual([]);

    const csv = await t.get(`/project/${code}/import/${again.id}`, { query: { format: 'csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n').slice(0, 3)).toEqual([
      'kind,inFile,created,updated,leftOut',
      'folders,5,0,0,0',
      'cases,5,0,0,2',
    ]);
  });

  it('follows the choices: create with a chosen type and name, map to an existing field, leave out', async () => {
    const code = (await createProject(t)).code;
    const remarks = await t.post('/custom-field', { type: 'text', systemName: 'remarks', name: 'Remarks' });
    expect(remarks.status).toBe(201);
    const file = fs.readFileSync(path.join(REAL, 'json-steps-custom-fields.csv'));
    const customFields = JSON.stringify({
      test_env: { action: 'create', type: 'text', name: 'Environment' },
      automation: { action: 'skip' },
      notes: { action: 'map', fieldId: remarks.body.id },
    });
    const preview = await post(t, `/project/${code}/import/preview`, { format: 'qasphere-csv' }, file);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.customFields.map((f: any) => [f.key, f.action, f.guessedType, f.values])).toEqual([
      ['test_env', 'create', 'dropdown', ['staging', 'production', 'development']],
      ['automation', 'create', 'dropdown', ['Automated', 'In Progress']],
      // Longer than a dropdown's option is guessed to be: text.
      ['notes', 'create', 'text', ['This is a test note with special chars: !@#$%^&*()']],
    ]);

    const result = await importFile(t, code, file, { customFields });
    expect(result).toMatchObject({ status: 'done', created: 5, skipped: 0, errors: [] });
    expect(result.warnings.filter((w: any) => w.row === 0).map((w: any) => w.message)).toEqual([
      'custom field "test_env" is not in Casebook: created as the text field "Environment" (test_env) with 3 values',
      'custom field "automation" left out as chosen (2 values)',
      'custom field "notes" imported into the field "Remarks" (remarks)',
    ]);
    expect(result.reconciliation.customValues).toEqual({ inFile: 6, created: 4, updated: 0, leftOut: 2 });
    const cases = await listCases(t, code);
    const many = cases.find((c) => c.title === 'tc-with-multiple-custom-fields');
    expect((await t.get(`/project/${code}/tcase/${many.id}`)).body.customFields).toEqual({
      test_env: { value: 'production', isDefault: false },
      remarks: { value: 'This is a test note with special chars: !@#$%^&*()', isDefault: false },
    });
    expect(
      (await fieldsNamed(t, ['test_env', 'automation'])).map((f: any) => [f.systemName, f.type]),
    ).toEqual([['test_env', 'text']]);

    // A user may not ask for a field to be created, nor map to a field that does not exist.
    const project = (await t.get(`/project/${code}`)).body;
    const user = await memberWithKey(t, 'user', project);
    const asUser = await post(
      t,
      `/project/${code}/import`,
      { format: 'qasphere-csv', customFields: JSON.stringify({ x: { action: 'create' } }) },
      file,
      user.key,
    );
    expect(asUser.status).toBe(403);
    const unknown = await post(
      t,
      `/project/${code}/import`,
      { format: 'qasphere-csv', customFields: JSON.stringify({ x: { action: 'map', fieldId: 'nope' } }) },
      file,
    );
    expect(unknown).toMatchObject({ status: 400, body: { details: [{ path: '/customFields/x' }] } });
  });

  it.each(fs.readdirSync(REAL).sort())(
    'imports every row of the real file %s with the defaults, and names in warnings what it left out',
    async (name) => {
      const code = (await createProject(t)).code;
      const result = await importFile(t, code, fs.readFileSync(path.join(REAL, name)));
      expect(result, name).toMatchObject({ status: 'done', skipped: 0, errors: [] });
      const r = result.reconciliation;
      expect(r.cases.created + r.cases.updated, name).toBe(r.cases.inFile);
      const leftOut = Object.values(r).reduce((n: number, c: any) => n + c.leftOut, 0);
      if (leftOut > 0) expect(result.warnings.length, name).toBeGreaterThan(0);
      // Files of another service are kept as links, not as files: each named in a warning.
      expect(result.warnings.filter((w: any) => w.field === 'Files').length, name).toBe(r.files.leftOut);
    },
  );
});
