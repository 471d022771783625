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

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

if (!hasChromium)
  console.log(`[casebook] test case editor browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * The test case view and editor in a real browser against a real server (SQLite). Steps run in order on
 * one signed-in page: create, edit into version 2, compare, leave with unsaved edits, conflict, template.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))(
  'the test case editor in Chromium on %s',
  (target) => {
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    let folderId = 0;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    // What the page prints to its console: a rich editor opened after another once printed linkify's warnings.
    const consoleLines: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    const look = async (name: string, dark = false) => a11y.push(...(await inspect(page, name, { dark })));
    let api: SessionApi;
    const stepDescriptions = () =>
      page
        .getByRole('region', { name: /^Steps/ })
        .locator('.step')
        .allInnerTexts();

    /**
     * Types into the tag combobox once it is in view: a page scroll closes an open popover (React Aria), and
     * filling a field below the fold scrolls the page just after the popover opened.
     */
    const typeTag = async (text: string) => {
      const input = page.getByRole('combobox', { name: 'Add a tag' });
      await input.scrollIntoViewIfNeeded();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await input.fill(text);
    };

    beforeAll(async () => {
      ensureBuilt();
      service = await startServiceOn(target);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      page.on('console', (m) => consoleLines.push(m.text()));
      api = sessionApi(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      await api('POST', '/project', { code: 'ED', title: 'Editor' });
      folderId = (await api('POST', '/project/ED/tcase/folder/bulk', { folders: [{ path: ['Checkout'] }] }))
        .ids[0][0];
      await api('POST', '/project/ED/shared-step', {
        title: 'Sign in as a customer',
        subSteps: [{ description: '<p>Open the sign-in page</p>', expected: '<p>The form shows</p>' }],
      });
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
    });

    it('creates a case with own steps (reordered from the keyboard), a shared step and a new tag', async () => {
      await page.goto(url(`/project/ED/tcase/new?folder=${folderId}`));
      await page.getByRole('heading', { name: 'New test case' }).waitFor();
      // The service's refusal is shown in words next to the field it names (details[].path).
      await page.getByRole('button', { name: 'Create case' }).first().click();
      const title = page.getByLabel('Title');
      await expect.poll(() => title.getAttribute('aria-invalid')).toBe('true');
      const describedBy = ((await title.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
      const described = await Promise.all(
        describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()),
      );
      expect(described.join(' ')).toMatch(/"title" must NOT have fewer than 1 character/);
      await title.fill('Pay with a saved card');
      // An attachment goes up through the files API; an image is previewed.
      await page
        .getByLabel('Upload files')
        .setInputFiles({ name: 'card.png', mimeType: 'image/png', buffer: PNG });
      await page.getByRole('img', { name: 'Preview of card.png' }).waitFor();
      await page.getByRole('button', { name: 'Add step' }).click();
      // The rich-text editor loads on first use.
      await page.getByRole('textbox', { name: 'Step 1 description' }).fill('Pay the order');
      await page.getByRole('textbox', { name: 'Step 1 expected result' }).fill('The receipt shows');
      await page.getByRole('button', { name: 'Add step' }).click();
      await page.getByRole('textbox', { name: 'Step 2 description' }).fill('Add a book to the cart');
      await page.getByRole('button', { name: 'Move step 2 up' }).click();
      await expect
        .poll(() => page.getByRole('status').allTextContents())
        .toContain('Step 2 moved to position 1 of 2.');
      await page.getByLabel('Shared step', { exact: true }).selectOption({ label: 'Sign in as a customer' });
      await page.getByRole('button', { name: 'Add shared step' }).click();
      await page.getByRole('button', { name: 'Move step 3 up' }).click();
      await page.getByRole('button', { name: 'Move step 2 up' }).click();
      // …and by dragging a step's handle onto another step (over its rich-text fields, too).
      const handles = page.locator('.steps-edit .drag-handle');
      const items = page.locator('.steps-edit > li');
      await handles.nth(2).dragTo(items.nth(0));
      await expect
        .poll(() => page.getByRole('status').allTextContents())
        .toContain('Step 3 moved to position 1 of 3.');
      await handles.nth(1).dragTo(items.nth(0));
      await expect
        .poll(() => page.getByRole('status').allTextContents())
        .toContain('Step 2 moved to position 1 of 3.');
      await handles.nth(2).dragTo(items.nth(1));
      await expect
        .poll(() => page.getByRole('status').allTextContents())
        .toContain('Step 3 moved to position 2 of 3.');
      await typeTag('smoke');
      await page.getByRole('option', { name: 'Create tag “smoke”' }).click();
      await page.getByRole('button', { name: 'Remove tag smoke' }).waitFor();
      await look('tcase-new');

      await page.getByRole('button', { name: 'Create case' }).first().click();
      await page.getByRole('heading', { name: 'Pay with a saved card', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/project/ED/tcase/1');
      const steps = await stepDescriptions();
      expect(steps).toHaveLength(3);
      expect(steps[0]).toContain('Sign in as a customer');
      expect(steps[1]).toContain('Add a book to the cart');
      expect(steps[2]).toContain('Pay the order');
      expect(steps[2]).toContain('The receipt shows');
      const stored = await api('GET', '/project/ED/tcase/1');
      expect(stored.tags.map((t: { title: string }) => t.title)).toEqual(['smoke']);
      expect(stored.steps[1].description).toBe('<p>Add a book to the cart</p>');
      expect(stored.files).toMatchObject([{ fileName: 'card.png', mimeType: 'image/png' }]);
      await page.getByRole('link', { name: 'Download card.png' }).waitFor();
      await look('tcase-view', true);
    });

    it('edits the case into version 2 with e and Ctrl+S, and compares versions 1 and 2 side by side', async () => {
      await page.keyboard.press('e');
      await page.getByRole('heading', { name: 'Edit ED-1' }).waitFor();
      await page.getByLabel('Title').fill('Pay with a saved credit card');
      await page.getByLabel('Priority').selectOption('high');
      await page.keyboard.press('Control+s');
      await page.getByRole('heading', { name: 'Pay with a saved credit card', level: 1 }).waitFor();
      await page.getByText('Version 2', { exact: true }).first().waitFor();

      const history = page.getByRole('region', { name: /Version history/ });
      await history.getByRole('button', { name: 'Compare', exact: true }).click();
      const table = history.getByRole('table', { name: /Version 1 .* compared with version 2/ });
      await table.waitFor();
      const title = table.getByRole('row', { name: /^Title/ });
      await expect.poll(() => title.locator('ins').allTextContents()).toContain('credit ');
      await expect
        .poll(() =>
          table
            .getByRole('row', { name: /^Priority/ })
            .locator('del')
            .allTextContents(),
        )
        .toEqual(['medium']);
      await look('tcase-compare');
    });

    it('shows who made each version and when in the history', async () => {
      const history = page.getByRole('region', { name: /Version history/ });
      const version = (n: number) =>
        history.getByRole('listitem').filter({ hasText: new RegExp(`^Version ${n}(?!\\d)`) });
      await expect.poll(() => version(2).textContent()).toContain('Owner');
      expect(await version(2).textContent()).toContain('Pay with a saved credit card');
      expect(await version(2).getByText('Current').count()).toBe(1);
      expect(await version(1).textContent()).toContain('Pay with a saved card');
      expect(await version(1).textContent()).toContain('Owner');
      // The date as people say it, with the whole timestamp in the <time> element.
      const time = version(2).locator('time');
      // Relative to now: a slow machine may take over a minute to get here.
      expect(await time.textContent()).toMatch(/^(just now|\d+ minutes? ago)$/);
      const at = Date.parse((await time.getAttribute('datetime')) ?? '');
      expect(Math.abs(Date.now() - at)).toBeLessThan(600_000);
      expect(await time.getAttribute('title')).toMatch(/\d{4}/);
      await history.scrollIntoViewIfNeeded();
      await look('tcase-history', true);
    });

    it('asks before unsaved edits are lost (Esc and a link), and keeps them when told to', async () => {
      await page.keyboard.press('e');
      await page.getByLabel('Title').fill('Half-typed title');
      await page.keyboard.press('Escape');
      const dialog = page.getByRole('dialog', { name: 'Discard your unsaved edits?' });
      await dialog.waitFor();
      await look('tcase-discard');
      await dialog.getByRole('button', { name: 'Keep editing' }).click();
      expect(await page.getByLabel('Title').inputValue()).toBe('Half-typed title');

      await page
        .getByRole('navigation', { name: 'Breadcrumb' })
        .getByRole('link', { name: 'Test cases' })
        .click();
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Keep editing' }).click();
      expect(new URL(page.url()).pathname).toBe('/project/ED/tcase/1');

      await page.keyboard.press('Escape');
      await dialog.getByRole('button', { name: 'Discard edits' }).click();
      await page.getByRole('heading', { name: 'Pay with a saved credit card', level: 1 }).waitFor();
    });

    it('opens /project/ED/tcase/1 directly and meets a conflicting edit with a clear message, edits kept', async () => {
      await page.goto(url('/project/ED/tcase/1'));
      await page.getByRole('heading', { name: 'Pay with a saved credit card', level: 1 }).waitFor();
      await page.getByRole('button', { name: /^Edit/ }).click();
      await page.getByLabel('Title').fill('Pay with my card');
      // Someone else saves meanwhile: the case goes to version 3.
      await api('PATCH', '/project/ED/tcase/1', { title: 'Pay by card (their change)' });
      await page.getByRole('button', { name: 'Save' }).first().click();
      const alert = page.getByRole('alert').filter({ hasText: 'changed by someone else' });
      await expect
        .poll(() => alert.textContent())
        .toContain('is now at version 3 since you opened version 2');
      expect(await alert.textContent()).toContain('Your edits are kept');
      expect(await page.getByLabel('Title').inputValue()).toBe('Pay with my card');
      expect((await api('GET', '/project/ED/tcase/1')).title).toBe('Pay by card (their change)');

      await alert.getByRole('button', { name: /See their change/ }).click();
      await expect
        .poll(() =>
          alert
            .getByRole('row', { name: /^Title/ })
            .locator('ins')
            .allTextContents(),
        )
        .toContain('(their change)');
      await look('tcase-conflict');
      await alert.getByRole('button', { name: 'Re-apply my edits on version 3' }).click();
      await page.getByRole('button', { name: 'Save' }).first().click();
      await page.getByRole('heading', { name: 'Pay with my card', level: 1 }).waitFor();
      expect(await api('GET', '/project/ED/tcase/1')).toMatchObject({
        title: 'Pay with my card',
        version: 4,
      });
    });

    it('makes a template with two parameter rows and shows the filled cases it produced', async () => {
      await page.goto(url(`/project/ED/tcase/new?folder=${folderId}`));
      await page.getByLabel('Type').selectOption('template');
      await page.getByLabel('Title').fill('Check out in ${browser}');
      await page.getByRole('button', { name: 'Add step' }).click();
      await page.getByRole('textbox', { name: 'Step 1 description' }).fill('Open the shop in ${browser}');
      await page.getByRole('button', { name: 'Add parameter row' }).click();
      await page.getByRole('button', { name: 'Add parameter row' }).click();
      await page.getByLabel('Row 1 browser').fill('Chrome');
      await page.getByLabel('Row 2 browser').fill('Firefox');
      await look('tcase-template-edit');
      await page.getByRole('button', { name: 'Create case' }).first().click();
      await page.getByRole('heading', { name: 'Check out in ${browser}', level: 1 }).waitFor();
      const section = page.getByRole('region', { name: /Parameter rows and filled cases/ });
      const chrome = section.getByRole('link', { name: /Check out in Chrome/ });
      await chrome.waitFor();
      await section.getByRole('link', { name: /Check out in Firefox/ }).waitFor();
      await look('tcase-template');
      await chrome.click();
      await page.getByRole('heading', { name: 'Check out in Chrome', level: 1 }).waitFor();
      expect(await stepDescriptions()).toEqual([expect.stringContaining('Open the shop in Chrome')]);
    });

    it('suggests the project tags in the editor after the repository page has listed them', async () => {
      // The repository page and the editor read the same cached tag list: one shape under one key.
      await page.goto(url(`/project/ED/repository?folder=${folderId}`));
      await page.getByRole('heading', { name: 'Repository', level: 1 }).waitFor();
      await page
        .getByRole('list', { name: 'Test cases' })
        .getByRole('link', { name: /Pay with my card/ })
        .waitFor();
      await page.keyboard.press('n');
      await page.getByRole('heading', { name: 'New test case' }).waitFor();
      // The folders too: the form's folder choice reads the tree the repository listed (one key, one shape).
      const folderChoice = page.getByRole('combobox', { name: 'Folder', exact: true });
      await expect.poll(() => folderChoice.locator('option:checked').textContent()).toBe('Checkout');
      await typeTag('smo');
      await page.getByRole('option', { name: 'smoke', exact: true }).waitFor();
      expect(pageErrors).toEqual([]);

      // Escape closes the suggestions and nothing else: no "discard your edits", the editor stays.
      await page.keyboard.press('Escape');
      await page.getByRole('listbox').waitFor({ state: 'detached' });
      expect(await page.getByRole('dialog').count()).toBe(0);
      await page.getByRole('heading', { name: 'New test case' }).waitFor();

      // Enter adds the typed tag, new or known (in its known spelling), and empties the field for the next.
      // (The chips are read from the page: React Aria hides them from the accessibility tree while the
      // suggestions show again.)
      const tagInput = page.getByRole('combobox', { name: 'Add a tag' });
      const chips = page.locator('.chips .chip');
      await typeTag('nightly');
      await page.keyboard.press('Enter');
      await expect.poll(() => chips.allInnerTexts()).toEqual([expect.stringContaining('nightly')]);
      expect(await tagInput.inputValue()).toBe('');
      await typeTag('SMOKE');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => chips.allInnerTexts())
        .toEqual([expect.stringContaining('nightly'), expect.stringContaining('smoke')]);
      // No suggestion is left to show (both tags are the case's): the chips are in the accessibility tree again.
      await page.getByRole('button', { name: 'Remove tag smoke' }).waitFor();
      expect(await page.getByRole('dialog').count()).toBe(0);
      await look('tcase-tags-typed');
    });

    it('opens rich editors one after another without linkify warning in the console', async () => {
      await page.goto(url(`/project/ED/tcase/new?folder=${folderId}`));
      await page.getByRole('button', { name: 'Add step' }).click();
      const first = page.getByRole('textbox', { name: 'Step 1 description' });
      await first.click();
      // An address typed and followed by a space is linked: linkify has run (and set itself up) by then.
      await page.keyboard.type('See https://example.com/a then');
      await expect.poll(() => first.locator('a[href="https://example.com/a"]').count()).toBe(1);
      await page.getByRole('button', { name: 'Add step' }).click();
      await page.getByRole('textbox', { name: 'Step 2 description' }).waitFor();
      expect(consoleLines.filter((l) => l.includes('linkifyjs'))).toEqual([]);
    });

    it('offers every folder of a project with more than a thousand, and starts in the first of its tree', async () => {
      // Zeta and its subfolder come first in the tree but after a thousand others by title.
      await api('POST', '/project', { code: 'MANY', title: 'Many folders' });
      const areas = Array.from({ length: 1000 }, (_, i) => ({
        path: [`Area ${String(i + 1).padStart(4, '0')}`],
      }));
      const { ids } = await api('POST', '/project/MANY/tcase/folder/bulk', {
        folders: [{ path: ['Zeta', 'Beta'] }, ...areas],
      });
      const folderChoice = page.getByRole('combobox', { name: 'Folder', exact: true });
      const chosen = () => folderChoice.locator('option:checked').textContent();
      // With no folder in the address (the n key in the repository with none chosen), the tree's first folder.
      await page.goto(url('/project/MANY/tcase/new'));
      await page.getByRole('heading', { name: 'New test case' }).waitFor();
      await expect.poll(chosen).toBe('Zeta');
      expect(await folderChoice.locator('option').count()).toBe(1002);
      // Opened directly for the subfolder, the choice shows it, by its path.
      await page.goto(url(`/project/MANY/tcase/new?folder=${ids[0][1]}`));
      await page.getByRole('heading', { name: 'New test case' }).waitFor();
      await expect.poll(chosen).toBe('Zeta / Beta');
    });

    it('lists the case’s results across runs, latest first, ten at a time with "Show more"', async () => {
      await api('POST', '/project', { code: 'HIST', title: 'History' });
      const folder = (await api('POST', '/project/HIST/tcase/folder/bulk', { folders: [{ path: ['Auth'] }] }))
        .ids[0][0] as number;
      const tcase = (await api('POST', '/project/HIST/tcase', {
        title: 'Log in',
        type: 'standalone',
        priority: 'high',
        folderId: folder,
      })) as { id: string; seq: number };
      const runIds: number[] = [];
      for (let i = 1; i <= 12; i++) {
        const { id } = (await api('POST', '/project/HIST/run', {
          title: `Nightly ${i}`,
          type: 'static_struct',
          queryPlans: [{ tcaseIds: [tcase.id] }],
        })) as { id: number };
        runIds.push(id);
        await api('POST', `/project/HIST/run/${id}/tcase/${tcase.id}/result`, {
          status: i === 12 ? 'failed' : 'passed',
          ...(i === 12 ? { timeTaken: 1500 } : {}),
        });
      }
      const author = (await api('GET', `/project/HIST/tcase/${tcase.id}/results`)).results[0].author.name;

      await page.goto(url(`/project/HIST/tcase/${tcase.seq}`));
      const section = page.getByRole('region', { name: /^Results across runs/ });
      const rows = section.getByRole('list', { name: 'Results, latest first' }).getByRole('listitem');
      await expect.poll(() => rows.count()).toBe(10);
      expect(await section.getByRole('heading').textContent()).toBe('Results across runs 12');
      // The latest run first, its status in words, who recorded it and how long it took.
      await expect.poll(() => rows.first().innerText()).toMatch(/^Nightly 12\s+Failed\s+just now · /);
      expect(await rows.first().innerText()).toContain(`${author} · 1.5 s`);
      expect(await rows.nth(1).innerText()).toMatch(/^Nightly 11\s+Passed/);
      // The run's title leads to the run, the case opened there.
      expect(await rows.first().getByRole('link', { name: 'Nightly 12' }).getAttribute('href')).toBe(
        `/project/HIST/run/${runIds[11]}?tcase=${tcase.seq}`,
      );
      await section.scrollIntoViewIfNeeded();
      await look('tcase-results');

      await section.getByRole('button', { name: 'Show more' }).click();
      await expect.poll(() => rows.count()).toBe(12);
      expect(await rows.last().innerText()).toMatch(/^Nightly 1\s+Passed/);
      expect(await section.getByRole('button', { name: 'Show more' }).count()).toBe(0);

      await rows.first().getByRole('link', { name: 'Nightly 12' }).click();
      await page.getByRole('heading', { name: /Nightly 12/, level: 1 }).waitFor();
    });

    it('met no serious or critical accessibility violation and no page error on the way', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
