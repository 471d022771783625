import { beforeAll, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { fixture, importFile, listCases, pathOf } from '../../../test/helpers/import-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';

/* The formats teams leave (Qase, TestLink, Xray) and TestRail's real exports, imported through the API. */

const FIELDS = ['automation_type', 'sign', 'statuscase', 'autotest', 'id_autotest', 'severity', 'browser'];

async function createCustomFields(t: TestEnv) {
  for (const systemName of FIELDS) {
    const res = await t.post('/custom-field', { type: 'text', systemName, name: systemName });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}

const customFieldsOf = async (t: TestEnv, code: string) =>
  (await t.get(`/project/${code}/tcase`, { query: { include: 'customFields', sortField: 'seq' } })).body
    .data as { customFields: Record<string, { value: string }> }[];

describeEachDb('imports: more formats', (t) => {
  beforeAll(async () => {
    await createCustomFields(t);
  });

  it('imports every case of a Qase JSON export: suites as folders, steps, tags, severity and custom values', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('qase-project.json'), { format: 'qase-json' });
    expect(result).toMatchObject({ status: 'done', format: 'qase-json', created: 4, skipped: 0, errors: [] });
    expect(result.warnings).toEqual([
      { row: 0, message: expect.stringContaining('behavior, layer, automation') },
    ]);
    const cases = await listCases(t, p);
    expect(cases.map((c) => [c.legacyId, pathOf(c), c.title, c.priority, c.steps.length])).toEqual([
      ['3', 'Authentication/Password reset', 'Reset link expires after one hour', 'medium', 3],
      ['1', 'Authentication', 'Sign in with a valid password', 'high', 2],
      ['2', 'Authentication', 'Sign out from every device', 'medium', 0],
      ['4', 'Checkout', 'Pay by card', 'low', 1],
    ]);
    expect(cases[1].tags.map((g: any) => g.title)).toEqual(['login', 'smoke']);
    expect(cases[1].steps[1].description).toBe('<p>Press <strong>Sign in</strong></p>');
    expect(cases[2].isDraft).toBe(true);
    const fields = await customFieldsOf(t, p);
    expect(fields[0].customFields).toMatchObject({
      severity: { value: 'critical' },
      browser: { value: 'Firefox' },
    });
  });

  it('imports every case of a TestLink suite export: the suite as folder, HTML steps, priorities', async () => {
    const p = (await createProject(t)).code;
    const result = await importFile(t, p, fixture('real/testlink-xml/RegressionTestSuite.xml'), {
      format: 'testlink-xml',
    });
    expect(result).toMatchObject({ status: 'done', created: 3, skipped: 0, errors: [] });
    const cases = await listCases(t, p);
    expect(cases.map((c) => [c.legacyId, pathOf(c), c.title, c.priority, c.steps.length])).toEqual([
      ['1', 'Regression Test Suite', 'Login Validation - Admin user', 'medium', 5],
      ['2', 'Regression Test Suite', 'Validate Main page', 'medium', 3],
      ['3', 'Regression Test Suite', 'Validate checkout', 'medium', 5],
    ]);
    expect(cases[0].steps[2].description).toBe('<p>Insert "Admin" in the Username input</p>');
    expect(cases[0].tags.map((g: any) => g.title)).toEqual(['Manual']);
  });

  it('imports every test of the Xray importer CSVs: repository folders, steps with data, preconditions, test sets', async () => {
    const p = (await createProject(t)).code;
    const qase = await importFile(t, p, fixture('real/xray-csv/qase_xray_results.csv'), {
      format: 'xray-csv',
    });
    expect(qase).toMatchObject({ status: 'done', created: 6, skipped: 0, errors: [] });
    const regression = await importFile(t, p, fixture('real/xray-csv/RegressionTestSuite.csv'), {
      format: 'xray-csv',
    });
    expect(regression).toMatchObject({ status: 'done', created: 3, skipped: 0, errors: [] });
    const cases = await listCases(t, p);
    expect(cases.map((c) => [pathOf(c), c.title, c.steps.length])).toEqual([
      ['Test Repository', 'Performance test', 0],
      ['Login', 'My manual test title', 6],
      ['Login', 'Invalid login', 1],
      ['Listing', 'Validate listing page', 6],
      ['Detail', 'Detail page', 7],
      ['Detail/Promotions', 'Validate promotions', 2],
      [
        'Test Repository',
        'Validate that an administrator user can login successfully and is redirected to the right page.',
        5,
      ],
      ['Test Repository', 'Tests to validate the main page of the application', 3],
      ['Test Repository', 'Test to validate the ability to checkout of the app', 5],
    ]);
    expect(cases[1].steps[0].description).toBe('<p>Click on the login button</p><p>Data: Data 1</p>');
    expect(cases[1].steps[5].expected).toContain('<table>');
    expect(cases[2].steps[0].description).toMatch(/^<pre><code class="language-gherkin">Given I access/);
    expect(cases[6].tags.map((g: any) => g.title)).toEqual(['Regression Test Suite']);
    expect(cases[6].precondition.text).toBe('<p>Site is up and running.</p>');
  });

  it("imports TestRail's real exports as their authors wrote them: lists, headings and quotes, no code blocks", async () => {
    const p = (await createProject(t)).code;
    for (const name of ['example-excerpt.xml', 'bvt-excerpt.xml']) {
      const result = await importFile(t, p, fixture(`real/testrail-xml/${name}`), { format: 'testrail-xml' });
      expect(result, name).toMatchObject({ status: 'done', skipped: 0, errors: [] });
    }
    const cases = await listCases(t, p);
    expect(cases).toHaveLength(8);
    const stored = cases.flatMap((c) => [
      c.precondition.text as string,
      ...c.steps.flatMap((s: any) => [s.description as string, s.expected as string]),
    ]);
    expect(stored.filter((h) => h.includes('<pre>'))).toEqual([]);
    expect(cases[0].precondition.text).toContain('<h1>This is a H1</h1>');
    expect(cases[0].precondition.text).toContain('<blockquote>');
    expect(cases[7].steps[0].description).toContain('<ul><li>Место указания услуг</li>');
    const fields = await customFieldsOf(t, p);
    expect(fields[7].customFields).toMatchObject({
      sign: { value: 'BVT' },
      statuscase: { value: 'Утверждён' },
    });
  });

  it('exports text that looks like markup as escaped Markdown, and a re-import stores the same text, not elements', async () => {
    const [a, b] = [(await createProject(t)).code, (await createProject(t)).code];
    const text = '<p>Paste &lt;img src="x" onerror="alert(1)"&gt; and &amp;copy; into the name</p>';
    await createTcase(t, a, {
      title: 'Markup as text',
      precondition: { text },
      steps: [{ description: text, expected: '' }],
    });
    const exported = await t.get(`/project/${a}/export`, { query: { format: 'qasphere-csv' } });
    expect(exported.text).toContain(
      'Paste \\<img src=""x"" onerror=""alert(1)""> and \\&copy; into the name',
    );
    const result = await importFile(t, b, Buffer.from(exported.text));
    expect(result).toMatchObject({ status: 'done', created: 1 });
    const [[stored], [back]] = [await listCases(t, a), await listCases(t, b)];
    expect(stored.precondition.text).toContain('&lt;img src=');
    expect([back.precondition.text, back.steps[0].description]).toEqual([
      stored.precondition.text,
      stored.steps[0].description,
    ]);
  });
});
