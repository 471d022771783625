import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  SCREENSHOTS,
  seriousViolations,
  sessionApi,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] dashboard browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * The project's home, its dashboard, in a real browser (SQLite): a new project says what to do; runs seeded
 * through the API with known results show as the latest pass rate, the trend's table, failures by folder with
 * whole paths and the most failing and flaky cases; more results change it when one comes back to it.
 */
describe.skipIf(!hasChromium)('the project dashboard in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (p: string) => `${service.baseUrl}${p}`;
  const ids: Record<string, string> = {};
  const runIds: number[] = [];

  /** A run of the three cases with one result each (and a link or a time where given). */
  async function runWith(
    title: string,
    results: Record<string, string>,
    extra: Record<string, object> = {},
    milestoneId?: number,
  ) {
    const run = await api('POST', '/project/DASH/run', {
      title,
      milestoneId,
      type: 'static',
      queryPlans: [{ tcaseIds: Object.values(ids) }],
    });
    runIds.push(run.id);
    await api('POST', `/project/DASH/run/${run.id}/result/batch`, {
      items: Object.entries(results).map(([name, status]) => ({
        tcaseId: ids[name],
        status,
        ...extra[name],
      })),
    });
  }

  /** Light and dark, at both sizes: axe finds no serious or critical violation; screenshots to look at. */
  async function looks(name: string) {
    a11y.push(...(await inspect(page, name, { dark: true })));
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-desktop-full.png`), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize(VIEWPORTS.phone);
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone-dark.png`), fullPage: true });
    for (const v of await seriousViolations(page)) a11y.push(`${name} at phone-dark: ${v.id} ${v.help}`);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(VIEWPORTS.desktop);
  }

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    await api('POST', '/project', { code: 'DASH', title: 'Shop front' });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('tells a new project how to get a trend', async () => {
    await page.goto(url('/project/DASH'));
    await page.getByRole('heading', { name: 'Shop front', level: 1 }).waitFor();
    await page.getByText('Record results in a run to see the trend here.').waitFor();
    await page.getByRole('link', { name: 'Go to the runs' }).waitFor();
    await page.getByRole('region', { name: 'Open runs' }).getByText('No open runs.').waitFor();
    await looks('dashboard-empty');
  });

  it('shows the pass rate, the trend as a table, failing folders by whole path, failing and flaky cases', async () => {
    await api('POST', '/project/DASH/tcase/bulk', {
      folderPath: ['Web', 'Login'],
      tcases: [{ title: 'Sign in with a password' }, { title: 'Sign out' }],
    });
    await api('POST', '/project/DASH/tcase/bulk', {
      folderPath: ['API'],
      tcases: [{ title: 'Token refresh' }],
    });
    for (const c of (await api('GET', '/project/DASH/tcase')).data as { id: string; title: string }[]) {
      ids[c.title] = c.id;
    }
    const signIn = 'Sign in with a password';
    await runWith('Nightly 1', { [signIn]: 'failed', 'Sign out': 'passed', 'Token refresh': 'passed' });
    await runWith('Nightly 2', { [signIn]: 'passed', 'Sign out': 'passed', 'Token refresh': 'failed' });
    await runWith(
      'Nightly 3',
      { [signIn]: 'failed', 'Sign out': 'passed', 'Token refresh': 'passed' },
      {
        [signIn]: {
          links: [{ text: 'BUG-7 Login loops', url: 'https://bugs.example.com/7' }],
          timeTaken: 4200,
        },
      },
    );

    await page.goto(url('/project/DASH'));
    // Nightly 3: 2 of 3 passed.
    await expect.poll(() => page.getByTestId('latest-pass-rate').textContent()).toBe('67%');
    const trend = page.getByRole('region', { name: 'Pass rate by run' });
    await trend.locator('[data-drawn]').waitFor();
    expect(await trend.getByRole('img').first().getAttribute('aria-label')).toBe(
      `Pass rate over the last 3 runs: 67% in #${runIds[0]} Nightly 1, 67% in #${runIds[2]} Nightly 3; lowest 67% in #${runIds[0]} Nightly 1.`,
    );
    await trend.getByRole('button', { name: 'Table view of pass rate by run' }).click();
    const table = trend.getByRole('table', { name: /Pass rate by run/ });
    const rows = table.getByRole('row');
    await expect.poll(() => rows.count()).toBe(4);
    expect((await rows.nth(3).innerText()).split('\t').map((s) => s.trim())).toEqual([
      `#${runIds[2]} Nightly 3`,
      '67%',
      '2',
      '1',
      '3',
    ]);

    const folders = page.getByRole('region', { name: 'Failures by folder' });
    const items = folders.getByRole('listitem');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).innerText()).toMatch(/Web \/ Login\s+2 failing of 6 results/);
    expect(await items.nth(1).innerText()).toMatch(/API\s+1 failing of 3 results/);

    const failing = page.getByRole('list', { name: 'Most failing' }).getByRole('listitem');
    expect(await failing.first().innerText()).toMatch(
      /DASH-1 Sign in with a password\s+2 ✕\s+failed in 2 of 3 runs/,
    );
    const flaky = page.getByRole('list', { name: 'Flaky' });
    await flaky.getByRole('link', { name: 'DASH-1 Sign in with a password' }).waitFor();
    await flaky.getByRole('link', { name: 'DASH-3 Token refresh' }).waitFor();
    expect(await flaky.getByRole('listitem').count()).toBe(2);
    await page.getByRole('link', { name: 'BUG-7 Login loops' }).waitFor();
    expect(await page.getByRole('list', { name: 'Slowest' }).innerText()).toMatch(/4\.2 s/);
    await trend.getByRole('button', { name: 'Table view of pass rate by run' }).click();
    await trend.locator('[data-drawn]').waitFor();
    await looks('dashboard');
  });

  it('lets the keyboard switch the trend to by day and to its table', async () => {
    await page.goto(url('/project/DASH'));
    await page.getByRole('region', { name: 'Pass rate by run' }).locator('[data-drawn]').waitFor();
    const byDay = page.getByRole('button', { name: 'By day', exact: true });
    for (let i = 0; i < 30 && !(await byDay.evaluate((b) => b === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    expect(await byDay.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    const trend = page.getByRole('region', { name: 'Pass rate by day' });
    await expect.poll(() => byDay.getAttribute('aria-pressed')).toBe('true');
    const toggle = trend.getByRole('button', { name: 'Table view of pass rate by day' });
    // The days are another request: Tab moves on once their panel (and its toggle) is there.
    await toggle.waitFor();
    expect(await byDay.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Tab');
    expect(await toggle.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Space');
    // The three runs were created today: one day of 9 results, 6 passed.
    const rows = trend.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).innerText()).toMatch(/67%\s+6\s+3\s+9/);
  });

  it('shows new results when one comes back to it', async () => {
    const milestone = await api('POST', '/project/DASH/milestone', { title: 'Release 2.5' });
    await runWith(
      'Nightly 4',
      { 'Sign in with a password': 'passed', 'Sign out': 'passed', 'Token refresh': 'passed' },
      {},
      milestone.id,
    );
    await page.goto(url('/project/DASH'));
    await expect.poll(() => page.getByTestId('latest-pass-rate').textContent()).toBe('100%');
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    await api('POST', `/project/DASH/run/${runIds[3]}/result/batch`, {
      items: [{ tcaseId: ids['Sign out'], status: 'failed' }],
    });
    await page.goBack();
    await expect.poll(() => page.getByTestId('latest-pass-rate').textContent()).toBe('67%');
    const open = page.getByRole('list', { name: 'Open runs' });
    await open.getByRole('link', { name: 'Nightly 4' }).waitFor();
    expect(
      await open.getByRole('img', { name: /Nightly 4: 3 of 3 done/ }).getAttribute('aria-label'),
    ).toMatch(/2 Passed, 1 Failed/);
  });

  it('opens a shared dashboard without a session: the same figures, nothing that needs a session', async () => {
    const { url: link } = await api('POST', '/project/DASH/report/share', {
      report: 'dashboard',
      params: {},
    });
    const anonymous = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const shared = await anonymous.newPage();
      shared.on('pageerror', (e) => pageErrors.push(String(e)));
      await shared.goto(url(new URL(String(link)).pathname));
      await shared.getByRole('heading', { name: 'Shop front: where quality stands', level: 1 }).waitFor();
      await expect.poll(() => shared.getByTestId('latest-pass-rate').textContent()).toBe('67%');
      await shared.getByText('Web / Login').first().waitFor();
      // No open runs or milestones (they are not part of the link), and no link into the application.
      expect(await shared.getByRole('region', { name: 'Open runs' }).count()).toBe(0);
      expect(await shared.locator('a[href^="/project"]').count()).toBe(0);
      a11y.push(...(await inspect(shared, 'shared-dashboard')));
    } finally {
      await anonymous.close();
    }
  });

  it('has no serious or critical accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
