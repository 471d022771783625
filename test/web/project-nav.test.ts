import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  sessionApi,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

if (!hasChromium)
  console.log(`[casebook] project navigation browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * Issue 26: the project's navigation bar on every project page, and the project's settings page (General, the
 * shared report links with revoke), in a real browser over SQLite, as the owner, a test-runner and a viewer.
 */
describe.skipIf(!hasChromium)('the project navigation bar and settings page in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (path: string) => `${service.baseUrl}${path}`;
  let runId = 0;
  let ownerName = '';

  const bar = (p: Page) => p.getByRole('navigation', { name: 'Project' });
  const current = (p: Page) => bar(p).locator('[aria-current="page"]');
  /** The page is no wider than the window: only the bar may scroll sideways. */
  const pageOverflows = (p: Page) =>
    p.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

  /** A person of the given role, a member of NAV, signed in in a browser of their own; and their id. */
  async function member(
    role: 'viewer' | 'test-runner',
    name: string,
    email = `${role}@example.com`,
  ): Promise<[BrowserContext, Page, number]> {
    const account = { email, password: `${role} password 1` };
    const { link } = await api('POST', '/users/invitations', { email: account.email, role });
    const registered = await fetch(url('/api/auth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: String(link).split('/').pop(), name, password: account.password }),
    });
    expect(registered.status).toBe(201);
    const { id } = (await registered.json()) as { id: number };
    await api('POST', '/project/NAV/member', { userId: id });
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(p, service.baseUrl, account);
    return [ctx, p, id];
  }

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    ownerName = (await api('GET', '/users/me')).user.name;
    await api('POST', '/project', { code: 'NAV', title: 'Navigation' });
    await api('POST', '/project/NAV/tcase/bulk', {
      folderPath: ['Checkout'],
      tcases: [{ title: 'Pay by card' }, { title: 'Pay by invoice' }],
    });
    const cases = (await api('GET', '/project/NAV/tcase?limit=10')).data as { id: string }[];
    runId = (
      await api('POST', '/project/NAV/run', {
        title: 'Nightly checkout',
        type: 'static',
        queryPlans: [{ tcaseIds: cases.map((c) => c.id) }],
      })
    ).id;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('shows the bar on every project page with the project named and the current page marked', async () => {
    const pages: [path: string, heading: string | RegExp, tab: string][] = [
      ['/project/NAV', 'Navigation', 'Dashboard'],
      ['/project/NAV/repository', 'Repository', 'Test cases'],
      ['/project/NAV/tcase/1', 'Pay by card', 'Test cases'],
      ['/project/NAV/runs', 'Runs', 'Runs'],
      [`/project/NAV/run/${runId}`, /Nightly checkout/, 'Runs'],
      ['/project/NAV/plans', 'Test plans', 'Plans'],
      ['/project/NAV/milestones', 'Milestones', 'Milestones'],
      ['/project/NAV/reports', 'Reports', 'Reports'],
      ['/project/NAV/settings', 'Settings', 'Settings'],
    ];
    for (const [path, heading, tab] of pages) {
      await page.goto(url(path));
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await bar(page).getByText('Navigation', { exact: true }).waitFor();
      expect(await current(page).allTextContents(), path).toEqual([tab]);
      // The bar names the project: a page's breadcrumb (if any) starts below it.
      expect(
        await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'NAV' }).count(),
        path,
      ).toBe(0);
    }
  });

  it('reaches every page from the bar by keyboard, the bar staying where it is', async () => {
    await page.goto(url('/project/NAV'));
    await page.getByRole('heading', { name: 'Navigation', level: 1 }).waitFor();
    const tabs = ['Dashboard', 'Test cases', 'Runs', 'Plans', 'Milestones', 'Reports', 'Settings'];
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    for (let i = 0; i < 20 && (await focusedText()) !== 'Dashboard'; i++) await page.keyboard.press('Tab');
    expect(await focusedText()).toBe('Dashboard');
    const paths = ['/repository', '/runs', '/plans', '/milestones', '/reports', '/settings'];
    for (const [i, tab] of tabs.slice(1).entries()) {
      await page.keyboard.press('Tab');
      expect(await focusedText()).toBe(tab);
      await page.keyboard.press('Enter');
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/project/NAV${paths[i]}`);
      await expect.poll(() => current(page).textContent()).toBe(tab);
    }
  });

  it('edits the title: a refused value is said next to the field and nothing typed is lost', async () => {
    await page.goto(url('/project/NAV/settings'));
    const general = page.getByRole('region', { name: 'General' });
    await general.getByLabel('Title').waitFor();
    // The code is shown, never a field.
    await general.getByText('NAV', { exact: true }).waitFor();
    expect(await general.getByRole('textbox', { name: 'Code' }).count()).toBe(0);
    await general.getByLabel('Overview heading').fill('Checkout and payments');
    await general.getByLabel('Title').fill('N'.repeat(256));
    await general.getByRole('button', { name: 'Save' }).click();
    await general.getByText('Title must be 1-255 characters.').waitFor();
    expect(await general.getByLabel('Overview heading').inputValue()).toBe('Checkout and payments');
    expect(await general.getByLabel('Title').inputValue()).toBe('N'.repeat(256));
    expect(await api('GET', '/project/NAV')).toMatchObject({ title: 'Navigation', overviewTitle: '' });

    await general.getByLabel('Title').fill('Navigation and checkout');
    // The message goes as the value changes, while the field still has the focus: leaving it for Save moves
    // nothing from under the pointer.
    await expect.poll(() => general.getByText('Title must be 1-255 characters.').count()).toBe(0);
    expect(await general.getByLabel('Title').evaluate((el) => el === document.activeElement)).toBe(true);
    await general.getByRole('button', { name: 'Save' }).click();
    await general.getByRole('status').getByText('Saved.').waitFor();
    expect(await api('GET', '/project/NAV')).toMatchObject({
      title: 'Navigation and checkout',
      overviewTitle: 'Checkout and payments',
    });
    // The bar names the project by its new title.
    await bar(page).getByText('Navigation and checkout').waitFor();
    a11y.push(...(await inspect(page, 'project-settings', { dark: true })));
    await api('PATCH', '/project/NAV', { title: 'Navigation', overviewTitle: '' });
  });

  it('lists a link shared through the API, and revoking it removes it and closes its page', async () => {
    const shared = await api('POST', '/project/NAV/report/share', { report: 'run', params: { runId } });
    const token = String(shared.token);
    expect((await fetch(url(`/api/shared-report/${token}`))).status).toBe(200);

    // Each settings section has its own address; the side navigation leads there.
    await page.goto(url('/project/NAV/settings'));
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Shared report links' })
      .click();
    const section = page.getByRole('region', { name: 'Shared report links' });
    const list = section.getByRole('list', { name: 'Open shared links' });
    const row = list.getByRole('listitem').filter({ hasText: `run ${runId}` });
    await row.getByText(`By ${ownerName}`).waitFor();
    // The link opens the same report for the signed-in.
    expect(await row.getByRole('link', { name: `run ${runId}` }).getAttribute('href')).toBe(
      `/project/NAV/run/${runId}/report`,
    );
    await section.scrollIntoViewIfNeeded();
    a11y.push(...(await inspect(page, 'project-settings-links')));

    await row.getByRole('button', { name: `Revoke the link to run ${runId}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this link?' });
    await dialog.getByRole('button', { name: 'Revoke link' }).click();
    await section.getByText('No shared links open.').waitFor();
    await section.getByText('Share', { exact: true }).waitFor();
    await section.getByText('Expired and revoked links (1)').waitFor();
    expect((await api('GET', '/project/NAV/report/share')).shares).toMatchObject([{ revoked: true }]);
    expect((await fetch(url(`/api/shared-report/${token}`))).status).toBe(404);
  });

  it('shows a test-runner the links without Revoke on others’ links, and a viewer a read-only page', async () => {
    await api('POST', '/project/NAV/report/share', { report: 'dashboard' });
    const [runnerCtx, runner] = await member('test-runner', 'Tina Runner');
    try {
      await runner.goto(url('/project/NAV/settings/shared-links'));
      const section = runner.getByRole('region', { name: 'Shared report links' });
      await section.getByRole('list', { name: 'Open shared links' }).getByText(`By ${ownerName}`).waitFor();
      expect(await section.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
      await runner.goto(url('/project/NAV/settings'));
      await runner
        .getByRole('region', { name: 'General' })
        .getByText('Navigation', { exact: true })
        .waitFor();
      expect(await runner.getByRole('textbox', { name: 'Title' }).count()).toBe(0);
    } finally {
      await runnerCtx.close();
    }

    const [viewerCtx, viewer] = await member('viewer', 'Vera Viewer');
    try {
      await viewer.goto(url('/project/NAV/settings'));
      const general = viewer.getByRole('region', { name: 'General' });
      await general.getByText('Navigation', { exact: true }).waitFor();
      expect(await viewer.getByRole('textbox').count()).toBe(0);
      for (const name of [/Save/, /Archive/, /Delete/, /Revoke/])
        expect(await viewer.getByRole('button', { name }).count()).toBe(0);
      // What a viewer's role may not use is not listed: General and the issue trackers, read-only.
      const nav = viewer.getByRole('navigation', { name: 'Settings sections' });
      expect(await nav.getByRole('link').allInnerTexts()).toEqual(['General', 'Issue trackers']);
      a11y.push(...(await inspect(viewer, 'project-settings-viewer', { dark: true })));
    } finally {
      await viewerCtx.close();
    }
  });

  it('marks a link whose creator was removed from the project, and the owner can still revoke it', async () => {
    const [runnerCtx, runner, runnerId] = await member('test-runner', 'Rita Runner', 'rita@example.com');
    let token = '';
    try {
      const made = await sessionApi(runner, service.baseUrl)('POST', '/project/NAV/report/share', {
        report: 'run',
        params: { runId },
      });
      token = String(made.token);
    } finally {
      await runnerCtx.close();
    }
    await api('DELETE', `/project/NAV/member/${runnerId}`);
    expect((await fetch(url(`/api/shared-report/${token}`))).status).toBe(404);

    await page.goto(url('/project/NAV/settings/shared-links'));
    const section = page.getByRole('region', { name: 'Shared report links' });
    const row = section
      .getByRole('list', { name: 'Open shared links' })
      .getByRole('listitem')
      .filter({ hasText: 'By Rita Runner' });
    await row.getByText('Inactive: its creator no longer has access').waitFor();
    // Only the link whose creator lost access is marked.
    expect(await section.getByText(/^Inactive:/).count()).toBe(1);
    await section.scrollIntoViewIfNeeded();
    a11y.push(...(await inspect(page, 'project-settings-links-inactive', { dark: true })));

    await row.getByRole('button', { name: `Revoke the link to run ${runId}` }).click();
    await page
      .getByRole('dialog', { name: 'Revoke this link?' })
      .getByRole('button', { name: 'Revoke link' })
      .click();
    await row.waitFor({ state: 'detached' });
    // Restored to the project, the runner does not bring a revoked link back.
    await api('POST', '/project/NAV/member', { userId: runnerId });
    expect((await fetch(url(`/api/shared-report/${token}`))).status).toBe(404);
  });

  it('fits a phone: the bar scrolls on its own, the page does not overflow', async () => {
    for (const [path, heading] of [
      ['/project/NAV', 'Navigation'],
      [`/project/NAV/run/${runId}`, /Nightly checkout/],
      ['/project/NAV/settings', 'Settings'],
    ] as const) {
      await page.setViewportSize(VIEWPORTS.phone);
      await page.goto(url(path));
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(await pageOverflows(page), path).toBe(false);
      // The current tab is in view even when the bar is scrolled.
      const box = await current(page).boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= VIEWPORTS.phone.width, path).toBe(true);
      await page.setViewportSize(VIEWPORTS.desktop);
    }
    await page.goto(url('/project/NAV'));
    await page.getByRole('heading', { name: 'Navigation', level: 1 }).waitFor();
    a11y.push(...(await inspect(page, 'project-dashboard-nav', { dark: true })));
    await page.goto(url(`/project/NAV/run/${runId}`));
    await page.getByRole('heading', { name: /Nightly checkout/, level: 1 }).waitFor();
    await page.getByText('Pay by card').first().waitFor();
    a11y.push(...(await inspect(page, 'project-run-nav')));
  });

  it('has no serious or critical accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
