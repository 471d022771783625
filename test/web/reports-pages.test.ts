import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  SCREENSHOTS,
  sessionApi,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] reports pages browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

type Tcase = { id: string; seq: number; title: string };

/**
 * The reports page, a milestone's report and a plan's report in a real browser (SQLite), over results seeded
 * through the API with known numbers: 15 runs — a plan of two, ten where "Logout" fails alone, then three of
 * every case (the first two in milestone "Beta").
 */
describe.skipIf(!hasChromium)('the report pages in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (path: string) => `${service.baseUrl}${path}`;
  const c: Record<'login' | 'signup' | 'logout' | 'reset', Tcase> = {} as never;
  let planId = 0;
  let milestoneId = 0;
  const beta: number[] = [];

  const run = async (title: string, cases: Tcase[], extra: Record<string, unknown> = {}) =>
    (
      await api('POST', '/project/REP/run', {
        title,
        type: 'static_struct',
        queryPlans: [{ tcaseIds: cases.map((x) => x.id) }],
        ...extra,
      })
    ).id as number;
  const result = (runId: number, t: Tcase, status: string, extra: Record<string, unknown> = {}) =>
    api('POST', `/project/REP/run/${runId}/tcase/${t.id}/result`, { status, comment: '', ...extra });
  const bug = { links: [{ url: 'https://bugs.example/7', text: 'BUG-7' }] };
  /** The cells of the table row that holds `text`, as the page shows them. */
  const row = (table: Locator, text: string) =>
    table
      .getByRole('row')
      .filter({ hasText: text })
      .getByRole('cell')
      .allInnerTexts()
      .then((cells) => cells.map((x) => x.replace(/\s+/g, ' ').trim()));

  /** The whole page at both sizes, to look at every section (inspect saves what the window shows). */
  const fullPage = async (name: string) => {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: `${SCREENSHOTS}/${name}-full-${size}.png`, fullPage: true });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  };

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    await api('POST', '/project', { code: 'REP', title: 'Reports' });
    const folderId = (await api('POST', '/project/REP/tcase/folder/bulk', { folders: [{ path: ['Auth'] }] }))
      .ids[0][0] as number;
    const login = { text: 'R1 Sign-in', url: 'https://req.example/r1' };
    for (const [key, title, requirements] of [
      ['login', 'Log in', [login]],
      ['signup', 'Sign up', [login]],
      ['logout', 'Logout', []],
      ['reset', 'Reset password', []],
    ] as const) {
      const made = await api('POST', '/project/REP/tcase', {
        title,
        type: 'standalone',
        priority: 'medium',
        folderId,
        requirements,
      });
      c[key] = { ...made, title };
    }
    milestoneId = (await api('POST', '/project/REP/milestone', { title: 'Beta' })).id;

    // The plan's runs come first: API (Log in passed, Sign up blocked) and UI (Log in left open).
    planId = (
      await api('POST', '/project/REP/plan', {
        title: 'Sprint 9',
        runs: [
          { title: 'API', queryPlans: [{ tcaseIds: [c.login.id, c.signup.id] }] },
          { title: 'UI', queryPlans: [{ tcaseIds: [c.login.id] }] },
        ],
      })
    ).id;
    const planRuns = (await api('GET', `/project/REP/plan/${planId}`)).runs as {
      id: number;
      title: string;
    }[];
    const apiRun = planRuns.find((r) => r.title === 'API')!.id;
    await result(apiRun, c.login, 'passed');
    await result(apiRun, c.signup, 'blocked');

    for (let i = 1; i <= 10; i++) await result(await run(`Nightly ${i}`, [c.logout]), c.logout, 'failed');

    const all = [c.login, c.signup, c.logout, c.reset];
    const r1 = await run('Release 1', all, { milestoneId });
    await result(r1, c.login, 'passed', { timeTaken: 1200 });
    await result(r1, c.signup, 'passed');
    await result(r1, c.logout, 'failed', bug);
    await result(r1, c.reset, 'passed');
    const r2 = await run('Release 2', all, { milestoneId });
    await result(r2, c.login, 'failed', { timeTaken: 2500, ...bug });
    await result(r2, c.signup, 'passed');
    await result(r2, c.logout, 'failed');
    await result(r2, c.reset, 'passed');
    beta.push(r1, r2);
    const r3 = await run('Release 3', all);
    await result(r3, c.login, 'passed', { timeTaken: 90_000 });
    await result(r3, c.signup, 'failed');
    await result(r3, c.logout, 'passed');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('shows every report with its numbers over the last 20 runs', async () => {
    await page.goto(url('/project/REP/reports'));
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();

    const trend = page.getByRole('table', { name: 'Pass rate by run' });
    await expect.poll(() => trend.getByRole('row').count()).toBe(1 + 15);
    // Release 2: 2 passed of 4 counted.
    await expect
      .poll(() => row(trend, 'Release 2'))
      .toEqual(['Release 2', '0', '2', '2', '0', '0', '4', '50%']);

    const failing = page.getByRole('table', { name: 'Most failing cases' });
    await expect.poll(() => failing.getByRole('row').nth(1).innerText()).toContain('Logout');
    expect((await row(failing, 'Logout')).slice(1, 3)).toEqual(['12', '13']);
    expect((await row(failing, 'Sign up')).slice(1, 3)).toEqual(['2', '4']);

    const flaky = page.getByRole('table', { name: 'Flaky cases' });
    // Log in: passed, passed, failed, passed (UI left open): the two newest changes flipped, the oldest not, so
    // its score is (0.8 + 1) / (0.64 + 0.8 + 1) = 74%.
    await expect
      .poll(() => row(flaky, 'Log in'))
      .toEqual([`REP-${c.login.seq} Log in`, '74%', '2', '5', 'Passed', 'No configuration: 74%, 2 flips']);
    // The runs that show it, oldest first, each named with its status.
    const shown = flaky.getByRole('list', { name: 'Runs of No configuration, oldest first' }).first();
    const labels = await shown.getByRole('link').evaluateAll((links) =>
      // The run's title and status, without the time between them.
      links.map((l) => (l.getAttribute('aria-label') ?? '').replace(/^([^,]*), .*: ([^:]+)$/, '$1: $2')),
    );
    expect(labels.slice(-3)).toEqual(['Release 1: Passed', 'Release 2: Failed', 'Release 3: Passed']);
    expect(labels).toHaveLength(5);
    await page.setViewportSize(VIEWPORTS.phone);
    await page.locator('#flaky').screenshot({ path: `${SCREENSHOTS}/flaky-mobile.png` });
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.locator('#flaky').screenshot({ path: `${SCREENSHOTS}/flaky-desktop.png` });

    const slowest = page.getByRole('table', { name: 'Slowest cases' });
    await expect
      .poll(() => row(slowest, 'Log in'))
      .toEqual([`REP-${c.login.seq} Log in`, '2.5 s', '1 min 30 s', '3']);

    // Auth's cases over the 15 runs: 15 failed or blocked (Logout 12, Sign up 2, Log in 1) of 23 with a result.
    const folders = page.getByRole('table', { name: 'Failures by folder' });
    await expect
      .poll(() => row(folders, 'Auth').then((cells) => cells.slice(0, 3)))
      .toEqual(['Auth', '15', '23']);

    const coverage = page.locator('#coverage');
    await coverage.getByText('2 cases cover no requirement.').waitFor();
    const requirement = (await row(coverage.getByRole('table', { name: 'Requirements' }), 'R1 Sign-in')).join(
      ' ',
    );
    expect(requirement).toMatch(/Log in\s+Passed/);
    expect(requirement).toMatch(/Sign up\s+Failed/);

    const defects = page.getByRole('table', { name: 'Defects' });
    await expect
      .poll(() => row(defects, 'BUG-7').then((cells) => cells.slice(0, 3)))
      .toEqual(['BUG-7', `REP-${c.login.seq} REP-${c.logout.seq}`, `#${beta[0]} #${beta[1]}`]);
    expect(await defects.getByRole('link', { name: 'BUG-7' }).getAttribute('href')).toBe(
      'https://bugs.example/7',
    );
    expect(await failing.getByRole('link', { name: /Logout/ }).getAttribute('href')).toBe(
      `/project/REP/tcase/${c.logout.seq}`,
    );
    a11y.push(...(await inspect(page, 'reports-page', { dark: true })));
    await fullPage('reports-page');
  });

  it('looks at fewer runs when the choice changes, and keeps the choice in the address', async () => {
    await page.getByLabel('Runs looked at').selectOption('10');
    await expect.poll(() => new URL(page.url()).searchParams.get('last')).toBe('10');
    const failing = page.getByRole('table', { name: 'Most failing cases' });
    // Ten runs back: seven of the nightly runs and the three releases.
    await expect.poll(() => row(failing, 'Logout').then((cells) => cells.slice(1, 3))).toEqual(['9', '10']);
    await expect
      .poll(() => page.getByRole('table', { name: 'Pass rate by run' }).getByRole('row').count())
      .toBe(11);
    await expect
      .poll(() =>
        page
          .getByRole('table', { name: 'Flaky cases' })
          .getByRole('row')
          .filter({ hasText: 'Log in' })
          .count(),
      )
      .toBe(1);
    await page.reload();
    await expect
      .poll(() => row(page.getByRole('table', { name: 'Most failing cases' }), 'Logout').then((x) => x[1]))
      .toBe('9');
    expect(await page.getByLabel('Runs looked at').inputValue()).toBe('10');
  });

  it('narrows the trend to a milestone and groups it by day', async () => {
    await page.getByLabel('Milestone').selectOption({ label: 'Beta' });
    const trend = page.getByRole('table', { name: 'Pass rate by run' });
    await expect.poll(() => trend.getByRole('row').count()).toBe(3);
    expect(new URL(page.url()).searchParams.get('milestone')).toBe(String(milestoneId));
    await page.getByLabel('Group by').selectOption('day');
    const byDay = page.getByRole('table', { name: 'Pass rate by day' });
    // Both runs were created today (UTC): one day, their counts added up.
    await expect.poll(() => byDay.getByRole('row').count()).toBe(2);
    expect((await byDay.getByRole('row').nth(1).getByRole('cell').allInnerTexts()).slice(-2)).toEqual([
      '8',
      '62.5%',
    ]);
  });

  it('sorts a table by a column from the keyboard', async () => {
    await page.goto(url('/project/REP/reports'));
    const failing = page.getByRole('table', { name: 'Most failing cases' });
    await failing.getByRole('row').nth(3).waitFor();
    const titles = () => failing.locator('.rep-case-title').allInnerTexts();
    const sortState = () =>
      failing.getByRole('columnheader', { name: /Test case/ }).getAttribute('aria-sort');
    // The report's own order: the most failures first.
    expect(await titles()).toEqual(['Logout', 'Sign up', 'Log in']);
    expect(await sortState()).toBeNull();
    await failing.getByRole('button', { name: /Test case/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(sortState).toBe('ascending');
    expect(await titles()).toEqual(['Log in', 'Sign up', 'Logout']);
    await page.keyboard.press('Enter');
    await expect.poll(sortState).toBe('descending');
    expect(await titles()).toEqual(['Logout', 'Sign up', 'Log in']);
    await failing.getByRole('button', { name: /In runs/ }).press('Enter');
    await expect.poll(sortState).toBeNull();
    expect(await titles()).toEqual(['Logout', 'Log in', 'Sign up']);
  });

  it('jumps to a report from the section links, the focus on its heading', async () => {
    await page
      .getByRole('navigation', { name: 'Reports on this page' })
      .getByRole('link', { name: 'Defects' })
      .click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Defects');
  });

  it('downloads a report as CSV rows from its link', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV: Most failing' }).click(),
    ]);
    const text = fs.readFileSync((await download.path())!, 'utf8');
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toMatch(/^seq,/);
    expect(lines.find((l) => l.includes('Logout'))).toContain(',12,13,');
    expect(lines).toHaveLength(1 + 3);
  });

  it("shows a milestone's report: its totals, its runs with their counts, its day", async () => {
    await page.goto(url('/project/REP/milestones'));
    await page.getByRole('link', { name: 'Beta: report' }).click();
    await page.getByRole('heading', { name: 'Beta: report', level: 1 }).waitFor();
    const summary = page.locator('.rep-summary');
    await expect
      .poll(() => summary.innerText())
      .toMatch(/Pass rate\s+62\.5%\s+Cases\s+8\s+Passed\s+5\s+Failed\s+3/);
    const runs = page.getByRole('table', { name: 'Runs of the milestone' });
    expect(await row(runs, 'Release 1')).toEqual(['Release 1', 'Open', '0', '3', '1', '0', '0', '4', '75%']);
    expect(await row(runs, 'Release 2')).toEqual(['Release 2', 'Open', '0', '2', '2', '0', '0', '4', '50%']);
    expect(await runs.getByRole('link', { name: 'Release 1' }).getAttribute('href')).toBe(
      `/project/REP/run/${beta[0]}/report`,
    );
    await page.getByRole('img', { name: /Cases per day/ }).waitFor();
    expect(await page.getByRole('table', { name: 'Cases per day' }).getByRole('row').count()).toBe(2);
    expect(await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).toBe(
      `/api/public/v0/project/REP/milestone/${milestoneId}/report?format=csv`,
    );
    a11y.push(...(await inspect(page, 'milestone-report', { dark: true })));
    await fullPage('milestone-report');
    // On paper: the report and its tables, without the app's header, the breadcrumb or the buttons.
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('link', { name: 'Download CSV' }).isVisible()).toBe(false);
    expect(await page.getByRole('navigation', { name: 'Breadcrumb' }).isVisible()).toBe(false);
    expect(await runs.isVisible()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/milestone-report-print.png`, fullPage: true });
    await page.emulateMedia({ media: 'screen' });
  });

  it("shows a plan's report from the plan page: its totals and its runs with their pass rates", async () => {
    await page.goto(url(`/project/REP/plan/${planId}`));
    await page.getByRole('link', { name: 'Report', exact: true }).click();
    await page.getByRole('heading', { name: 'Sprint 9: report', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.rep-summary').innerText()).toMatch(/Pass rate\s+50%\s+Cases\s+3/);
    const runs = page.getByRole('table', { name: 'Runs of the plan' });
    expect(await row(runs, 'API')).toEqual(['API', 'Open', '0', '1', '0', '1', '0', '2', '50%']);
    expect(await row(runs, 'UI')).toEqual(['UI', 'Open', '1', '0', '0', '0', '0', '1', '—']);
    const csv = await page.request.get(url(`/api/public/v0/project/REP/plan/${planId}/report?format=csv`));
    expect((await csv.text()).trim().split('\r\n')).toHaveLength(3);
    a11y.push(...(await inspect(page, 'plan-report')));
  });

  it('opens a shared milestone report without a session, its runs named but linking nowhere', async () => {
    const { url: link } = await api('POST', '/project/REP/report/share', {
      report: 'milestone',
      params: { milestoneId },
    });
    const anonymous = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const shared = await anonymous.newPage();
    await shared.goto(url(new URL(link).pathname));
    await shared.getByRole('heading', { name: 'Beta: milestone report', level: 1 }).waitFor();
    const runs = shared.getByRole('table', { name: 'Runs of the milestone' });
    expect(await row(runs, 'Release 1')).toEqual(['Release 1', 'Open', '0', '3', '1', '0', '0', '4', '75%']);
    expect(await runs.getByRole('link').count()).toBe(0);
    expect(await shared.locator('a[href^="/project"]').count()).toBe(0);
    await anonymous.close();
  });

  it('says what to do on a project without results, and names an unknown milestone', async () => {
    await api('POST', '/project', { code: 'NEW', title: 'Nothing yet' });
    await page.goto(url('/project/NEW/reports'));
    await page.getByText('No runs yet.').waitFor();
    await page.getByText('No case failed in the last 20 runs.').waitFor();
    await page.getByText('No requirements and no cases yet.').waitFor();
    a11y.push(...(await inspect(page, 'reports-empty')));
    await page.goto(url('/project/REP/milestone/999999/report'));
    await page.getByText('The report of milestone 999999 could not be shown.').waitFor();
  });

  it('shows the first 100 cases of a long report and more on request', async () => {
    await api('POST', '/project', { code: 'LONG', title: 'Long' });
    await api('POST', '/project/LONG/tcase/bulk', {
      folderPath: ['All'],
      tcases: Array.from({ length: 101 }, (_, i) => ({ title: `Case ${i + 1}` })),
    });
    const all = (await api('GET', '/project/LONG/tcase?limit=200')).data as { id: string }[];
    const runId = (
      await api('POST', '/project/LONG/run', {
        title: 'Everything fails',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: all.map((t) => t.id) }],
      })
    ).id;
    await api('POST', `/project/LONG/run/${runId}/result/batch`, {
      items: all.map((t) => ({ tcaseId: t.id, status: 'failed' })),
    });
    await page.goto(url('/project/LONG/reports'));
    const failing = page.getByRole('table', { name: 'Most failing cases' });
    await expect.poll(() => failing.getByRole('row').count()).toBe(1 + 100);
    await page.locator('#failing').getByText('The first 100 are shown.').waitFor();
    await page.locator('#failing').getByRole('button', { name: 'Show up to 500' }).click();
    await expect.poll(() => failing.getByRole('row').count()).toBe(1 + 101);
    expect(
      await page
        .locator('#failing')
        .getByRole('button', { name: /Show up to/ })
        .count(),
    ).toBe(0);
  });

  it('has no serious accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
