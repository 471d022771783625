import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  ROOT,
  sessionApi,
  sessionFetch,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

const PDFTOTEXT = '/usr/bin/pdftotext';
const hasPdftotext = fs.existsSync(PDFTOTEXT);
if (!hasChromium) console.log(`[casebook] lead's day browser test SKIPPED: no Chromium at ${CHROMIUM}`);
else if (!hasPdftotext)
  console.log(`[casebook] lead's day: the printed report's check SKIPPED: no pdftotext at ${PDFTOTEXT}`);

const OUT = path.join(ROOT, 'test-results');

/**
 * A lead's day with reports, in a real browser against a real server (SQLite): results recorded through the API
 * and on the run page, the run report following them and compared with earlier runs, printed to PDF, downloaded as
 * CSV, shared by a link that opens without a session, and that link revoked.
 */
describe.skipIf(!hasChromium)("a lead's day with the run report in Chromium", () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  const ids = new Map<string, { id: string; seq: number }>();
  const runs: Record<string, number> = {};
  let sharedUrl = '';
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (p: string) => `${service.baseUrl}${p}`;
  const stat = (id: string) => page.getByTestId(id);
  const run = async (title: string, results: [string, string, object?][]) => {
    runs[title] = (
      await api('POST', '/project/LEAD/run', {
        title,
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [...ids.values()].map((c) => c.id) }],
      })
    ).id;
    if (results.length)
      await api('POST', `/project/LEAD/run/${runs[title]}/result/batch`, {
        items: results.map(([t, status, extra]) => ({ tcaseId: ids.get(t)!.id, status, ...extra })),
      });
  };

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    await api('POST', '/project', { code: 'LEAD', title: 'Checkout service' });
    for (const [folderPath, titles] of [
      [
        ['Web', 'Login'],
        ['Sign in', 'Sign out'],
      ],
      [
        ['Web', 'Checkout'],
        ['Pay by card', 'Pay by invoice'],
      ],
      [['API'], ['Orders endpoint', 'Refunds endpoint']],
    ] as const) {
      await api('POST', '/project/LEAD/tcase/bulk', {
        folderPath,
        tcases: titles.map((title) => ({ title })),
      });
    }
    for (const c of (await api('GET', '/project/LEAD/tcase?limit=100')).data)
      ids.set(c.title, { id: c.id, seq: c.seq });
    // Yesterday's and the day before's nightly runs: what today's run is compared with.
    await run('Nightly 40', [
      ['Sign in', 'passed'],
      ['Pay by card', 'failed'],
    ]);
    await run('Nightly 41', [
      ['Sign in', 'failed'],
      ['Sign out', 'passed'],
      ['Pay by card', 'passed'],
    ]);
    await run('Nightly 42', []);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('records results through the API and on the run page, then opens the report from the run', async () => {
    await api('POST', `/project/LEAD/run/${runs['Nightly 42']}/result/batch`, {
      items: [
        { tcaseId: ids.get('Sign in')!.id, status: 'passed', timeTaken: 90_000 },
        {
          tcaseId: ids.get('Pay by card')!.id,
          status: 'failed',
          timeTaken: 30_000,
          comment: '<p>Card declined by the payment gateway</p>',
          links: [{ text: 'BUG-7', url: 'https://bugs.example/7' }],
        },
      ],
    });
    await page.goto(url(`/project/LEAD/run/${runs['Nightly 42']}`));
    await page.getByRole('heading', { name: /Nightly 42/, level: 1 }).waitFor();
    await page
      .getByRole('list', { name: 'Test cases of the run' })
      .getByRole('listitem')
      .filter({ hasText: 'Pay by invoice' })
      .click();
    await page.keyboard.press('b');
    await expect.poll(() => page.getByTestId('count-blocked').textContent()).toBe('1');
    // The run's results as CSV straight from the run page: the report's CSV (downloaded below from the report).
    const exportCsv = page.getByRole('link', { name: 'Export results as CSV' });
    expect(await exportCsv.getAttribute('href')).toBe(
      `/api/public/v0/project/LEAD/run/${runs['Nightly 42']}/report?format=csv`,
    );
    expect(await exportCsv.getAttribute('download')).toBe('');

    await page.getByRole('link', { name: 'Report', exact: true }).click();
    await page.getByRole('heading', { name: /Nightly 42/, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/project/LEAD/run/${runs['Nightly 42']}/report`);
    await expect.poll(() => stat('count-blocked').textContent()).toBe('1');
    expect(await stat('count-all').textContent()).toBe('6');
    expect(await stat('count-passed').textContent()).toBe('1');
    expect(await stat('count-failed').textContent()).toBe('1');
    expect(await stat('count-open').textContent()).toBe('3');
    // Passed of those with a result other than skipped: 1 of 3.
    expect(await stat('pass-rate').textContent()).toBe('33.3%');
    expect(await stat('time-spent').textContent()).toMatch(/^2 min( \d+ s)?$/);
  });

  it('compares with the comparable earlier run by default, names it, and lists new failures and fixes', async () => {
    expect(await stat('compared-with').textContent()).toBe(
      `Compared with Nightly 41 (run ${runs['Nightly 41']}), the comparable earlier run.`,
    );
    const seq = (t: string) => `LEAD-${ids.get(t)!.seq}`;
    expect(await page.getByRole('list', { name: 'New failures' }).textContent()).toContain(
      `${seq('Pay by card')} Pay by card`,
    );
    expect(await page.getByRole('list', { name: 'Fixed' }).textContent()).toContain(
      `${seq('Sign in')} Sign in`,
    );
    const folders = page.getByRole('region', { name: 'By folder' });
    expect(await folders.getByRole('rowheader').allTextContents()).toEqual([
      'API',
      'Web / Checkout',
      'Web / Login',
    ]);
    const failure = page.getByRole('listitem').filter({ hasText: 'Card declined by the payment gateway' });
    await failure.getByRole('link', { name: 'BUG-7' }).waitFor();
    expect(await failure.getByRole('link', { name: 'BUG-7' }).getAttribute('href')).toBe(
      'https://bugs.example/7',
    );
    a11y.push(...(await inspect(page, 'run-report', { dark: true })));
  });

  it('follows results recorded meanwhile, and compares with another run chosen in the address', async () => {
    await api('POST', `/project/LEAD/run/${runs['Nightly 42']}/result/batch`, {
      items: [
        { tcaseId: ids.get('Sign out')!.id, status: 'passed' },
        { tcaseId: ids.get('Orders endpoint')!.id, status: 'passed' },
      ],
    });
    await page.reload();
    await expect.poll(() => stat('count-passed').textContent()).toBe('3');
    expect(await stat('count-open').textContent()).toBe('1');
    expect(await stat('pass-rate').textContent()).toBe('60%');

    await page.getByLabel('Compare with').selectOption({ label: `Nightly 40 (run ${runs['Nightly 40']})` });
    await expect.poll(() => new URL(page.url()).searchParams.get('since')).toBe(String(runs['Nightly 40']));
    await expect
      .poll(() => stat('compared-with').textContent())
      .toBe(`Compared with Nightly 40 (run ${runs['Nightly 40']}), chosen for this report.`);
    // Pay by card failed in Nightly 40 too: only Pay by invoice fails anew, and Sign in was never failing there.
    const seq = (t: string) => `LEAD-${ids.get(t)!.seq}`;
    await expect
      .poll(() => page.getByRole('list', { name: 'New failures' }).textContent())
      .toBe(`${seq('Pay by invoice')} Pay by invoice`);
    await page.getByText('None: no case that failed there passed here.').waitFor();
    await page.reload();
    await page.getByText(`Compared with Nightly 40`).waitFor();
  });

  it.skipIf(!hasPdftotext)(
    'prints a clean document: the report with its title, project, date and comparison, without the application',
    async () => {
      fs.mkdirSync(OUT, { recursive: true });
      const pdf = path.join(OUT, 'lead-day-report.pdf');
      // The project's name arrives by its own request (the code stands in until then): print what a person would.
      await expect.poll(() => page.locator('.report-kind').textContent()).toMatch(/Checkout service/i);
      await page.pdf({ path: pdf, format: 'A4' });
      const text = execFileSync(PDFTOTEXT, ['-layout', pdf, '-'], { encoding: 'utf8' });
      // The kind line is set in capitals by the style sheet, and so extracted.
      expect(text).toContain('RUN REPORT · CHECKOUT SERVICE');
      for (const expected of [
        'Nightly 42',
        `Run ${runs['Nightly 42']} of LEAD`,
        'printed',
        `Compared with Nightly 40 (run ${runs['Nightly 40']})`,
        'Web / Checkout',
        'Card declined by the payment gateway',
        'https://bugs.example/7',
        'Pass rate',
      ])
        expect(text, expected).toContain(expected);
      for (const absent of [
        'Download CSV',
        'Print or save as PDF',
        'Share',
        'Skip to content',
        'Compare with',
        'Projects /',
      ])
        expect(text, absent).not.toContain(absent);
    },
  );

  it('downloads the CSV: every case of the run with its latest result', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^LEAD-.*\.csv$/);
    const csv = fs
      .readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).toBe('seq,case,tcaseId,title,folderPath,status,comment,links,author,at,timeTakenMs');
    expect(csv).toHaveLength(7);
    const row = (t: string) => csv.find((l) => l.startsWith(`${ids.get(t)!.seq},`)) ?? '';
    expect(row('Pay by card')).toContain('Web / Checkout,failed,<p>Card declined by the payment gateway</p>');
    expect(row('Pay by card')).toContain('https://bugs.example/7');
    expect(row('Pay by invoice')).toContain(',blocked,');
    expect(row('Refunds endpoint')).toMatch(/,open,,,,,$/);
  });

  it('shares the report by a link that opens without a session, with noindex and no way into the application', async () => {
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this run report' });
    await dialog.getByLabel('The link expires after').selectOption('7');
    a11y.push(...(await inspect(page, 'share-dialog')));
    // A refusal is said in words in the dialog, which keeps the choice for another try.
    const shareApi = '**/api/public/v0/project/LEAD/report/share';
    await page.route(shareApi, (route) =>
      route.fulfill({ status: 403, json: { code: 'FORBIDDEN', message: 'project LEAD is archived' } }),
    );
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Project LEAD is archived.' }).waitFor();
    await page.unroute(shareApi);
    expect(await dialog.getByLabel('The link expires after').inputValue()).toBe('7');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const field = dialog.getByLabel('Link to this run report');
    await field.waitFor();
    sharedUrl = await field.inputValue();
    expect(sharedUrl).toMatch(new RegExp(`^${service.baseUrl}/shared/[A-Za-z0-9_-]{40,}$`));
    expect(await dialog.textContent()).toContain('without signing in, until');
    const [share] = (await api('GET', '/project/LEAD/report/share')).shares;
    expect(share).toMatchObject({
      report: 'run',
      params: { runId: runs['Nightly 42'], since: runs['Nightly 40'] },
      revoked: false,
    });
    const days = (Date.parse(share.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    a11y.push(...(await inspect(page, 'share-dialog-made')));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });

    const stranger = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const visit = await stranger.newPage();
    visit.on('pageerror', (e) => pageErrors.push(String(e)));
    const refused: string[] = [];
    visit.on('response', (r) => {
      if (r.status() === 401 || r.status() === 403) refused.push(r.url());
    });
    const opened = await visit.goto(sharedUrl);
    expect(opened?.headers()).toMatchObject({ 'x-robots-tag': 'noindex', 'referrer-policy': 'no-referrer' });
    await visit.getByRole('heading', { name: /Nightly 42/, level: 1 }).waitFor();
    expect(await visit.locator('header').first().textContent()).toMatch(
      /^Shared report · Checkout service · expires /,
    );
    expect(await visit.getByTestId('count-passed').textContent()).toBe('3');
    expect(await visit.getByTestId('compared-with').textContent()).toContain('Compared with Nightly 40');
    expect(await visit.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex');
    // Nothing leads into the application (it would ask to sign in); the issue link leads out.
    const hrefs = await visit.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual(['https://bugs.example/7']);
    expect(await visit.getByRole('button').count()).toBe(0);
    expect(refused).toEqual([]);
    expect(visit.url()).toBe(sharedUrl);
    a11y.push(...(await inspect(visit, 'shared-report', { dark: true })));

    // Revoked: the same address now says so, and shows nothing of the report.
    const revoked = await sessionFetch(page, service.baseUrl)(
      'DELETE',
      `/project/LEAD/report/share/${share.id}`,
    );
    expect(revoked.status()).toBe(204);
    await visit.reload();
    await visit.getByRole('heading', { name: 'This link has expired or was revoked', level: 1 }).waitFor();
    expect(await visit.getByText('Nightly 42').count()).toBe(0);
    a11y.push(...(await inspect(visit, 'shared-report-gone')));
    await stranger.close();
  });

  it('offers no Share to a viewer, whom the API would refuse', async () => {
    // The role as the page learns it (GET /users/me): the API's own refusal is tested with the shares module.
    await page.route('**/api/public/v0/users/me', async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      await route.fulfill({ response: res, json: { ...body, user: { ...body.user, role: 'viewer' } } });
    });
    await page.goto(url(`/project/LEAD/run/${runs['Nightly 42']}/report`));
    await page.getByRole('link', { name: 'Download CSV' }).waitFor();
    expect(await page.getByRole('button', { name: 'Share' }).count()).toBe(0);
    await page.unroute('**/api/public/v0/users/me');
  });

  it('has no serious or critical accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
