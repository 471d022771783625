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
  sessionFetch,
  signIn,
  browserTargets,
  startServiceOn,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
  type SessionFetch,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] repository browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

interface ApiFolder {
  id: number;
  parentId: number;
  pos: number;
  title: string;
}

/**
 * The repository page in a real browser against a real server (SQLite): the folder tree built and reordered by
 * mouse and by keyboard, the list searched and filtered, cases selected and moved, tagged and deleted in bulk.
 */
describe.skipIf(!hasChromium).each(browserTargets('postgres'))(
  'the repository page in Chromium on %s',
  (target) => {
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    const look = async (name: string, dark = false) => a11y.push(...(await inspect(page, name, { dark })));
    let api: SessionApi;
    let apiFetch: SessionFetch;
    const folders = async (): Promise<ApiFolder[]> => (await api('GET', '/project/REPO/tcase/folders')).data;
    /** Titles of a parent's folders, in their order. */
    const childrenOf = async (parentTitle: string | null) => {
      const all = await folders();
      const parentId = parentTitle === null ? 0 : all.find((f) => f.title === parentTitle)!.id;
      return all
        .filter((f) => f.parentId === parentId)
        .sort((a, b) => a.pos - b.pos)
        .map((f) => f.title);
    };
    const tree = () => page.getByRole('treegrid', { name: 'Folders' });
    const folderRow = (title: string) => tree().getByRole('row', { name: title, exact: true });
    const folderAction = async (folder: string, action: string) => {
      await page.getByRole('button', { name: `Actions for folder ${folder}` }).click();
      await page.getByRole('menuitem', { name: action }).click();
    };
    const caseList = () => page.getByRole('list', { name: 'Test cases' });
    /** A filter's button: its name is the filter's label, then what is chosen ("Tag odd, slow"). */
    const filterButton = (label: string) => page.getByRole('button', { name: new RegExp(`^${label} `) });
    /** Opens a filter, toggles the named options (checkboxes), and closes it with Escape. */
    const pickFilter = async (label: string, ...options: string[]) => {
      await filterButton(label).click();
      const dialog = page.getByRole('dialog', { name: `Filter by ${label.toLowerCase()}` });
      for (const name of options) await dialog.getByText(name, { exact: true }).click();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    };
    const searchParam = (key: string) => {
      const v = new URL(page.url()).searchParams.get(key);
      return v === null ? null : JSON.parse(v);
    };
    const shownCount = (n: number) =>
      page.getByText(`${n} test ${n === 1 ? 'case' : 'cases'}`, { exact: true });
    const shownTitles = async () =>
      (await caseList().getByRole('link').allTextContents()).map((t) => t.trim());

    beforeAll(async () => {
      ensureBuilt();
      service = await startServiceOn(target);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      api = sessionApi(page, service.baseUrl);
      apiFetch = sessionFetch(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      const created = await apiFetch('POST', '/project', { code: 'REPO', title: 'Repository' });
      expect(created.status()).toBe(201);
      // 150 cases in one folder: more than a page of the list (100), so paging is exercised too.
      await api('POST', '/project/REPO/tcase/bulk', {
        folderPath: ['Inbox'],
        tcases: Array.from({ length: 150 }, (_, i) => ({
          title: i % 10 === 0 ? `Login works ${i}` : `Case number ${i}`,
          tags: i % 2 ? ['odd'] : [],
        })),
      });
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
    });

    it('opens from the project overview with the tree and the first cases', async () => {
      await page.goto(url('/project/REPO'));
      await page
        .getByRole('navigation', { name: 'Project' })
        .getByRole('link', { name: 'Test cases' })
        .click();
      await page.getByRole('heading', { name: 'Repository', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/project/REPO/repository');
      await folderRow('Inbox').waitFor();
      await expect.poll(() => page.getByText('150 test cases').count()).toBe(1);
      // Virtualised: far fewer rows in the DOM than cases.
      const rows = await caseList().getByRole('listitem').count();
      expect(rows).toBeGreaterThan(5);
      expect(rows).toBeLessThan(60);
      await look('repository');
    });

    it('builds a folder tree: folders, a subfolder, a rename', async () => {
      for (const name of ['Alpha', 'Beta', 'Gamma']) {
        await page.getByRole('button', { name: 'New folder' }).click();
        const dialog = page.getByRole('dialog', { name: 'New folder' });
        await dialog.getByLabel('Folder name').fill(name);
        await dialog.getByRole('button', { name: 'Create folder' }).click();
        await folderRow(name).waitFor();
      }
      // A clash is said next to the field, and nothing is lost.
      await page.getByRole('button', { name: 'New folder' }).click();
      const clash = page.getByRole('dialog', { name: 'New folder' });
      await clash.getByLabel('Folder name').fill('Alpha');
      await clash.getByRole('button', { name: 'Create folder' }).click();
      await clash.getByText('A folder named “Alpha” is already there.').waitFor();
      await look('repository-folder-error');
      await clash.getByRole('button', { name: 'Cancel' }).click();

      await folderAction('Alpha', 'New subfolder…');
      const sub = page.getByRole('dialog', { name: 'New folder in “Alpha”' });
      await sub.getByLabel('Folder name').fill('Child');
      await sub.getByRole('button', { name: 'Create folder' }).click();
      await folderRow('Child').waitFor();

      await folderAction('Gamma', 'Rename…');
      const rename = page.getByRole('dialog', { name: 'Rename “Gamma”' });
      await rename.getByLabel('Folder name').fill('Delta');
      await rename.getByRole('button', { name: 'Rename' }).click();
      await folderRow('Delta').waitFor();
      expect(await childrenOf(null)).toEqual(['Inbox', 'Alpha', 'Beta', 'Delta']);
      expect(await childrenOf('Alpha')).toEqual(['Child']);
    });

    it('expands and collapses a folder by its chevron and by the arrow keys, and says which it is', async () => {
      // A fresh load in a browser that remembers nothing (creating Alpha's subfolder above expanded Alpha, and the
      // tree remembers that): only the open folder's ancestors start expanded, so Alpha's subfolder is not shown.
      await page.evaluate(() => localStorage.removeItem('casebook.folders.expanded.REPO'));
      await page.goto(url('/project/REPO/repository'));
      const alpha = folderRow('Alpha');
      await alpha.waitFor();
      expect(await alpha.getAttribute('aria-expanded')).toBe('false');
      expect(await folderRow('Child').count()).toBe(0);
      // A folder without subfolders is no expandable row.
      expect(await folderRow('Beta').getAttribute('aria-expanded')).toBeNull();

      // A click on the chevron at once: the row's buttons may not be there yet (they come when the page is first
      // idle), and the mark in the chevron's place does what the button does.
      await alpha.locator('.folder-chevron').click();
      await folderRow('Child').waitFor();
      expect(await alpha.getAttribute('aria-expanded')).toBe('true');
      await alpha.getByRole('button', { name: 'Collapse' }).click();
      await folderRow('Child').waitFor({ state: 'detached' });
      await alpha.getByRole('button', { name: 'Expand' }).click();
      await folderRow('Child').waitFor();
      await alpha.getByRole('button', { name: 'Collapse' }).click();
      await folderRow('Child').waitFor({ state: 'detached' });
      expect(await alpha.getAttribute('aria-expanded')).toBe('false');

      // By keyboard: the row focused, → opens it and ← closes it.
      await alpha.focus();
      await page.keyboard.press('ArrowRight');
      await folderRow('Child').waitFor();
      expect(await alpha.getAttribute('aria-expanded')).toBe('true');
      await page.keyboard.press('ArrowLeft');
      await folderRow('Child').waitFor({ state: 'detached' });
      expect(await alpha.getAttribute('aria-expanded')).toBe('false');
    });

    it("opens a folder's actions as a menu button: says it is open, focus on the first item, back on Escape", async () => {
      const actions = page.getByRole('button', { name: 'Actions for folder Inbox' });
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
      await actions.focus();
      await page.keyboard.press('Enter');
      const menu = page.getByRole('menu', { name: 'Actions for folder Inbox' });
      await menu.waitFor();
      expect(await actions.getAttribute('aria-expanded')).toBe('true');
      expect(await actions.getAttribute('aria-controls')).toBe(await menu.getAttribute('id'));
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent))
        .toBe('New subfolder…');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/repository-folder-menu-desktop.png` });
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      // The focus comes back two frames after the menu closes (React Aria's tree first restores its own row).
      await expect.poll(focused).toBe('Actions for folder Inbox');
      expect(await actions.getAttribute('aria-expanded')).toBe('false');
      // By mouse too: the focus comes back to the button it was opened from.
      await actions.click();
      await menu.waitFor();
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      await expect.poll(focused).toBe('Actions for folder Inbox');
    });

    it('reorders and moves folders by keyboard (menu and move dialog)', async () => {
      // Only the keyboard: focus the actions button, open the menu with Enter, pick with the arrows.
      await page.getByRole('button', { name: 'Actions for folder Delta' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('menu').waitFor();
      await page.keyboard.press('ArrowDown'); // Rename…
      await page.keyboard.press('ArrowDown'); // Move up
      await page.keyboard.press('Enter');
      await expect.poll(() => childrenOf(null)).toEqual(['Inbox', 'Alpha', 'Delta', 'Beta']);

      await folderAction('Beta', 'Move to…');
      const dialog = page.getByRole('dialog', { name: 'Move “Beta”' });
      await dialog.getByLabel('Into').selectOption({ label: '\u2003'.repeat(0) + 'Alpha' });
      await dialog.getByLabel('Place').selectOption({ label: 'Before “Child”' });
      await dialog.getByRole('button', { name: 'Move' }).click();
      await expect.poll(() => childrenOf('Alpha')).toEqual(['Beta', 'Child']);
      expect(await childrenOf(null)).toEqual(['Inbox', 'Alpha', 'Delta']);
    });

    it('reorders folders by drag and drop', async () => {
      // Dropped on the upper edge of Inbox: Delta goes before it. The tree settles first: a late re-render of the
      // move above once shifted the rows under the pointer, and another folder was dragged.
      const target = folderRow('Inbox');
      const settled = async () =>
        JSON.stringify([await folderRow('Delta').boundingBox(), await target.boundingBox()]);
      let last = '';
      await expect
        .poll(async () => {
          const [before, now] = [last, (last = await settled())];
          return before === now;
        })
        .toBe(true);
      const box = (await target.boundingBox())!;
      await folderRow('Delta').dragTo(target, { targetPosition: { x: box.width / 2, y: 2 } });
      await expect.poll(() => childrenOf(null)).toEqual(['Delta', 'Inbox', 'Alpha']);
      await look('repository-tree');
    });

    it('searches and filters, with the filters in the address', async () => {
      await folderRow('Inbox').click();
      await expect.poll(() => new URL(page.url()).searchParams.get('folder')).not.toBeNull();
      await page.locator('body').press('/');
      const search = page.getByRole('searchbox', { name: 'Search test cases by number or text' });
      await expect.poll(() => search.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.type('login');
      // The address follows the typing after a pause: "log" may show first (and match the same 15 by prefix).
      await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('login');
      await expect.poll(() => page.getByText('15 test cases').count()).toBe(1);
      expect((await shownTitles()).every((t) => t.startsWith('Login works'))).toBe(true);

      await pickFilter('Tag', 'odd');
      await expect.poll(() => page.getByText('No test case matches these filters.').count()).toBe(1);
      await look('repository-empty-filter');
      await pickFilter('Tag', 'odd');
      await expect.poll(() => page.getByText('15 test cases').count()).toBe(1);
      await page.getByLabel('Sort by').selectOption({ label: 'Title ↓' });
      await expect.poll(async () => (await shownTitles())[0]).toBe('Login works 90');
      // A reload keeps the view: it lives in the address.
      await page.reload();
      await expect.poll(async () => (await shownTitles())[0]).toBe('Login works 90');
      await expect.poll(() => page.getByText('15 test cases').count()).toBe(1);
    });

    it('moves in the list with j/k and opens a case with Enter', async () => {
      await page.locator('body').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('j');
      await page.keyboard.press('j');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent?.trim()))
        .toBe('Login works 80');
      await page.keyboard.press('k');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent?.trim()))
        .toBe('Login works 90');
      await page.keyboard.press('Enter');
      await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/project\/REPO\/tcase\/\d+$/);
      await page.getByRole('heading', { name: 'Login works 90', level: 1 }).waitFor();
      await page.goBack();
      await caseList().waitFor();
    });

    it('searches the words of steps, shows them marked under the row, and opens a case by its number with Enter', async () => {
      const made = await apiFetch('POST', '/project/REPO/tcase', {
        title: 'Pay the invoice',
        type: 'standalone',
        priority: 'medium',
        folderId: (await folders()).find((f) => f.title === 'Inbox')!.id,
        steps: [
          {
            description: '<p>Enter the <em>quokka</em> code &lt;script&gt;alert(1)&lt;/script&gt;</p>',
            expected: '',
          },
        ],
      });
      expect(made.status()).toBe(201);
      await page.goto(url('/project/REPO/repository'));
      const search = page.getByRole('searchbox', { name: 'Search test cases by number or text' });
      await search.fill('quokka');
      await expect.poll(() => page.getByText('1 test case', { exact: true }).count()).toBe(1);
      expect(await shownTitles()).toEqual(['Pay the invoice']);
      const snippet = caseList().locator('.case-snippet');
      expect(await snippet.locator('mark').allTextContents()).toEqual(['quokka']);
      // The case's text is text: the escaped tag shows as written and never becomes an element.
      expect(await snippet.textContent()).toBe('Enter the quokka code <script>alert(1)</script>');
      expect(await snippet.locator('script, em').count()).toBe(0);
      expect(await page.getByLabel('Sort by').inputValue()).toBe('rank');
      await look('repository-search');

      // A case number with Enter opens that case.
      await search.fill('repo-003');
      await search.press('Enter');
      await expect.poll(() => new URL(page.url()).pathname).toBe('/project/REPO/tcase/3');
      await page.getByRole('heading', { name: 'Case number 2', level: 1 }).waitFor();
      await page.goBack();
      await caseList().waitFor();
      // The tests below count the 150 cases of the Inbox.
      const { id } = await made.json();
      expect((await apiFetch('DELETE', `/project/REPO/tcase/${id}`)).status()).toBe(200);
      await page.goto(url('/project/REPO/repository'));
    });

    it('filters by several priorities and tags and by custom fields, combined, in the address', async () => {
      // Two custom fields of the project: a dropdown and a text field.
      for (const field of [
        {
          type: 'dropdown',
          systemName: 'env',
          name: 'Environment',
          options: [{ value: 'staging' }, { value: 'prod' }],
        },
        { type: 'text', systemName: 'component', name: 'Component' },
      ]) {
        await api('POST', '/custom-field', field);
      }
      const edit = async (seq: number, body: unknown) => {
        const res = await apiFetch('PATCH', `/project/REPO/tcase/${seq}`, body);
        expect(res.status(), await res.text()).toBe(200);
      };
      const cf = (env: string, component?: string) => ({
        env: { value: env },
        ...(component ? { component: { value: component } } : {}),
      });
      // REPO-2 is "Case number 1" (tagged odd), REPO-3 "Case number 2" (no tag), REPO-5 "Case number 4".
      await edit(2, { priority: 'high', customFields: cf('prod', 'checkout') });
      await edit(3, { priority: 'low', tags: ['slow'], customFields: cf('staging', 'search') });
      await edit(5, { customFields: cf('prod', 'checkout') });

      await page.goto(url('/project/REPO/repository'));
      await expect.poll(() => shownCount(150).count()).toBe(1);

      // Several priorities: High or Low. From the keyboard: Enter opens, Tab reaches the options, Space ticks.
      await filterButton('Priority').focus();
      await page.keyboard.press('Enter');
      const priorities = page.getByRole('dialog', { name: 'Filter by priority' });
      await priorities.waitFor();
      await page.keyboard.press('Tab');
      await expect
        .poll(() =>
          priorities.getByRole('checkbox', { name: 'High' }).evaluate((el) => el === document.activeElement),
        )
        .toBe(true);
      await page.keyboard.press('Space');
      await priorities.getByText('Low', { exact: true }).click();
      expect(await priorities.getByRole('checkbox', { name: 'High' }).isChecked()).toBe(true);
      expect(await priorities.getByRole('checkbox', { name: 'Medium' }).isChecked()).toBe(false);
      await page.screenshot({ path: `${SCREENSHOTS}/repository-filter-open-desktop.png` });
      await page.keyboard.press('Escape');
      await priorities.waitFor({ state: 'detached' });
      await expect.poll(() => shownCount(2).count()).toBe(1);
      expect((await shownTitles()).sort()).toEqual(['Case number 1', 'Case number 2']);
      expect(searchParam('priority')).toEqual(['high', 'low']);
      expect(await filterButton('Priority').textContent()).toContain('High, Low');

      // A dropdown custom field narrows further (AND across filters).
      await pickFilter('Environment', 'prod');
      await expect.poll(() => shownCount(1).count()).toBe(1);
      expect(await shownTitles()).toEqual(['Case number 1']);
      expect(searchParam('cf_env')).toEqual(['prod']);
      await look('repository-filters', true);

      // The address holds the view: a reload keeps both filters.
      await page.reload();
      await expect.poll(() => shownCount(1).count()).toBe(1);
      expect(await shownTitles()).toEqual(['Case number 1']);
      expect(await filterButton('Environment').textContent()).toContain('prod');

      // Without the priorities, both "prod" cases show.
      await filterButton('Priority').click();
      const clearing = page.getByRole('dialog', { name: 'Filter by priority' });
      await clearing.getByRole('button', { name: 'Clear priority' }).click();
      await clearing.waitFor({ state: 'detached' });
      await expect.poll(() => shownCount(2).count()).toBe(1);
      expect((await shownTitles()).sort()).toEqual(['Case number 1', 'Case number 4']);
      expect(searchParam('priority')).toBeNull();

      // Several tags: odd or slow (75 odd cases and REPO-3).
      await pickFilter('Environment', 'prod');
      await pickFilter('Tag', 'odd', 'slow');
      await expect.poll(() => shownCount(76).count()).toBe(1);
      expect(searchParam('tag')).toHaveLength(2);

      // A text custom field takes a typed value.
      await filterButton('Component').click();
      const component = page.getByRole('dialog', { name: 'Filter by component' });
      await component.getByLabel('Component is').fill('checkout');
      await component.getByRole('button', { name: 'Apply' }).click();
      await component.waitFor({ state: 'detached' });
      await expect.poll(() => shownCount(1).count()).toBe(1);
      expect(await shownTitles()).toEqual(['Case number 1']);
      expect(searchParam('cf_component')).toEqual(['checkout']);
      await page.reload();
      await expect.poll(() => shownCount(1).count()).toBe(1);

      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect.poll(() => shownCount(150).count()).toBe(1);
      expect(new URL(page.url()).search).toBe('');
      expect(await filterButton('Tag').textContent()).toContain('Any');
    });

    it('selects with clicks, shift-click and space, and moves, tags and deletes in bulk after a confirmation', async () => {
      // The filter test before this one ended on the unfiltered list.
      await page.goto(url('/project/REPO/repository'));
      await folderRow('Inbox').click();
      await expect.poll(() => page.getByText('150 test cases').count()).toBe(1);
      const box = (n: number) => caseList().getByRole('checkbox', { name: new RegExp(`^Select REPO-${n} `) });
      await box(1).click();
      await box(4).click({ modifiers: ['Shift'] });
      // Space on a focused row's title toggles it too.
      await caseList().getByRole('link', { name: 'Case number 5', exact: true }).focus();
      await page.keyboard.press(' ');
      await page.getByText('5 test cases selected').waitFor();
      await look('repository-selection');

      await page.getByRole('button', { name: 'Move…' }).click();
      const move = page.getByRole('dialog', { name: 'Move 5 test cases' });
      await move.getByLabel('To folder').selectOption({ label: 'Alpha / Child' });
      await move.getByRole('button', { name: 'Move 5 test cases' }).click();
      await expect.poll(() => page.getByText('145 test cases').count()).toBe(1);
      await folderRow('Alpha').click();
      // Alpha's list includes its subfolders: the 5 moved into Child.
      await expect.poll(() => page.getByText('5 test cases', { exact: true }).count()).toBe(1);

      await page.getByRole('checkbox', { name: 'Select the test cases shown' }).check();
      await page.getByRole('button', { name: 'Tags…' }).click();
      const tag = page.getByRole('dialog', { name: 'Tag 5 test cases' });
      await tag.getByLabel('Add tags').fill('moved, bulk');
      await tag.getByRole('button', { name: 'Tag 5 test cases' }).click();
      await tag.waitFor({ state: 'detached' });
      const tagged = await api('GET', '/project/REPO/tcase?include=tags');
      const titles = (c: { tags: { title: string }[] }) => c.tags.map((t) => t.title).sort();
      expect(
        tagged.data.filter((c: { tags: { title: string }[] }) => titles(c).includes('bulk')).length,
      ).toBe(5);

      await page.getByRole('checkbox', { name: 'Select the test cases shown' }).check();
      await page.getByRole('button', { name: 'Delete…' }).click();
      const del = page.getByRole('dialog', { name: 'Delete 5 test cases?' });
      await del.getByText('5 test cases will be deleted.').waitFor();
      await look('repository-bulk-delete');
      await del.getByRole('button', { name: 'Delete 5 test cases' }).click();
      await page.getByText('No test case matches these filters.').waitFor();
      expect((await api('GET', '/project/REPO/tcase?limit=0')).total).toBe(145);
    });

    it('deletes a folder after naming what goes with it', async () => {
      await api('POST', '/project/REPO/tcase/bulk', {
        folderPath: ['Alpha', 'Child'],
        tcases: [{ title: 'Doomed' }],
      });
      await folderAction('Alpha', 'Delete…');
      const dialog = page.getByRole('dialog', { name: 'Delete folder “Alpha”?' });
      await dialog.getByText('This also deletes 2 subfolders and 1 test case in it.').waitFor();
      await dialog.getByRole('button', { name: 'Delete folder' }).click();
      await folderRow('Alpha').waitFor({ state: 'detached' });
      expect(await childrenOf(null)).toEqual(['Delta', 'Inbox']);
    });

    it('works on a phone: the tree in a drawer, the list usable', async () => {
      await page.setViewportSize(VIEWPORTS.phone);
      await look('repository-phone');
      await page.setViewportSize(VIEWPORTS.phone);
      await page.getByRole('button', { name: /^Folder: / }).click();
      await tree().waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/repository-phone-drawer-phone.png` });
      await folderRow('Inbox').click();
      await tree().waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Folder: Inbox' }).waitFor();
      await expect.poll(() => page.getByText('145 test cases').count()).toBe(1);
      // The filters fold behind one button, so the list stays in view.
      expect(await filterButton('Tag').isVisible()).toBe(false);
      const toggle = page.getByRole('button', { name: 'Filters', exact: true });
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      await filterButton('Tag').waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/repository-phone-filters-phone.png` });
      await pickFilter('Priority', 'Medium');
      await page.getByRole('button', { name: 'Filters (1)' }).waitFor();
      await expect.poll(() => page.getByText('145 test cases').count()).toBe(1);
      await pickFilter('Priority', 'Medium');
      await toggle.click();
      await page.setViewportSize(VIEWPORTS.desktop);
    });

    it('turns single-key shortcuts off', async () => {
      await page.locator('body').press('?');
      const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await dialog.getByText(/Single-key shortcuts/).click();
      expect(await dialog.getByRole('switch').isChecked()).toBe(false);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.locator('body').press('/');
      const search = page.getByRole('searchbox', { name: 'Search test cases by number or text' });
      expect(await search.evaluate((el) => el === document.activeElement)).toBe(false);
      await page.evaluate(() => localStorage.removeItem('casebook.singleKeyShortcuts'));
    });

    it('has no serious accessibility violations and no page errors', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
