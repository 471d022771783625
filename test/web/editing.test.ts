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

if (!hasChromium) console.log(`[casebook] editing browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * Issue 28's editing items in a real browser against a real server (SQLite): a case duplicated from its page and
 * from the repository's row menu, "Save and add another", a bulk edit of the selection (priority, custom fields,
 * tags; add to a run) with each failed case named, and a version history that says what changed with the steps
 * compared step by step. In order, on one signed-in page.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))(
  'editing test cases in Chromium on %s',
  (target) => {
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    let api: SessionApi;
    let checkout = 0;
    let search = 0;
    let runId = 0;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const consoleLines: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    const look = async (name: string, dark = false) => a11y.push(...(await inspect(page, name, { dark })));
    const caseList = () => page.getByRole('list', { name: 'Test cases' });
    const folderCases = async (folder: number) =>
      (await api('GET', `/project/EDIT/tcase?folders=${folder}&include=tags&include=customFields`)).data as {
        id: string;
        seq: number;
        title: string;
        priority: string;
        tags: { title: string }[];
        customFields: Record<string, { value: string }>;
      }[];

    beforeAll(async () => {
      ensureBuilt();
      service = await startServiceOn(target);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      page.on('console', (m) => consoleLines.push(m.text()));
      api = sessionApi(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      await api('POST', '/project', { code: 'EDIT', title: 'Editing' });
      const { ids } = await api('POST', '/project/EDIT/tcase/folder/bulk', {
        folders: [{ path: ['Checkout'] }, { path: ['Search'] }],
      });
      [checkout, search] = [ids[0][0], ids[1][0]];
      await api('POST', '/custom-field', {
        type: 'dropdown',
        systemName: 'stage',
        name: 'Stage',
        options: [{ value: 'alpha' }, { value: 'beta' }],
      });
      await api('POST', '/custom-field', { type: 'checkbox', systemName: 'automated', name: 'Automated' });
      const pay = await api('POST', '/project/EDIT/tcase', {
        type: 'standalone',
        folderId: checkout,
        title: 'Pay with a saved card',
        priority: 'high',
        precondition: { text: '<p>Signed in with a saved card</p>' },
        steps: [
          { description: '<p>Open the cart</p>', expected: '' },
          { description: '<p>Pay the order</p>', expected: '<p>Paid</p>' },
        ],
        tags: ['smoke'],
        customFields: { stage: { value: 'alpha' } },
        requirements: [{ text: 'REQ-7', url: '' }],
      });
      for (const [title, isDraft] of [
        ['Find a book', false],
        ['Find an author', false],
        ['Find a shelf', true],
      ] as const)
        await api('POST', '/project/EDIT/tcase', {
          type: 'standalone',
          folderId: search,
          title,
          priority: 'medium',
          isDraft,
        });
      runId = (
        await api('POST', '/project/EDIT/run', {
          title: 'Sprint 12',
          type: 'static_struct',
          queryPlans: [{ tcaseIds: [pay.id] }],
        })
      ).id;
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
    });

    it('duplicates a case from its page: the editor holds a copy, saved as a new case', async () => {
      await page.goto(url('/project/EDIT/tcase/1'));
      await page.getByRole('heading', { name: 'Pay with a saved card', level: 1 }).waitFor();
      // From the keyboard: the Duplicate link is in the tab order.
      await page.getByRole('link', { name: 'Duplicate' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Duplicate EDIT-1', level: 1 }).waitFor();
      const title = page.getByLabel('Title');
      await expect.poll(() => title.inputValue()).toBe('Copy of Pay with a saved card');
      // The folder list loads after the copy: the choice shows once it is there.
      await expect
        .poll(() =>
          page.getByRole('combobox', { name: 'Folder', exact: true }).locator('option:checked').textContent(),
        )
        .toBe('Checkout');
      await page.getByRole('textbox', { name: 'Step 2 description' }).waitFor();
      expect(await page.getByRole('textbox', { name: 'Step 2 expected result' }).textContent()).toBe('Paid');
      await look('editing-duplicate');

      await page.getByRole('button', { name: 'Create case' }).first().click();
      await page.getByRole('heading', { name: 'Copy of Pay with a saved card', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/project/EDIT/tcase/5');
      const copy = await api('GET', '/project/EDIT/tcase/5');
      expect(copy).toMatchObject({
        folderId: checkout,
        priority: 'high',
        precondition: { text: '<p>Signed in with a saved card</p>' },
        steps: [
          { description: '<p>Open the cart</p>' },
          { description: '<p>Pay the order</p>', expected: '<p>Paid</p>' },
        ],
        tags: [{ title: 'smoke' }],
        customFields: { stage: { value: 'alpha' } },
        requirements: [{ text: 'REQ-7' }],
      });
      // The original is untouched: still one version.
      expect((await api('GET', '/project/EDIT/tcase/1')).version).toBe(1);
    });

    it("duplicates a case from the repository row's menu, by keyboard", async () => {
      await page.goto(url(`/project/EDIT/repository?folder=${checkout}`));
      const actions = caseList().getByRole('button', { name: 'Actions for EDIT-1 Pay with a saved card' });
      await actions.focus();
      await page.keyboard.press('Enter');
      const menu = page.getByRole('menu', { name: 'Actions for EDIT-1 Pay with a saved card' });
      await menu.waitFor();
      await look('editing-row-menu');
      await page.keyboard.press('ArrowDown');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent?.trim()))
        .toBe('Duplicate…');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Duplicate EDIT-1', level: 1 }).waitFor();
      await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Copy of Pay with a saved card');
      // Saved with "Save and add another": the next editor is a new case in the copy's folder, and the address
      // no longer names the case that was copied.
      await page.getByRole('button', { name: 'Save and add another' }).first().click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Created EDIT-6 Copy of Pay with a saved card' })
        .waitFor();
      await page.getByRole('heading', { name: 'New test case', level: 1 }).waitFor();
      await expect.poll(() => new URL(page.url()).search).toBe(`?folder=${checkout}`);
      // The folder list loads after the copy: the choice shows once it is there.
      await expect
        .poll(() =>
          page.getByRole('combobox', { name: 'Folder', exact: true }).locator('option:checked').textContent(),
        )
        .toBe('Checkout');
      // Nothing typed yet: Escape leaves without asking.
      await page.keyboard.press('Escape');
      await page.getByRole('heading', { name: 'New test case' }).waitFor({ state: 'detached' });
      expect(await page.getByRole('dialog').count()).toBe(0);
      expect((await folderCases(checkout)).map((c) => c.title)).toEqual([
        'Pay with a saved card',
        'Copy of Pay with a saved card',
        'Copy of Pay with a saved card',
      ]);
    });

    it('saves and opens a fresh editor in the same folder with the same priority, focus in the title', async () => {
      await page.goto(url(`/project/EDIT/tcase/new?folder=${search}`));
      await page.getByRole('heading', { name: 'New test case', level: 1 }).waitFor();
      await page.getByLabel('Priority').selectOption('low');
      await page.getByLabel('Title').fill('Find a magazine');
      await page.getByRole('button', { name: 'Save and add another' }).first().click();
      const saved = page.getByRole('status').filter({ hasText: 'Created EDIT-7 Find a magazine' });
      await saved.waitFor();
      expect(await saved.getByRole('link', { name: 'EDIT-7 Find a magazine' }).getAttribute('href')).toBe(
        '/project/EDIT/tcase/7',
      );
      await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('name')))
        .toBe('title');
      expect(await page.getByLabel('Priority').inputValue()).toBe('low');
      expect(
        await page
          .getByRole('combobox', { name: 'Folder', exact: true })
          .locator('option:checked')
          .textContent(),
      ).toBe('Search');
      // A fresh editor: nothing to discard yet.
      expect(await page.getByText('No changes yet').count()).toBe(1);
      await look('editing-save-another', true);

      await page.keyboard.type('Find a map');
      await page.keyboard.press('Control+s');
      await page.getByRole('heading', { name: 'Find a map', level: 1 }).waitFor();
      const inSearch = await folderCases(search);
      expect(
        inSearch.filter((c) => c.title.startsWith('Find a m')).map((c) => [c.seq, c.title, c.priority]),
      ).toEqual([
        [7, 'Find a magazine', 'low'],
        [8, 'Find a map', 'low'],
      ]);
    });

    it('says what each version changed, and compares steps as steps: added, changed, kept', async () => {
      await api('PATCH', '/project/EDIT/tcase/1', {
        title: 'Pay with a stored card',
        steps: [
          { description: '<p>Open the cart</p>', expected: '' },
          { description: '<p>Apply a coupon</p>', expected: '' },
          { description: '<p>Pay the order</p>', expected: '<p>Paid by card</p>' },
        ],
        tags: ['smoke', 'card'],
      });
      await page.goto(url('/project/EDIT/tcase/1'));
      const history = page.getByRole('region', { name: /Version history/ });
      const version = (n: number) =>
        history.getByRole('listitem').filter({ hasText: new RegExp(`^Version ${n}(?!\\d)`) });
      await expect.poll(() => version(2).textContent()).toContain('Title, Steps, Tags changed');
      expect(await version(1).textContent()).toContain('Created');

      await history.getByRole('button', { name: 'Compare', exact: true }).click();
      const table = history.getByRole('table', { name: /Version 1 .* compared with version 2/ });
      await table.waitFor();
      const row = (name: string | RegExp) => table.getByRole('row', { name });
      await row(/^Step 1\b/).waitFor();
      expect(
        await row(/^Step 1\b/)
          .locator('ins, del')
          .count(),
      ).toBe(0);
      // The inserted step is a row of its own, whole, its number outside the marked text.
      const added = row(/^Step 2 \(added\)/);
      expect(await added.locator('ins').allTextContents()).toEqual(['Apply a coupon']);
      expect(await added.getByRole('cell').first().textContent()).toBe('Not in version 1');
      // The step that moved from 2 to 3 and changed: only its new words are marked.
      const changed = row(/^Step 2 → 3 \(changed\)/);
      expect((await changed.locator('ins').allTextContents()).join('')).toMatch(/^\s*by card\s*$/);
      expect(await changed.locator('del').count()).toBe(0);
      for (const text of await table.locator('ins, del').allTextContents()) expect(text).not.toMatch(/\d+\./);
      await table.scrollIntoViewIfNeeded();
      await look('editing-history', true);
    });

    it('bulk edits priority, custom fields and tags of the selection and says how many changed', async () => {
      await page.goto(url(`/project/EDIT/repository?folder=${search}`));
      await caseList().getByRole('link', { name: 'Find a map' }).waitFor();
      await page.getByRole('checkbox', { name: 'Select the test cases shown' }).check();
      await page.getByText('5 test cases selected').waitFor();
      await look('editing-bulk-bar');
      await page.getByRole('button', { name: 'Edit…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit 5 test cases' });
      await dialog.getByLabel('Priority').selectOption('high');
      await dialog.getByLabel('Stage').selectOption('beta');
      await dialog.getByLabel('Automated').selectOption({ label: 'Yes' });
      await dialog.getByLabel('Add tags').fill('regression, search');
      await look('editing-bulk-edit');
      await dialog.getByRole('button', { name: 'Change 5 test cases' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Changed 5 test cases.' }).waitFor();
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByText('5 test cases selected').waitFor({ state: 'detached' });
      const cases = await folderCases(search);
      expect(cases).toHaveLength(5);
      for (const c of cases) {
        expect(c.priority, c.title).toBe('high');
        expect(c.customFields.stage?.value, c.title).toBe('beta');
        expect(c.customFields.automated?.value, c.title).toBe('true');
        expect(c.tags.map((t) => t.title).sort(), c.title).toEqual(['regression', 'search']);
      }
    });

    it('names each case a bulk edit could not change, in words, and keeps it selected', async () => {
      await page.getByRole('checkbox', { name: 'Select the test cases shown' }).check();
      await page.getByText('5 test cases selected').waitFor();
      // Someone deletes a selected case meanwhile.
      await api('DELETE', '/project/EDIT/tcase/8');
      await page.getByRole('button', { name: 'Edit…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit 5 test cases' });
      await dialog.getByLabel('Priority').selectOption('low');
      await dialog.getByRole('button', { name: 'Change 5 test cases' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Changed 4 test cases of 5.' }).waitFor();
      const failed = dialog.getByRole('alert');
      expect(await failed.innerText()).toMatch(/1 test case could not be changed \(it stays selected\)/);
      expect(await failed.getByRole('listitem').allInnerTexts()).toEqual([
        expect.stringMatching(/^EDIT-8 Find a map: .*not found/),
      ]);
      await look('editing-bulk-failed');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.getByText('1 test case selected').waitFor();
      expect((await folderCases(search)).map((c) => c.priority)).toEqual(['low', 'low', 'low', 'low']);
    });

    it('adds the selection to an open run, leaving out and naming a draft', async () => {
      await page.getByRole('button', { name: 'Clear selection' }).click();
      await caseList().getByRole('link', { name: 'Find a map' }).waitFor({ state: 'detached' });
      await page.getByRole('checkbox', { name: 'Select the test cases shown' }).check();
      await page.getByText('4 test cases selected').waitFor();
      await page.getByRole('button', { name: 'Add to run…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add 4 test cases to a run' });
      await expect
        .poll(() => dialog.getByLabel('Run').locator('option:checked').textContent())
        .toBe('Sprint 12');
      await dialog.getByRole('button', { name: 'Add 4 test cases' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Added 3 test cases to “Sprint 12”.' }).waitFor();
      expect(await dialog.getByRole('alert').innerText()).toMatch(/1 test case could not be added/);
      expect(await dialog.getByRole('alert').getByRole('listitem').allInnerTexts()).toEqual([
        'EDIT-4 Find a shelf: a draft is never added to a run; publish it first',
      ]);
      await look('editing-add-to-run');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.getByText('1 test case selected').waitFor();
      const inRun = (await api('GET', `/project/EDIT/run/${runId}/tcase`)).tcases as { title: string }[];
      expect(inRun).toHaveLength(4);
      expect(inRun.map((c) => c.title)).toEqual(
        expect.arrayContaining(['Find a book', 'Find a magazine', 'Find an author']),
      );
    });

    it('met no serious or critical accessibility violation, no page error and no linkify warning', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
      expect(consoleLines.filter((l) => l.includes('linkifyjs'))).toEqual([]);
    });
  },
);
