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

if (!hasChromium)
  console.log(`[casebook] plans and milestones browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * A lead reshaping a plan and following a milestone in a real browser (SQLite): the plan renamed and
 * moved to another milestone, given a run, closed after the confirmation says how many runs close with it; the
 * milestones list and a milestone's page marking a milestone whose due date has passed.
 */
describe.skipIf(!hasChromium).each(browserTargets('postgres'))(
  'plans and milestones after the fact in Chromium on %s',
  (target) => {
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    let api: SessionApi;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    /** A folder of a plan's folder tree (features/runs/list/FolderPicker.tsx), by its title; the row also reads its count. */
    const folderIn = (scope: ReturnType<Page['getByRole']>, plan: number, title: string) =>
      scope
        .getByRole('tree', { name: `Folders of plan ${plan}` })
        .getByRole('treeitem', { name: new RegExp(`^${title}\\s*(,|$)`) });
    const look = async (name: string) => a11y.push(...(await inspect(page, name)));
    let sprint: number;
    let release: number;
    let planId: number;

    beforeAll(async () => {
      ensureBuilt();
      service = await startServiceOn(target);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      api = sessionApi(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      await api('POST', '/project', { code: 'PLM', title: 'Plans and milestones' });
      await api('POST', '/project/PLM/tcase/bulk', {
        folderPath: ['Login'],
        tcases: [{ title: 'Sign in' }, { title: 'Sign out' }],
      });
      await api('POST', '/project/PLM/tcase/bulk', { folderPath: ['Checkout'], tcases: [{ title: 'Pay' }] });
      const ids = (await api('GET', '/project/PLM/tcase?limit=100')).data.map((c: { id: string }) => c.id);
      sprint = (await api('POST', '/project/PLM/milestone', { title: 'Sprint 7' })).id;
      release = (
        await api('POST', '/project/PLM/milestone', {
          title: 'Release 3.0',
          description: 'The new checkout, on every browser.',
          due: '2026-01-15',
        })
      ).id;
      planId = (
        await api('POST', '/project/PLM/plan', {
          title: 'Nightly plan',
          milestoneId: sprint,
          runs: [
            { title: 'Chrome', queryPlans: [{ tcaseIds: ids }] },
            { title: 'Firefox', queryPlans: [{ tcaseIds: ids.slice(0, 1) }] },
          ],
        })
      ).id;
      const chrome = (await api('GET', `/project/PLM/plan/${planId}`)).runIds[0];
      await api('POST', `/project/PLM/run/${chrome}/result/batch`, {
        items: [
          { tcaseId: ids[0], status: 'passed' },
          { tcaseId: ids[1], status: 'failed' },
        ],
      });
      // A run of the release outside the plan, still open when the plan closes: the release stays incomplete.
      await api('POST', '/project/PLM/run', {
        title: 'Exploratory',
        type: 'static_struct',
        milestoneId: release,
        queryPlans: [{ tcaseIds: ids.slice(2) }],
      });
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
    });

    it('creates a plan in a milestone chosen in the new-plan dialog', async () => {
      await page.goto(url('/project/PLM/plans'));
      await page.getByRole('button', { name: 'New plan' }).click();
      const dialog = page.getByRole('dialog', { name: 'New test plan' });
      await dialog.getByLabel('Plan title').fill('Smoke plan');
      await dialog.getByLabel('Milestone').selectOption({ label: 'Sprint 7' });
      await folderIn(dialog, 1, 'Login').click();
      await folderIn(dialog, 2, 'Checkout').click();
      await expect.poll(() => dialog.getByTestId('preview-total').allTextContents()).toEqual(['2', '1']);
      await dialog.getByRole('button', { name: 'Create plan' }).click();
      await page.getByRole('heading', { name: 'Smoke plan', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Sprint 7', exact: true }).waitFor();
      const created = (await api('GET', '/project/PLM/plan')).plans.find(
        (p: { title: string }) => p.title === 'Smoke plan',
      );
      expect(created.milestoneId).toBe(sprint);
      const full = await api('GET', `/project/PLM/plan/${created.id}`);
      expect(full.runs.map((r: { milestoneId: number }) => r.milestoneId)).toEqual([sprint, sprint]);
    });

    it('renames a plan and moves it, runs and all, to another milestone', async () => {
      await page.goto(url(`/project/PLM/plan/${planId}`));
      await page.getByRole('heading', { name: 'Nightly plan', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit “Nightly plan”' });
      await dialog.getByLabel('Title').fill('Release 3.0 plan');
      await dialog.getByLabel('Milestone').selectOption({ label: 'Release 3.0' });
      await look('plan-edit');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: 'Release 3.0 plan', level: 1 }).waitFor();
      expect(await page.getByRole('link', { name: 'Release 3.0', exact: true }).getAttribute('href')).toBe(
        `/project/PLM/milestone/${release}`,
      );
      const plan = await api('GET', `/project/PLM/plan/${planId}`);
      expect(plan.milestoneId).toBe(release);
      expect(plan.runs.map((r: { milestoneId: number }) => r.milestoneId)).toEqual([release, release]);
    });

    it('says under the title when another plan of the milestone has it, and keeps the dialog open', async () => {
      await api('POST', '/project/PLM/plan', {
        title: 'Taken title',
        milestoneId: release,
        runs: [{ title: 'r', queryPlans: [{ tcaseIds: [] }] }],
      });
      await page.getByRole('button', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit “Release 3.0 plan”' });
      await dialog.getByLabel('Title').fill('Taken title');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.getByText(/a test plan titled "Taken title" exists in milestone/).waitFor();
      expect(await dialog.getByLabel('Title').getAttribute('aria-invalid')).toBe('true');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect((await api('GET', `/project/PLM/plan/${planId}`)).title).toBe('Release 3.0 plan');
    });

    it('saves the description with the rest; one too long is said beside it, and nothing typed is lost', async () => {
      await page.getByRole('button', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit “Release 3.0 plan”' });
      const description = dialog.getByRole('textbox', { name: 'Description' });
      await description.click();
      // Over the service's 256 KiB for an HTML field, in words that wrap like a person's.
      const long = `${'Every browser, every card. '.repeat(9710)}The end.`;
      await page.keyboard.insertText(long);
      await dialog.getByLabel('Milestone').selectOption({ label: 'Sprint 7' });
      await dialog.getByRole('button', { name: 'Save' }).click();
      const error = dialog.getByText(
        'The description is too long: it holds at most 262,144 characters, its formatting counted. Shorten it and save again.',
      );
      await error.waitFor();
      expect(await description.getAttribute('aria-invalid')).toBe('true');
      expect(await error.getAttribute('id')).toBe(await description.getAttribute('aria-describedby'));
      // What was typed stays: the description, and the milestone chosen with it.
      expect((await description.textContent())?.length).toBe(long.length);
      expect(await dialog.getByLabel('Milestone').inputValue()).toBe(String(sprint));
      expect((await api('GET', `/project/PLM/plan/${planId}`)).description).toBe('');
      await look('plan-edit-description-error');

      // Shortened in place: the message goes as it is typed; the milestone goes back to the release for the
      // rest of this walk.
      await description.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText('The new checkout, on every browser.');
      await error.waitFor({ state: 'detached' });
      await dialog.getByLabel('Milestone').selectOption({ label: 'Release 3.0' });
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.locator('.plan-description').getByText('The new checkout, on every browser.').waitFor();
      const plan = await api('GET', `/project/PLM/plan/${planId}`);
      expect(plan.description).toBe('<p>The new checkout, on every browser.</p>');
      expect(plan.milestoneId).toBe(release);
      expect(plan.title).toBe('Release 3.0 plan');

      // The dialog opens again with the saved description in its editor.
      await page.getByRole('button', { name: 'Edit' }).click();
      await expect
        .poll(() => dialog.getByRole('textbox', { name: 'Description' }).textContent())
        .toBe('The new checkout, on every browser.');
      await look('plan-edit-description');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    });

    it('adds a run to the plan from the builder', async () => {
      await page.getByRole('button', { name: 'Add runs' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add runs to “Release 3.0 plan”' });
      await dialog.getByLabel('Title of run 1').fill('Safari');
      await folderIn(dialog, 1, 'Checkout').click();
      await expect.poll(() => dialog.getByTestId('preview-total').allTextContents()).toEqual(['1']);
      await look('plan-add-runs');
      await dialog.getByRole('button', { name: 'Add run' }).click();
      await dialog.waitFor({ state: 'detached' });
      const list = page.getByRole('list', { name: 'Runs of the plan' });
      await list.getByRole('link', { name: 'Safari' }).waitFor();
      expect(await list.getByRole('listitem').count()).toBe(3);
      const safari = (await api('GET', `/project/PLM/plan/${planId}`)).runs[2];
      expect(safari).toMatchObject({ title: 'Safari', milestoneId: release, statusCounts: { all: 1 } });
    });

    it('closes the plan after the confirmation names the open runs it closes', async () => {
      await page.getByRole('button', { name: 'Close plan' }).click();
      const dialog = page.getByRole('dialog', { name: 'Close “Release 3.0 plan”?' });
      await dialog.getByText('This closes 3 open runs of the plan with it.').waitFor();
      await look('plan-close');
      await dialog.getByRole('button', { name: 'Close plan and 3 runs' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page
        .getByRole('note')
        .getByText(/This plan is closed/)
        .waitFor();
      await page.getByRole('button', { name: 'Add runs' }).waitFor({ state: 'detached' });
      expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
      const plan = await api('GET', `/project/PLM/plan/${planId}`);
      expect(plan.closed).toBe(true);
      expect(plan.runs.map((r: { closed: boolean }) => r.closed)).toEqual([true, true, true]);
      await look('plan-closed');
    });

    it('marks the milestone whose due date passed as overdue, in the list and on its page', async () => {
      await page.goto(url('/project/PLM/milestones'));
      const active = page.getByRole('list', { name: 'Active milestones' });
      const releaseRow = active.getByRole('listitem').filter({ hasText: 'Release 3.0' });
      await releaseRow.getByText('Overdue').waitFor();
      await releaseRow.getByText('The new checkout, on every browser.').waitFor();
      expect(await releaseRow.locator('time').getAttribute('datetime')).toBe('2026-01-15');
      expect(
        await active.getByRole('listitem').filter({ hasText: 'Sprint 7' }).getByText('Overdue').count(),
      ).toBe(0);
      await look('milestones-list');
      await releaseRow.getByRole('link', { name: 'Release 3.0', exact: true }).click();
      await page.getByRole('heading', { name: /^Release 3\.0/, level: 1 }).waitFor();
      const heading = page.getByRole('heading', { level: 1 });
      await heading.getByText('Overdue').waitFor();
      await page.getByText('The new checkout, on every browser.').waitFor();
      // 3 + 1 + 1 cases in the plan's runs, 1 in the exploratory run; 1 passed, 1 failed.
      await expect.poll(() => page.getByTestId('milestone-done').textContent()).toBe('2 of 6');
      await expect.poll(() => page.getByTestId('milestone-pass-rate').textContent()).toBe('50%');
      const plans = page.getByRole('list', { name: 'Plans of the milestone' });
      // The plans and runs arrive in their own requests, after the figures above.
      await expect
        .poll(() => plans.getByRole('link').allTextContents())
        .toEqual(['Taken title', 'Release 3.0 plan']);
      await expect
        .poll(() =>
          page.getByRole('list', { name: 'Open runs of the milestone' }).getByRole('link').allTextContents(),
        )
        .toEqual(['r', 'Exploratory']);
      await expect
        .poll(() =>
          page
            .getByRole('list', { name: 'Closed runs of the milestone' })
            .getByRole('link')
            .allTextContents(),
        )
        .toEqual(['Safari', 'Firefox', 'Chrome']);
      expect(await page.getByRole('link', { name: 'Report', exact: true }).getAttribute('href')).toBe(
        `/project/PLM/milestone/${release}/report`,
      );
      a11y.push(...(await inspect(page, 'milestone-page', { dark: true })));
    });

    it('moves the due date on the milestone page, and the overdue marker goes', async () => {
      await page.getByRole('button', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit “Release 3.0”' });
      await dialog.getByLabel('Due date').fill('2099-06-30');
      await dialog.getByLabel('Description').fill('The new checkout.\nEvery browser, every card.');
      await look('milestone-edit');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('heading', { level: 1 }).getByText('Overdue').waitFor({ state: 'detached' });
      expect(await page.locator('.milestone-facts time').getAttribute('datetime')).toBe('2099-06-30');
      await page.getByText('Every browser, every card.').waitFor();
      expect(await api('GET', `/project/PLM/milestone/${release}`)).toMatchObject({
        due: '2099-06-30',
        description: 'The new checkout.\nEvery browser, every card.',
      });
    });

    it('met no accessibility violation and no page error', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
