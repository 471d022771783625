import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import {
  folderComments,
  importFile,
  listCases,
  pathOf,
  postImport,
} from '../../../test/helpers/import-factories.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/testrail');
const testrail = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

const importXml = (t: TestEnv, code: string, fields: Record<string, string> = {}) =>
  importFile(t, code, testrail('suite-export.xml'), { format: 'testrail-xml', ...fields });

/** The fixtures' custom fields (TestRail's automation_type, platforms, reviewed) exist in the tenant. */
async function createCustomFields(t: TestEnv) {
  for (const systemName of ['automation_type', 'platforms', 'reviewed']) {
    const res = await t.post('/custom-field', { type: 'text', systemName, name: `TestRail ${systemName}` });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}

const rowsOf = (cases: any[]) => cases.map((c) => [c.legacyId, pathOf(c), c.title]);

describeEachDb('imports: TestRail XML', (t) => {
  beforeAll(async () => {
    await createCustomFields(t);
  });

  it('imports nothing from the suite export while it has bad cases, naming each by its ordinal', async () => {
    const p = (await createProject(t)).code;
    const result = await importXml(t, p);
    expect(result).toMatchObject({ status: 'failed', format: 'testrail-xml', created: 0, skipped: 5 });
    expect(result.errors).toEqual([
      { row: 4, field: 'title', message: 'the case has no <title>' },
      {
        row: 5,
        field: 'priority',
        message: 'priority must be one of high, medium, low, not "Must Test"',
      },
    ]);
    expect(await listCases(t, p)).toEqual([]);
  });

  it('imports the good cases of the suite export: folders from the suite and nested sections, steps, preconditions, priorities, types as tags, references as requirements', async () => {
    const p = (await createProject(t)).code;
    const result = await importXml(t, p, { skipInvalid: 'true' });
    expect(result).toMatchObject({ status: 'done', created: 3, updated: 0, skipped: 2 });
    expect(result.errors.map((e: any) => e.row)).toEqual([4, 5]);
    const cases = await listCases(t, p);
    expect(rowsOf(cases)).toEqual([
      ['C1021', 'Web shop/Checkout', 'Pay with a saved card'],
      ['C1022', 'Web shop/Checkout', 'Zahlung per Rechnung — Ölfirma „Süd“'],
      ['C1023', 'Web shop/Checkout/Payment, cards & wallets/3-D Secure', 'Challenge flow succeeds'],
    ]);
    const [card, invoice, challenge] = cases;
    expect([card.priority, invoice.priority, challenge.priority]).toEqual(['high', 'medium', 'low']);
    expect(cases.map((c) => c.tags.map((g: any) => g.title))).toEqual([
      ['Functional'],
      ['Regression'],
      ['Security'],
    ]);
    // A key is a requirement without a URL; a URL names its requirement.
    expect(card.requirements.map((r: any) => [r.text, r.url])).toEqual([
      ['SHOP-17', ''],
      ['https://jira.example.com/browse/SHOP-18', 'https://jira.example.com/browse/SHOP-18'],
    ]);
    expect(card.precondition.text).toBe(
      '<p>A customer <strong>with</strong> a saved Visa card is signed in.</p>',
    );
    // steps_separated in <index> order, Markdown converted.
    expect(card.steps.map((s: any) => [s.description, s.expected])).toEqual([
      ['<p>Open the cart with 2 items</p>', '<p>The total is € 24,90</p>'],
      [
        '<p>Choose the saved card and press <em>Pay</em></p>',
        '<p>The receipt shows "Paid" &amp; the last 4 digits</p>',
      ],
      [expect.stringContaining('Reload the page'), ''],
    ]);
    // The text template: one step holding the steps and the expected result.
    expect(invoice.steps).toHaveLength(1);
    expect(invoice.steps[0].description).toContain('<li>Add an item</li>');
    expect(invoice.steps[0].expected).toBe('<p>An invoice PDF is e-mailed</p>');
    expect(invoice.precondition.text).toBe('');
    expect(challenge.steps).toEqual([]);
    const withFields = await t.get(`/project/${p}/tcase`, {
      query: { include: 'customFields', sortField: 'seq' },
    });
    expect(withFields.body.data[0].customFields).toMatchObject({
      automation_type: { value: 'Automated' },
      platforms: { value: 'Chrome, Safari' },
      reviewed: { value: 'true' },
    });
  });

  it("keeps the suite's and each section's description as its folder's comment, and an empty section as a folder", async () => {
    const p = (await createProject(t)).code;
    const xml = `<suite><name>Web shop</name><description>The **whole** shop</description><sections>
      <section><name>Checkout</name>
        <description>From cart
          to receipt</description>
        <cases><case><id>C1</id><title>Pay</title></case></cases>
      </section>
      <section><name>Returns</name><description>Not written yet</description><cases/></section>
    </sections></suite>`;
    const result = await importFile(t, p, Buffer.from(xml), { format: 'testrail-xml' });
    expect(result).toMatchObject({ status: 'done', created: 1, skipped: 0 });
    expect(result.reconciliation.folders).toEqual({ inFile: 3, created: 3, updated: 0, leftOut: 0 });
    expect(await folderComments(t, p)).toEqual({
      'Web shop': '<p>The <strong>whole</strong> shop</p>',
      'Web shop > Checkout': '<p>From cart\nto receipt</p>',
      'Web shop > Returns': '<p>Not written yet</p>',
    });
  });

  it('imports the same export a second time without changing anything', async () => {
    const p = (await createProject(t)).code;
    await importXml(t, p, { skipInvalid: 'true' });
    const before = await listCases(t, p);
    const again = await importXml(t, p, { skipInvalid: 'true' });
    expect(again).toMatchObject({ status: 'done', created: 0, updated: 0, skipped: 2 });
    const after = await listCases(t, p);
    expect(after.map((c) => [c.id, c.version, c.updatedAt])).toEqual(
      before.map((c) => [c.id, c.version, c.updatedAt]),
    );
  });

  it('writes nothing on a dry run and says what would happen', async () => {
    const p = (await createProject(t)).code;
    const result = await importXml(t, p, { skipInvalid: 'true', dryRun: 'true' });
    expect(result).toMatchObject({ status: 'done', dryRun: true, created: 3, updated: 0, skipped: 2 });
    expect(await listCases(t, p)).toEqual([]);
    expect((await t.get(`/project/${p}/tcase/folders`)).body.data).toEqual([]);
  });

  it('fails a file with a DOCTYPE (an entity bomb) as a whole and writes nothing', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, testrail('bomb.xml'), {
      format: 'testrail-xml',
      skipInvalid: 'true',
    });
    expect(result).toMatchObject({ status: 'failed', created: 0, updated: 0 });
    expect(result.errors).toEqual([
      {
        row: 0,
        message: expect.stringMatching(
          /^DOCTYPE declarations are refused \(line \d+\): entity definitions can expand without bound$/,
        ),
      },
    ]);
    expect(await listCases(t, p)).toEqual([]);
    expect((await t.get(`/project/${p}/tcase/folders`)).body.data).toEqual([]);
  });

  it('fails a truncated export and a file of another kind as a whole', async () => {
    const p = (await createProject(t)).code;
    const truncated = await importFile(t, p, testrail('truncated.xml'), { format: 'testrail-xml' });
    expect(truncated.status).toBe('failed');
    expect(truncated.errors).toEqual([{ row: 0, message: expect.stringMatching(/^malformed XML: /) }]);
    const other = await importFile(t, p, Buffer.from('<testsuites><testsuite/></testsuites>'), {
      format: 'testrail-xml',
    });
    expect(other.errors).toEqual([
      {
        row: 0,
        message: 'not a TestRail XML export: the root element is <testsuites>, not <suite> or <sections>',
      },
    ]);
    expect(await listCases(t, p)).toEqual([]);
  });

  it('refuses a separator or a mapping for an XML export, and lists the formats for an unknown one', async () => {
    const p = (await createProject(t)).code;
    const file = testrail('suite-export.xml');
    const imports = () => t.db.selectFrom('imports').select('id').execute();
    const before = await imports();
    const sep = await postImport(t, p, { format: 'testrail-xml', separator: ';' }, file);
    expect(sep).toMatchObject({
      status: 400,
      body: { message: 'separator is for CSV files; testrail-xml is XML' },
    });
    const mapping = await postImport(t, p, { format: 'testrail-csv', mapping: '{}' }, file);
    expect(mapping).toMatchObject({
      status: 400,
      body: { message: 'mapping is for formats csv and xlsx; testrail-csv has its own layout' },
    });
    const unknown = await postImport(t, p, { format: 'testrail' }, file);
    expect(unknown.body.message).toBe(
      'format must be one of qasphere-csv, csv, xlsx, testrail-xml, testrail-csv, qase-json, testlink-xml, xray-csv, not "testrail"',
    );
    expect(await imports()).toEqual(before);
  });
});

describeEachDb('imports: TestRail CSV', (t) => {
  beforeAll(async () => {
    await createCustomFields(t);
  });

  it('imports the good cases of the case export: section hierarchy as folders, numbered and one-a-row steps', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, testrail('cases-export.csv'), {
      format: 'testrail-csv',
      skipInvalid: 'true',
    });
    expect(result).toMatchObject({
      status: 'done',
      format: 'testrail-csv',
      created: 4,
      updated: 0,
      skipped: 2,
    });
    // Rows are CSV lines: C1021's cells span lines 2-7, C1023's further steps are lines 11-12.
    expect(result.errors).toEqual([
      { row: 13, field: 'Title', message: 'the case C1024 has no Title' },
      { row: 14, field: 'priority', message: 'priority must be one of high, medium, low, not "Must Test"' },
    ]);
    const cases = await listCases(t, p);
    expect(rowsOf(cases)).toEqual([
      ['C1021', 'Checkout/Payment, cards & wallets/3-D Secure', 'Pay with a saved card'],
      ['C1022', 'Checkout', 'Zahlung per Rechnung — Ölfirma „Süd“'],
      ['C1023', 'Checkout/Payment, cards & wallets/3-D Secure', 'Challenge flow succeeds, step by step'],
      ['C1026', 'Checkout', 'T'.repeat(511)],
    ]);
    const [card, invoice, challenge] = cases;
    expect(card.priority).toBe('high');
    expect(card.tags.map((g: any) => g.title)).toEqual(['Functional']);
    expect(card.precondition.text).toBe(
      '<p>A customer <strong>with</strong> a saved Visa card is signed in.\nThe card expires next year.</p>',
    );
    expect(card.steps.map((s: any) => s.description)).toEqual([
      '<p>Open the cart with 2 items</p>',
      '<p>Choose the saved card and press <em>Pay</em></p>',
      '<p>Reload the page</p>',
    ]);
    expect(invoice.steps).toHaveLength(1);
    expect(challenge.steps.map((s: any) => [s.description, s.expected])).toEqual([
      ['<p>Start a payment that needs a challenge</p>', "<p>The bank's challenge page opens</p>"],
      ['<p>Answer the challenge with the code "123456"</p>', '<p>The payment completes</p>'],
      ['<p>Open the order history</p>', '<p>The order is "Paid"</p>'],
    ]);

    const again = await importFile(t, p, testrail('cases-export.csv'), {
      format: 'testrail-csv',
      skipInvalid: 'true',
    });
    expect(again).toMatchObject({ status: 'done', created: 0, updated: 0, skipped: 2 });
  });

  it('reads a semicolon-separated export and fails a file with broken quoting as a whole', async () => {
    const p = (await createProject(t)).code;
    const semi = await importFile(t, p, testrail('cases-semicolon.csv'), { format: 'testrail-csv' });
    expect(semi).toMatchObject({ status: 'done', errors: [] });
    expect((await listCases(t, p)).find((c) => c.legacyId === 'C7')).toMatchObject({
      title: 'Login; with a semicolon',
      priority: 'high',
    });
    const q = (await createProject(t)).code;
    const broken = await importFile(t, q, testrail('broken-quote.csv'), { format: 'testrail-csv' });
    expect(broken.status).toBe('failed');
    expect(broken.errors).toEqual([{ row: 0, message: expect.stringMatching(/^malformed CSV: /) }]);
    expect(await listCases(t, q)).toEqual([]);
  });
});
