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

if (!hasChromium) console.log(`[casebook] run assignment browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * Issue 28 on the run page, in Chromium against a real server (SQLite; the API beneath is tested on both
 * databases): a case assigned from its row, several from the selection by keyboard, the "Mine" and "Unassigned"
 * filters kept in the address, cases added through the "Add cases" picker and removed after a confirmation that
 * says how many have results.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))(
  'assigning, adding and removing cases on the run page on %s',
  (target) => {
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    let api: SessionApi;
    let runId: number;
    let tessId: number;
    const ids = new Map<string, string>();
    const seqs = new Map<string, number>();
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const list = () => page.getByRole('list', { name: 'Test cases of the run' });
    const row = (title: string) => list().getByRole('listitem').filter({ hasText: title });
    const dialog = () => page.getByRole('dialog');
    const shownTitles = async () =>
      (await list().locator('.run-case-title').allTextContents()).sort((a, b) => a.localeCompare(b));
    const runCases = async () =>
      (await api('GET', `/project/ASG/run/${runId}/tcase`)).tcases as {
        title: string;
        assignee: { id: number; name: string } | null;
      }[];
    const assigneeOf = async (title: string) => (await runCases()).find((c) => c.title === title)?.assignee;

    beforeAll(async () => {
      ensureBuilt();
      service = await startServiceOn(target);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      api = sessionApi(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      await api('POST', '/project', { code: 'ASG', title: 'Assignments' });
      for (const [folder, titles] of [
        ['Login', ['Sign in', 'Sign out']],
        ['Checkout', ['Pay by card', 'Pay by invoice', 'Refund', 'Gift cards']],
        ['Checkout/Wallets', ['Pay by wallet']],
      ] as const) {
        await api('POST', '/project/ASG/tcase/bulk', {
          folderPath: folder.split('/'),
          tcases: titles.map((title) => ({ title })),
        });
      }
      for (const c of (await api('GET', '/project/ASG/tcase?limit=100')).data) {
        ids.set(c.title, c.id);
        seqs.set(c.title, c.seq);
      }
      // A second tester, a member of the project.
      const { link } = await api('POST', '/users/invitations', {
        email: 'tess@example.com',
        role: 'test-runner',
      });
      const registered = await fetch(`${service.baseUrl}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          token: link.split('/').pop(),
          name: 'Tess Runner',
          password: 'tess-password-123',
        }),
      });
      expect(registered.status, await registered.clone().text()).toBe(201);
      tessId = ((await registered.json()) as { id: number }).id;
      await api('POST', '/project/ASG/member', { userId: tessId });
      runId = (
        await api('POST', '/project/ASG/run', {
          title: 'Sprint 12',
          type: 'static_struct',
          queryPlans: [
            {
              tcaseIds: ['Sign in', 'Sign out', 'Pay by card', 'Pay by invoice', 'Refund'].map((t) =>
                ids.get(t),
              ),
            },
          ],
        })
      ).id;
      await api('POST', `/project/ASG/run/${runId}/tcase/${ids.get('Sign out')}/result`, {
        status: 'passed',
      });
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
    });

    it('assigns one case from its row, and shows the assignee on the row', async () => {
      await page.goto(`${service.baseUrl}/project/ASG/run/${runId}`);
      await page.getByRole('heading', { name: /Sprint 12/, level: 1 }).waitFor();
      const card = `ASG-${seqs.get('Pay by card')}`;
      await row('Pay by card')
        .getByRole('button', { name: `Assign ${card} (nobody assigned)` })
        .click();
      await dialog()
        .getByRole('heading', { name: `Assign ${card}` })
        .waitFor();
      await dialog().getByLabel('Assignee').selectOption({ label: 'Tess Runner' });
      await dialog().getByRole('button', { name: 'Assign' }).click();
      await dialog().waitFor({ state: 'detached' });
      await row('Pay by card')
        .getByRole('button', { name: `Assignee of ${card}: Tess Runner. Change` })
        .waitFor();
      await page
        .getByRole('status')
        .filter({ hasText: `${card} assigned to Tess Runner.` })
        .waitFor();
      expect(await row('Pay by card').locator('[data-initials]').getAttribute('data-initials')).toBe('TR');
      expect(await assigneeOf('Pay by card')).toEqual({ id: tessId, name: 'Tess Runner' });
    });

    it('assigns the selected cases at once, from the keyboard', async () => {
      await row('Sign in').getByRole('checkbox').check();
      await row('Sign out').getByRole('checkbox').check();
      const assign = page.getByRole('button', { name: 'Assign selected' });
      await assign.focus();
      await page.keyboard.press('Enter');
      await dialog().getByRole('heading', { name: 'Assign 2 cases' }).waitFor();
      // The signed-in person is offered first.
      expect(await dialog().getByLabel('Assignee').inputValue()).not.toBe('');
      expect(await dialog().getByLabel('Assignee').locator('option:checked').textContent()).toBe(
        'Owner (me)',
      );
      a11y.push(...(await inspect(page, 'run-assign-dialog')));
      // The optional due date comes next in the tab order; its parts (month, day, year) take a Tab each, so the
      // person moves on to Assign and presses Enter there (Enter in a select does not send its form).
      await dialog().getByLabel('Assignee').focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('date');
      await dialog().getByRole('button', { name: 'Assign', exact: true }).focus();
      await page.keyboard.press('Enter');
      await dialog().waitFor({ state: 'detached' });
      await page.getByRole('status').filter({ hasText: '2 cases assigned to Owner.' }).waitFor();
      expect(await assigneeOf('Sign in')).toMatchObject({ name: 'Owner' });
      expect(await assigneeOf('Sign out')).toMatchObject({ name: 'Owner' });
      // Assigned, the selection is let go.
      await assign.waitFor({ state: 'detached' });
      a11y.push(...(await inspect(page, 'run-assign-rows', { dark: true })));
    });

    it('shows my cases with "Mine" and nobody\'s with "Unassigned", kept in the address', async () => {
      await page.getByRole('button', { name: 'Mine' }).click();
      await expect.poll(() => page.url()).toContain('assignee=me');
      await row('Pay by card').waitFor({ state: 'detached' });
      expect(await shownTitles()).toEqual(['Sign in', 'Sign out']);
      await page.getByRole('button', { name: 'Unassigned' }).click();
      await expect.poll(() => page.url()).toContain('assignee=none');
      await row('Sign in').waitFor({ state: 'detached' });
      expect(await shownTitles()).toEqual(['Pay by invoice', 'Refund']);
      await page.reload();
      await row('Refund').waitFor();
      expect(await page.getByRole('button', { name: 'Unassigned' }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      expect(await shownTitles()).toEqual(['Pay by invoice', 'Refund']);
      await page.getByRole('button', { name: 'Unassigned' }).click();
      await row('Sign in').waitFor();
      expect(page.url()).not.toContain('assignee=');
    });

    it('adds cases through the picker, by folders chosen in the new-run tree; the cases in the run cannot be picked again', async () => {
      await page.getByRole('button', { name: 'Add cases' }).click();
      await dialog().getByRole('heading', { name: 'Add cases to the run' }).waitFor();
      const tree = dialog().getByRole('tree', { name: 'Folders (with their subfolders)' });
      const folder = (title: string) =>
        tree.getByRole('treeitem', { name: new RegExp(`^${title}\\s*(,|$)`) });
      const matches = dialog().getByRole('group', { name: 'Matching cases' });
      // The new-run dialog's tree: each folder with the cases of its subtree.
      await expect.poll(() => folder('Checkout').textContent()).toContain('5 test cases');
      expect(await folder('Checkout').getAttribute('aria-expanded')).toBe('false');

      // From the keyboard: open Checkout, check Wallets alone; Checkout reads mixed, only the wallet case shows.
      await folder('Login').focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      await folder('Wallets').waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Space');
      expect(await folder('Wallets').getAttribute('aria-checked')).toBe('true');
      expect(await folder('Checkout').getAttribute('aria-checked')).toBe('mixed');
      await matches.getByText('Gift cards').waitFor({ state: 'detached' });
      await matches.getByText('Pay by wallet').waitFor();
      await dialog().getByText('1 case in the chosen folder').waitFor();

      // Checkout itself takes its subfolders: Wallets is included with it, and the cases of both show.
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Space');
      expect(await folder('Checkout').getAttribute('aria-checked')).toBe('true');
      expect(await folder('Wallets').getAttribute('aria-disabled')).toBe('true');
      await matches.getByText('Gift cards').waitFor();
      await matches.getByText('Pay by wallet').waitFor();
      await matches.getByText('Sign in', { exact: true }).waitFor({ state: 'detached' });
      await dialog().getByText('5 cases in the chosen folder').waitFor();
      expect(await matches.getByRole('checkbox', { name: /Pay by card/ }).isDisabled()).toBe(true);
      await matches.getByRole('checkbox', { name: /Gift cards/ }).check();
      a11y.push(...(await inspect(page, 'run-add-cases')));
      // Only the ticked case is added, not the chosen folders' others.
      await dialog().getByRole('button', { name: 'Add 1 case' }).click();
      await dialog().waitFor({ state: 'detached' });
      await row('Gift cards').waitFor();
      await page.getByRole('status').filter({ hasText: '1 case added to the run.' }).waitFor();
      const titles = (await runCases()).map((c) => c.title);
      expect(titles).toContain('Gift cards');
      expect(titles).not.toContain('Pay by wallet');
    });

    it('removes the selected cases after a confirmation that says how many have results', async () => {
      await row('Sign out').getByRole('checkbox').check();
      await row('Refund').getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Remove selected' }).click();
      await dialog().getByRole('heading', { name: 'Remove 2 cases from the run?' }).waitFor();
      expect(await dialog().getByTestId('remove-summary').textContent()).toContain('1 of them has results.');
      a11y.push(...(await inspect(page, 'run-remove-cases')));
      await dialog().getByRole('button', { name: 'Remove 2 cases' }).click();
      await dialog().waitFor({ state: 'detached' });
      await row('Refund').waitFor({ state: 'detached' });
      await row('Sign out').waitFor({ state: 'detached' });
      expect((await runCases()).map((c) => c.title).sort()).toEqual(
        ['Gift cards', 'Pay by card', 'Pay by invoice', 'Sign in'].sort(),
      );
    });

    it('has no serious accessibility violation and no script error', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
