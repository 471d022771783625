import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
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

if (!hasChromium) console.log(`[casebook] folder context browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

const LONG = ['Shop', 'Payments and refunds', 'Checkout', 'Cards'];

/**
 * Folder context everywhere in a real browser (SQLite): whole paths shortened in the middle, case counts
 * in the tree, the tree's expansion remembered across a reload and pages, and the new-run folder picker as a tree
 * with counts, mixed states and the keyboard.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))('folder context in Chromium on %s', (target) => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (path: string) => `${service.baseUrl}${path}`;
  const look = async (name: string, dark = false) => a11y.push(...(await inspect(page, name, { dark })));
  const tree = () => page.getByRole('treegrid', { name: 'Folders' });
  const folderRow = (title: string) => tree().getByRole('row', { name: title, exact: true });
  /** A folder of the new-run picker by title (its name also reads its case count). */
  const pick = (scope: Locator, title: string) =>
    scope
      .getByRole('tree', { name: 'Folders of plan 1' })
      .getByRole('treeitem', { name: new RegExp(`^${title}\\s*(,|$)`) });

  beforeAll(async () => {
    ensureBuilt();
    service = await startServiceOn(target);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    await api('POST', '/project', { code: 'CTX', title: 'Folder context' });
    const add = (folderPath: string[], titles: string[]) =>
      api('POST', '/project/CTX/tcase/bulk', { folderPath, tcases: titles.map((title) => ({ title })) });
    await add(['Shop'], ['Shop opens']);
    await add(LONG.slice(0, 3), ['Checkout starts', 'Checkout ends']);
    await add(LONG, ['Card declined', 'Card accepted', 'Card expired']);
    await add(['Docs'], ['Docs build', 'Docs link']);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("shows each folder's cases with its subfolders' in the tree, and whole paths shortened in the middle in a search", async () => {
    await page.goto(url('/project/CTX/repository'));
    const count = (title: string) => folderRow(title).locator('.folder-count');
    await expect.poll(() => count('Shop').locator('[aria-hidden="true"]').textContent()).toBe('6');
    // Read out in words: the row's name stays the folder's title.
    expect(await count('Shop').locator('.visually-hidden').textContent()).toBe(
      'Cases: 6 with subfolders, 1 directly in it',
    );
    expect(await count('Docs').getAttribute('title')).toBe('Cases: 2 with subfolders, 2 directly in it');

    await page.getByRole('searchbox', { name: 'Search test cases by number or text' }).fill('card');
    const rows = page.getByRole('list', { name: 'Test cases' }).getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(3);
    const folder = rows.first().locator('.case-folder');
    // Shown: the top folder, … and the leaf end; the whole path is the tooltip and what a screen reader reads.
    expect(await folder.locator('[aria-hidden="true"]').textContent()).toBe('Shop / … / Checkout / Cards');
    expect(await folder.getAttribute('title')).toBe(LONG.join(' / '));
    expect(await folder.locator('.visually-hidden').textContent()).toBe(LONG.join(' / '));
    await look('folders-search-paths');
  });

  it('remembers the expanded folders across a reload and another page', async () => {
    await page.goto(url('/project/CTX/repository'));
    await folderRow('Shop').locator('.folder-chevron').click();
    await folderRow('Payments and refunds').locator('.folder-chevron').click();
    await folderRow('Checkout').waitFor();
    await page.reload();
    await folderRow('Checkout').waitFor();
    expect(await folderRow('Shop').getAttribute('aria-expanded')).toBe('true');
    expect(await folderRow('Checkout').getAttribute('aria-expanded')).toBe('false');
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    await page.goBack();
    await folderRow('Checkout').waitFor();
    await look('folders-tree-counts', true);
  });

  it('picks folders for a new run in a tree: a folder takes its subtree, its parents show mixed, the cases are counted', async () => {
    await page.goto(url('/project/CTX/runs'));
    await page.getByRole('button', { name: 'New run' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New run' });
    await dialog.getByLabel('Title').fill('Checkout pass');
    // The picker opens as the repository's tree was left: Shop and Payments expanded.
    const checkout = pick(dialog, 'Checkout');
    await checkout.waitFor();
    expect(await pick(dialog, 'Shop').getAttribute('aria-expanded')).toBe('true');
    await checkout.click();
    const state = (title: string) => pick(dialog, title).getAttribute('aria-checked');
    await expect.poll(() => state('Checkout')).toBe('true');
    expect(await state('Shop')).toBe('mixed');
    expect(await state('Payments and refunds')).toBe('mixed');
    expect(await state('Docs')).toBe('false');
    const counted = dialog.getByText(/in the chosen folders?$/);
    await expect.poll(() => counted.textContent()).toBe('5 cases in the chosen folder');
    await expect.poll(() => dialog.getByTestId('preview-total').textContent()).toBe('5');

    // The keyboard: → opens Checkout and goes into it, Cards is in with its parent and not a choice of its own.
    await checkout.focus();
    await page.keyboard.press('ArrowRight');
    await pick(dialog, 'Cards').waitFor();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => pick(dialog, 'Cards').evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await state('Cards')).toBe('true');
    expect(await pick(dialog, 'Cards').getAttribute('aria-disabled')).toBe('true');
    await page.keyboard.press('Space');
    expect(await state('Cards')).toBe('true');
    // ← goes up to the parent and closes it; End reaches Docs, Space checks it.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await pick(dialog, 'Cards').waitFor({ state: 'detached' });
    await page.keyboard.press('End');
    await page.keyboard.press('Space');
    await expect.poll(() => state('Docs')).toBe('true');
    await expect.poll(() => counted.textContent()).toBe('7 cases in the chosen folders');
    await expect.poll(() => dialog.getByTestId('preview-total').textContent()).toBe('7');
    await look('folders-new-run', true);

    // Shop takes its whole subtree: Checkout is in with it now, and counted once.
    await pick(dialog, 'Shop').click();
    await expect.poll(() => counted.textContent()).toBe('8 cases in the chosen folders');
    expect(await state('Checkout')).toBe('true');
    expect(await pick(dialog, 'Checkout').getAttribute('aria-disabled')).toBe('true');
    // Unchecking Shop gives nothing back of what it took: Docs stays.
    await pick(dialog, 'Shop').click();
    await expect.poll(() => counted.textContent()).toBe('2 cases in the chosen folder');
    await pick(dialog, 'Checkout').click();
    await expect.poll(() => dialog.getByTestId('preview-total').textContent()).toBe('7');
    await dialog.getByRole('button', { name: 'Create run' }).click();
    await page.getByRole('heading', { name: /Checkout pass/, level: 1 }).waitFor();
  });

  it('groups the run page by whole folder paths', async () => {
    const groups = page
      .getByRole('list', { name: 'Test cases of the run' })
      .locator('.run-folder .folder-path');
    await expect
      .poll(() => groups.allTextContents())
      .toEqual(['Shop / Payments and refunds / Checkout', LONG.join(' / '), 'Docs']);
    // A phone shortens them further, keeping the leaf: the whole path stays the tooltip.
    await page.setViewportSize(VIEWPORTS.phone);
    const long = groups.nth(1);
    await expect
      .poll(() => long.locator('[aria-hidden="true"]').textContent())
      .toBe('Shop / … / Checkout / Cards');
    expect(await long.getAttribute('title')).toBe(LONG.join(' / '));
    await page.setViewportSize(VIEWPORTS.desktop);
    await look('folders-run-groups');
  });

  it('imports under a folder picked by its whole path', async () => {
    await page.goto(url('/project/CTX/import'));
    const under = page.getByLabel('Under folder');
    await expect.poll(() => under.locator('option').allTextContents()).toContain(LONG.join(' / '));
    await under.selectOption({ label: LONG.join(' / ') });
    await look('folders-import-under');
    const csv =
      'Folder,Type,Name,Legacy ID,Draft,Priority,Tags,Requirements,Links,Files,Preconditions\n' +
      'Amex,standalone,Amex accepted,,false,medium,,,,,\n';
    await page.getByLabel('Dry run: check the file and count, write nothing').uncheck();
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'amex.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await page.getByRole('button', { name: 'Start the import' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    const [made] = (await api('GET', '/project/CTX/tcase?search=Amex&include=path')).data as {
      path: { title: string }[];
    }[];
    expect(made.path.map((f) => f.title)).toEqual([...LONG, 'Amex']);
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
