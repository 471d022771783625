import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import ExcelJS from 'exceljs';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  ROOT,
  sessionApi,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] import page browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

const fixture = (name: string) => path.join(ROOT, 'test', 'fixtures', 'imports', name);
/** Small enough that a test can pass it; every fixture is far below it. */
const MAX_BYTES = 16 * 1024;

/**
 * The import page in a real browser against a real server (SQLite): a QA Sphere CSV dry run then imported for
 * real, a file with bad rows and its table, a generic CSV mapped on its preview, refusals beside the file field,
 * the export download, and who sees the page.
 */
describe.skipIf(!hasChromium)('the import page in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (p: string) => `${service.baseUrl}${p}`;
  const look = async (name: string) => a11y.push(...(await inspect(page, name)));
  const titles = async (code: string): Promise<string[]> =>
    ((await api('GET', `/project/${code}/tcase?limit=100`)).data as { title: string }[]).map((c) => c.title);
  const fileInput = () => page.getByLabel('File', { exact: true });
  const result = () =>
    page.getByRole('region', { name: /^(Dry run finished|Import finished|Import failed)/ });
  const count = async (label: RegExp) =>
    (
      await result()
        .locator('dl > div')
        .filter({ has: page.getByText(label) })
        .locator('dd')
        .textContent()
    )?.trim();

  beforeAll(async () => {
    ensureBuilt();
    service = await startService({ CASEBOOK_IMPORT_MAX_BYTES: String(MAX_BYTES) });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    for (const code of ['IMP', 'BAD', 'MAP', 'XLS', 'FLD'])
      await api('POST', '/project', { code, title: `Import ${code}` });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('opens from the repository; Start without a file says so beside the field', async () => {
    await page.goto(url('/project/IMP/repository'));
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import test cases', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/project/IMP/import');
    expect(await page.getByLabel('Dry run: check the file and count, write nothing').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Start the dry run' }).click();
    await page.getByText('Choose a file to import.').waitFor();
    expect(await fileInput().getAttribute('aria-invalid')).toBe('true');
    await look('import-no-file');
  });

  it('a dry run of a QA Sphere CSV counts and writes nothing; Import for real then creates the cases', async () => {
    await fileInput().setInputFiles(fixture('qasphere-documented.csv'));
    await page.getByRole('button', { name: 'Start the dry run' }).click();
    await page.getByRole('heading', { name: 'Dry run finished: the file can be imported' }).waitFor();
    expect(await count(/^Created \(would be\)$/)).toBe('7');
    expect(await count(/^Matched by Legacy ID$/)).toBe('0');
    expect(await titles('IMP')).toEqual([]);
    await look('import-dry-run');

    await result().getByRole('button', { name: 'Import for real' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    expect(await count(/^Created$/)).toBe('7');
    await result()
      .getByText(/a template counts once, not the filled test cases/)
      .waitFor();
    expect(await titles('IMP')).toHaveLength(7);
    expect(await titles('IMP')).toContain('Pay with a Visa card, 3-D Secure');
    await page.getByRole('link', { name: 'Open the repository' }).click();
    await page.getByRole('link', { name: /Pay with a Visa card, 3-D Secure/ }).waitFor();
  });

  it('a file with bad rows lists each by line, field and reason, and imports nothing', async () => {
    await page.goto(url('/project/BAD/import'));
    await page.getByLabel('Dry run: check the file and count, write nothing').uncheck();
    await fileInput().setInputFiles(fixture('bad-rows.csv'));
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: 'Import failed: nothing was imported' }).waitFor();
    const table = page.getByRole('table', { name: /7 problems found; nothing was written/ });
    const rows = await table.getByRole('row').allTextContents();
    expect(rows).toHaveLength(8);
    expect(rows[3]).toBe('Line 5Priority' + 'priority must be one of high, medium, low, not "very high"');
    expect(await table.getByRole('cell', { name: 'Line 3', exact: true }).count()).toBe(1);
    expect(await titles('BAD')).toEqual([]);
    await look('import-bad-rows');

    // Skipping them imports the two good rows; the report still names the others.
    await page.getByLabel('Skip bad rows: import the good rows of a file with bad ones').check();
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    expect(await count(/^Created$/)).toBe('2');
    expect(await count(/^Skipped$/)).toBe('7');
    expect((await titles('BAD')).sort()).toEqual(['A good case', 'Another good case']);
  });

  it('a generic CSV: each column gets a guessed field, editable, with the first rows as they will be imported', async () => {
    await page.goto(url('/project/MAP/import'));
    await page.getByLabel('Any CSV, with a column mapping').check();
    await fileInput().setInputFiles(fixture('mapped.csv'));
    const mapping = page.getByRole('group', { name: 'Column mapping' });
    await mapping.getByLabel('Summary').waitFor();
    expect(await mapping.getByLabel('Summary').inputValue()).toBe('title');
    expect(await mapping.getByLabel('Section').inputValue()).toBe('folder');
    expect(await mapping.getByLabel('Actions').inputValue()).toBe('steps');
    const preview = page.getByRole('table', { name: 'The first 2 rows as they will be imported' });
    const header = await preview.getByRole('columnheader').allTextContents();
    expect(header).toEqual([
      'Line',
      'Title',
      'Folder (a / path)',
      'Priority',
      'Tags (comma-separated)',
      'Precondition',
      'Steps',
      'Expected results',
      'Legacy ID',
    ]);
    await preview.getByRole('cell', { name: 'Search finds a product' }).waitFor();
    // A column left out leaves the preview; a title is required before anything is sent.
    await mapping.getByLabel('Labels').selectOption('');
    expect(await preview.getByRole('columnheader', { name: 'Tags (comma-separated)' }).count()).toBe(0);
    await mapping.getByLabel('Summary').selectOption('');
    await page.getByRole('button', { name: 'Start the dry run' }).click();
    await page.getByText('Map one column to Title: every test case needs a title.').waitFor();
    await look('import-mapping-error');
    await mapping.getByLabel('Summary').selectOption('title');
    await page.getByLabel('Dry run: check the file and count, write nothing').uncheck();
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    const cases = (await api('GET', '/project/MAP/tcase?limit=10&include=tags')).data as {
      title: string;
      legacyId: string;
      tags: unknown[];
    }[];
    expect(cases.map((c) => [c.title, c.legacyId, c.tags.length]).sort()).toEqual([
      ['Search finds a product', 'EXT-1', 0],
      ['Search with no result', 'EXT-2', 0],
    ]);
    await look('import-mapped-done');
  });

  it('an Excel workbook: its first rows read by the service, each column guessed, the sheet’s row numbers', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Cases');
    ws.addRow(['Key', 'Summary', 'Section']);
    ws.addRow(['XL-1', 'Zahlung — «Ünïcödé» 🚀', 'Sheets/First']);
    ws.addRow([]);
    ws.addRow([42, 'A number as its key', 'Sheets']);
    const buffer = Buffer.from(await wb.xlsx.writeBuffer());
    await page.goto(url('/project/XLS/import'));
    await page.getByLabel('Excel (.xlsx, its first sheet), with a column mapping').check();
    expect(await page.getByLabel('Separator').count()).toBe(0);
    await fileInput().setInputFiles({
      name: 'cases.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      buffer,
    });
    const mapping = page.getByRole('group', { name: 'Column mapping' });
    await mapping.getByLabel('Summary').waitFor();
    expect(await mapping.getByLabel('Summary').inputValue()).toBe('title');
    expect(await mapping.getByLabel('Key').inputValue()).toBe('legacyId');
    const preview = page.getByRole('table', { name: 'The first 2 rows as they will be imported' });
    await preview.getByRole('cell', { name: 'Zahlung — «Ünïcödé» 🚀' }).waitFor();
    expect(await preview.getByRole('columnheader').first().textContent()).toBe('Row');
    expect(await preview.locator('tbody tr td:first-child').allTextContents()).toEqual(['2', '4']);
    await look('import-xlsx-preview');
    await page.getByLabel('Dry run: check the file and count, write nothing').uncheck();
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    expect((await titles('XLS')).sort()).toEqual(['A number as its key', 'Zahlung — «Ünïcödé» 🚀']);
  });

  it('TestRail XML: no separator to choose; a file that is not one is reported for the file as a whole', async () => {
    await page.goto(url('/project/MAP/import'));
    await page.getByLabel('TestRail XML (a suite export)').check();
    expect(await page.getByLabel('Separator').count()).toBe(0);
    const junit = '<?xml version="1.0"?><testsuites><testsuite name="a"/></testsuites>';
    await fileInput().setInputFiles({ name: 'junit.xml', mimeType: 'text/xml', buffer: Buffer.from(junit) });
    await page.getByRole('button', { name: 'Start the dry run' }).click();
    await page.getByRole('heading', { name: 'Dry run finished: the file has problems' }).waitFor();
    const row = page
      .getByRole('table', { name: /1 problem found/ })
      .getByRole('row')
      .nth(1);
    expect(await row.textContent()).toMatch(
      /^The file.*not a TestRail XML export: the root element is <testsuites>/,
    );
  });

  it('a file over the import limit is refused beside the field; what was chosen stays', async () => {
    await page.goto(url('/project/MAP/import'));
    const big = 'Folder,Type,Name\n' + 'A,standalone,x\n'.repeat(MAX_BYTES / 10);
    await fileInput().setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(big) });
    await page.getByLabel('Dry run: check the file and count, write nothing').uncheck();
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByText(/^This file is too large to import: /).waitFor();
    expect(await page.getByLabel('Dry run: check the file and count, write nothing').isChecked()).toBe(false);
    expect(await fileInput().evaluate((el: HTMLInputElement) => el.files?.[0]?.name)).toBe('big.csv');
    expect(await titles('MAP')).toHaveLength(2);
  });

  it('Export CSV downloads the QA Sphere CSV of the repository', async () => {
    await page.goto(url('/project/IMP/repository'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = fs.readFileSync(await download.path(), 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/^\uFEFF?Folder,Type,Name,Legacy ID,/);
    expect(csv).toContain('"Pay with a Visa card, 3-D Secure"');
    expect(csv).toContain('QS-7');
  });

  it('a viewer sees Export CSV and no Import; the typed address says it is not allowed', async () => {
    const account = { email: 'vera@example.com', password: 'vera password 1' };
    const { link } = await api('POST', '/users/invitations', { email: account.email, role: 'viewer' });
    const registered = await fetch(url('/api/auth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: String(link).split('/').pop(),
        name: 'Vera Viewer',
        password: account.password,
      }),
    });
    expect(registered.status).toBe(201);
    const { id } = (await registered.json()) as { id: number };
    await api('POST', '/project/IMP/member', { userId: id });
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const viewer = await ctx.newPage();
    viewer.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(viewer, service.baseUrl, account);
    await viewer.goto(url('/project/IMP/repository'));
    await viewer.getByRole('link', { name: 'Export CSV' }).waitFor();
    expect(await viewer.getByRole('link', { name: 'Import', exact: true }).count()).toBe(0);
    await viewer.goto(url('/project/IMP/import'));
    await viewer.getByRole('heading', { name: 'Import: not allowed' }).waitFor();
    expect(await viewer.getByLabel('File', { exact: true }).count()).toBe(0);
    await ctx.close();
  });

  it('shows a running job as a progress bar whose value reads "n of m rows", the same words beside it', async () => {
    // Seven rows finish within one poll: the job's answers are held back as queued, then running, until let go.
    let phase: 'queued' | 'running' | 'real' = 'queued';
    const job = /\/api\/public\/v0\/project\/IMP\/import\/\d+$/;
    await page.route(job, async (route) => {
      const res = await route.fetch();
      if (phase === 'real') return route.fulfill({ response: res });
      const progress = phase === 'queued' ? { done: 0, total: 0 } : { done: 3, total: 7 };
      await route.fulfill({ response: res, json: { ...(await res.json()), status: phase, progress } });
    });
    await page.goto(url('/project/IMP/import'));
    await fileInput().setInputFiles(fixture('qasphere-documented.csv'));
    await page.getByRole('button', { name: 'Start the dry run' }).click();
    const bar = page.getByRole('progressbar', { name: 'Import progress' });
    await page.getByRole('status').filter({ hasText: 'Waiting for its turn…' }).waitFor();
    // Brought into view under the long form, at once.
    expect(await bar.evaluate((el) => el.getBoundingClientRect().bottom <= window.innerHeight)).toBe(true);
    // No total yet: a bar without a value, and no number read out.
    expect(await bar.evaluate((el: HTMLProgressElement) => el.position)).toBe(-1);
    expect(await bar.getAttribute('aria-valuetext')).toBeNull();

    phase = 'running';
    await page.getByRole('status').filter({ hasText: '3 of 7 rows done' }).waitFor();
    expect(await bar.getAttribute('aria-valuetext')).toBe('3 of 7 rows');
    expect(await bar.evaluate((el: HTMLProgressElement) => [el.value, el.max])).toEqual([3, 7]);
    await look('import-progress');

    phase = 'real';
    await result().waitFor();
    expect(await bar.count()).toBe(0);
    await page.unroute(job);
  });

  it("a TestRail export's custom fields: each listed with its values, created, mapped or left out as chosen; the result shows the warnings and the reconciliation", async () => {
    await api('POST', '/custom-field', { type: 'checkbox', systemName: 'signed_off', name: 'Signed off' });
    await page.goto(url('/project/FLD/import'));
    await page.getByLabel('TestRail XML (a suite export)').check();
    await fileInput().setInputFiles(path.join(ROOT, 'test', 'fixtures', 'testrail', 'suite-export.xml'));
    const choices = page.getByRole('group', { name: 'Custom fields in the file' });
    const item = (key: string) => choices.getByRole('listitem').filter({ hasText: key });
    await item('reviewed').waitFor();
    // TestRail's estimate comes with its custom fields.
    expect(await choices.getByRole('listitem').count()).toBe(4);
    await item('estimate').getByText('1 value: 2m').waitFor();
    await item('platforms').getByText('1 value: Chrome, Safari').waitFor();
    // An admin's default: each becomes a new field of the guessed type.
    expect(await item('reviewed').getByLabel('What becomes of “reviewed”').inputValue()).toBe('create');
    expect(await item('reviewed').getByLabel('Type').inputValue()).toBe('checkbox');
    await item('automation_type').getByLabel('What becomes of “automation_type”').selectOption('skip');
    await item('platforms').getByLabel('Name').fill('Browsers');
    await item('platforms').getByLabel('Type').selectOption('text');
    await item('reviewed')
      .getByLabel('What becomes of “reviewed”')
      .selectOption({ label: 'Into “Signed off”' });
    await choices.scrollIntoViewIfNeeded();
    await look('import-field-choices');

    await page.getByLabel('Dry run: check the file and count, write nothing').uncheck();
    await page.getByLabel('Skip bad rows: import the good rows of a file with bad ones').check();
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    const rec = page.getByRole('table', { name: /^Reconciliation/ });
    const row = async (name: string) =>
      (
        await rec
          .getByRole('row', { name: new RegExp(`^${name}`) })
          .getByRole('cell')
          .allTextContents()
      ).join(' ');
    expect(await row('Test cases')).toBe('5 3 0 2');
    expect(await row('Custom field values')).toBe('4 3 0 1');
    const warnings = page.getByRole('table', { name: /warnings?: imported, but not as in the file/ });
    await warnings.getByText('custom field "automation_type" left out as chosen (1 value)').waitFor();
    await warnings
      .getByText('custom field "reviewed" imported into the field "Signed off" (signed_off)')
      .waitFor();
    const fields = (await api('GET', '/custom-field')).customFields as {
      systemName: string;
      name: string;
      type: string;
    }[];
    expect(fields.map((f) => [f.systemName, f.name, f.type])).toEqual([
      ['signed_off', 'Signed off', 'checkbox'],
      ['estimate', 'Estimate', 'dropdown'],
      ['platforms', 'Browsers', 'text'],
    ]);
    await rec.scrollIntoViewIfNeeded();
    await look('import-reconciliation');
  });

  it('has no serious accessibility problem and no page error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
