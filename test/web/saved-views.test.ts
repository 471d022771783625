import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  sessionApi,
  signIn,
  browserTargets,
  startServiceOn,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] saved views browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * Saved views in a real browser (SQLite; the rules are the API's, tested on both databases in
 * src/modules/views): the repository's filters saved privately, applied after a reload from the keyboard; a
 * runs-list view shared and applied by a viewer; a view renamed and deleted after a confirmation.
 */
describe.skipIf(!hasChromium).each(browserTargets('postgres'))('saved views in Chromium on %s', (target) => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (path: string) => `${service.baseUrl}${path}`;
  const VIEWER = { email: 'vera@example.com', password: 'vera pw 12345' };

  const viewsButton = (p: Page) => p.getByRole('button', { name: /^Views/ });
  // The menu is named by its button (React Aria labels it so).
  const menu = (p: Page) => p.getByRole('menu');
  const caseTitles = async () =>
    (await page.getByRole('list', { name: 'Test cases' }).getByRole('link').allTextContents()).map((t) =>
      t.trim(),
    );
  const searchParam = (p: Page, key: string) => {
    const v = new URL(p.url()).searchParams.get(key);
    return v === null ? null : JSON.parse(v);
  };
  const views = async () =>
    (await api('GET', '/project/VIEW/view')).views as { id: number; name: string; shared: boolean }[];

  beforeAll(async () => {
    ensureBuilt();
    service = await startServiceOn(target);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    await api('POST', '/project', { code: 'VIEW', title: 'Views' });
    await api('POST', '/project/VIEW/tcase/bulk', {
      folderPath: ['Checkout'],
      tcases: [{ title: 'Pay by card' }, { title: 'Apply a voucher' }, { title: 'Refund' }],
    });
    for (const seq of [1, 3]) await api('PATCH', `/project/VIEW/tcase/${seq}`, { priority: 'high' });
    const cases = (await api('GET', '/project/VIEW/tcase?limit=10')).data as { id: string }[];
    for (const title of ['Nightly regression', 'Release smoke']) {
      await api('POST', '/project/VIEW/run', {
        title,
        type: 'static_struct',
        queryPlans: [{ tcaseIds: cases.map((c) => c.id) }],
      });
    }
    // A viewer of the project, who will see what is shared.
    const { link } = await api('POST', '/users/invitations', { email: VIEWER.email, role: 'viewer' });
    const registered = await fetch(url('/api/auth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: String(link).split('/').pop(),
        name: 'Vera Viewer',
        password: VIEWER.password,
      }),
    });
    expect(registered.status).toBe(201);
    await api('POST', '/project/VIEW/member', { userId: ((await registered.json()) as { id: number }).id });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('saves the repository’s filters and sort as a private view, which the button then names', async () => {
    await page.goto(url(`/project/VIEW/repository?priority=${encodeURIComponent('["high"]')}&sort=title`));
    await expect.poll(caseTitles).toEqual(['Pay by card', 'Refund']);
    await viewsButton(page).click();
    await menu(page).getByRole('menuitem', { name: 'No saved views yet' }).waitFor();
    await menu(page).getByRole('menuitem', { name: 'Save current view…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save current view' });
    await dialog.getByLabel('Name').fill('High first');
    a11y.push(...(await inspect(page, 'views-save')));
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => viewsButton(page).textContent()).toContain('High first');
    expect(await views()).toEqual([expect.objectContaining({ name: 'High first', shared: false })]);

    // The same name again is refused under the name, and the dialog keeps what was typed.
    await viewsButton(page).click();
    await menu(page).getByRole('menuitem', { name: 'Save current view…' }).click();
    await dialog.getByLabel('Name').fill('high FIRST');
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await dialog.getByText(/already have a view named/).waitFor();
    expect(await dialog.getByLabel('Name').inputValue()).toBe('high FIRST');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('applies a view after a reload from the keyboard, marking it as the current one', async () => {
    await page.goto(url('/project/VIEW/repository'));
    await page.reload();
    await expect.poll(caseTitles).toEqual(['Pay by card', 'Apply a voucher', 'Refund']);
    expect(await viewsButton(page).textContent()).not.toContain('High first');
    await viewsButton(page).focus();
    await page.keyboard.press('Enter');
    const item = menu(page).getByRole('menuitemradio', { name: /High first/ });
    await item.waitFor();
    expect(await item.getAttribute('aria-checked')).toBe('false');
    // The menu opens with the focus on its first item, the view.
    await expect.poll(() => item.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await menu(page).waitFor({ state: 'detached' });
    await expect.poll(caseTitles).toEqual(['Pay by card', 'Refund']);
    expect(searchParam(page, 'priority')).toEqual(['high']);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('title');
    await expect.poll(() => viewsButton(page).textContent()).toContain('High first');
    await viewsButton(page).click();
    expect(await item.getAttribute('aria-checked')).toBe('true');
    a11y.push(...(await inspect(page, 'views-menu', { dark: true })));
    await page.keyboard.press('Escape');
  });

  it('shares a view of the runs list that a viewer sees and applies, but cannot share their own', async () => {
    await page.goto(url('/project/VIEW/runs?q=Nightly'));
    await page.getByRole('link', { name: 'Nightly regression', exact: true }).waitFor();
    await viewsButton(page).click();
    await menu(page).getByRole('menuitem', { name: 'Save current view…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save current view' });
    await dialog.getByLabel('Name').fill('Nightly');
    await dialog.getByLabel('Share with everyone in the project').check();
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => viewsButton(page).textContent()).toContain('Nightly');

    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const viewer = await ctx.newPage();
    viewer.on('pageerror', (e) => pageErrors.push(String(e)));
    try {
      await signIn(viewer, service.baseUrl, VIEWER);
      await viewer.goto(url('/project/VIEW/runs'));
      await viewer.getByRole('link', { name: 'Release smoke', exact: true }).waitFor();
      // A viewer reads runs: none of the runs' actions is offered (the API would refuse each).
      for (const name of ['New run', 'Edit Release smoke', 'Clone Release smoke', 'Close Release smoke'])
        expect(await viewer.getByRole('button', { name, exact: true }).count()).toBe(0);
      expect(await viewer.getByRole('link', { name: 'Report of Release smoke' }).count()).toBe(1);
      await viewsButton(viewer).click();
      const shared = menu(viewer).getByRole('menuitemradio', { name: /Nightly/ });
      await shared.waitFor();
      // Shared by its owner; the owner's private repository view is not on this page, nor anywhere for her.
      expect(await shared.textContent()).toContain('by Owner');
      // Nothing here is hers to rename or delete.
      expect(await menu(viewer).getByRole('menuitem', { name: 'Rename or delete views…' }).count()).toBe(0);
      a11y.push(...(await inspect(viewer, 'views-shared')));
      await shared.click();
      await viewer.getByRole('link', { name: 'Release smoke', exact: true }).waitFor({ state: 'detached' });
      expect(await viewer.getByRole('link', { name: 'Nightly regression', exact: true }).isVisible()).toBe(
        true,
      );
      expect(await viewer.getByLabel('Search titles').inputValue()).toBe('Nightly');
      // A viewer's own views stay private: the save dialog says so instead of offering to share.
      await viewsButton(viewer).click();
      await menu(viewer).getByRole('menuitem', { name: 'Save current view…' }).click();
      const own = viewer.getByRole('dialog', { name: 'Save current view' });
      await own.getByText('Viewers keep their views private').waitFor();
      expect(await own.getByRole('checkbox').count()).toBe(0);
      await own.getByRole('button', { name: 'Cancel' }).click();
      await viewer.goto(url('/project/VIEW/repository'));
      await viewsButton(viewer).click();
      await menu(viewer).getByRole('menuitem', { name: 'No saved views yet' }).waitFor();
    } finally {
      await ctx.close();
    }
  });

  it('renames a view and deletes one after a confirmation', async () => {
    await page.goto(url('/project/VIEW/repository'));
    await viewsButton(page).click();
    await menu(page).getByRole('menuitem', { name: 'Rename or delete views…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Saved views' });
    await dialog.getByRole('button', { name: 'Rename High first' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename “High first”' });
    await rename.getByLabel('Name').fill('Urgent');
    await rename.getByRole('button', { name: 'Save' }).click();
    await dialog.getByRole('button', { name: 'Delete Urgent' }).waitFor();
    a11y.push(...(await inspect(page, 'views-manage')));
    expect((await views()).map((v) => v.name)).toEqual(['Urgent', 'Nightly']);

    await dialog.getByRole('button', { name: 'Delete Urgent' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete “Urgent”?' });
    await confirm.getByRole('button', { name: 'Delete view' }).click();
    await dialog.getByText('No saved views on this page.').waitFor();
    expect((await views()).map((v) => v.name)).toEqual(['Nightly']);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('has no serious or critical accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
