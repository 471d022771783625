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

if (!hasChromium) console.log(`[casebook] runs list browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * The runs of a project in a real browser (SQLite): a run created from a folder with the preview counting what it
 * selects, listed with its progress, cloned and closed (confirmed).
 */
describe.skipIf(!hasChromium).each(browserTargets('postgres'))(
  'the runs page in Chromium on %s',
  (target) => {
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    let api: SessionApi;
    /** A folder of a plan's folder tree, by its title (the row also reads its case count). */
    const folderIn = (scope: ReturnType<Page['getByRole']>, plan: number, title: string) =>
      scope
        .getByRole('tree', { name: `Folders of plan ${plan}` })
        .getByRole('treeitem', { name: new RegExp(`^${title}\\s*(,|$)`) });
    const runs = async () =>
      (await api('GET', '/project/RUNS/run')).runs as {
        id: number;
        title: string;
        closedAt: string | null;
        description: string;
      }[];

    beforeAll(async () => {
      ensureBuilt();
      service = await startServiceOn(target);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      api = sessionApi(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      await api('POST', '/project', { code: 'RUNS', title: 'Runs' });
      await api('POST', '/project/RUNS/tcase/bulk', {
        folderPath: ['Login'],
        tcases: [{ title: 'A' }, { title: 'B' }, { title: 'C' }],
      });
      await api('POST', '/project/RUNS/tcase/bulk', {
        folderPath: ['Login', 'SSO'],
        tcases: [{ title: 'D' }],
      });
      await api('POST', '/project/RUNS/tcase/bulk', {
        folderPath: ['Checkout'],
        tcases: [{ title: 'E' }, { title: 'F' }],
      });
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
    });

    it('says what to do when there is no run yet', async () => {
      await page.goto(url('/project/RUNS/runs'));
      await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
      await expect.poll(() => page.getByText('No runs yet.').isVisible()).toBe(true);
      a11y.push(...(await inspect(page, 'runs-empty')));
    });

    it('creates a run from a folder, the preview counting its cases with subfolders, and opens it', async () => {
      await page.getByRole('button', { name: 'New run' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'New run' });
      await dialog.getByLabel('Title').fill('Login regression');
      await folderIn(dialog, 1, 'Login').click();
      await expect.poll(() => dialog.getByTestId('preview-total').textContent()).toBe('4');
      await dialog.getByText('D').first().waitFor();
      a11y.push(...(await inspect(page, 'runs-new')));
      await dialog.getByRole('button', { name: 'Create run' }).click();
      await page.getByRole('heading', { name: /Login regression/, level: 1 }).waitFor();
      expect((await runs()).map((r) => r.title)).toEqual(['Login regression']);
    });

    it('shows a refused title next to the form, keeping what was chosen', async () => {
      await page.goto(url('/project/RUNS/runs'));
      await page.getByRole('button', { name: 'New run' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'New run' });
      await dialog.getByLabel('Title').fill('Login regression');
      await folderIn(dialog, 1, 'Checkout').click();
      await dialog.getByRole('button', { name: 'Create run' }).click();
      await dialog.getByText(/conflicting run id/).waitFor();
      expect(await folderIn(dialog, 1, 'Checkout').getAttribute('aria-checked')).toBe('true');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it('lists the run with its progress, clones it, and closes one after confirming', async () => {
      const [run] = await runs();
      const ids = (await api('GET', `/project/RUNS/run/${run.id}/tcase`)).tcases.map(
        (t: { id: string }) => t.id,
      );
      await api('POST', `/project/RUNS/run/${run.id}/result/batch`, {
        items: [
          { tcaseId: ids[0], status: 'passed' },
          { tcaseId: ids[1], status: 'failed' },
        ],
      });
      await page.reload();
      const open = page.getByRole('list', { name: 'Open runs' });
      await open.getByRole('link', { name: 'Login regression', exact: true }).waitFor();
      // Each run links its report too.
      expect(await open.getByRole('link', { name: 'Report of Login regression' }).getAttribute('href')).toBe(
        `/project/RUNS/run/${run.id}/report`,
      );
      // The statuses' names arrive with their own request: the label is read once they are in.
      await expect
        .poll(() => open.getByRole('img').first().getAttribute('aria-label'))
        .toBe('2 of 4 done: 2 Open, 1 Passed, 1 Failed');
      await page.getByRole('button', { name: 'Clone Login regression' }).click();
      await expect.poll(async () => (await runs()).length).toBe(2);
      await expect.poll(() => open.getByRole('listitem').count()).toBe(2);

      await page.getByRole('button', { name: 'Close Login regression' }).first().click();
      const confirm = page.getByRole('dialog', { name: /Close “Login regression/ });
      await confirm.getByText('read-only').waitFor();
      a11y.push(...(await inspect(page, 'runs-close')));
      await confirm.getByRole('button', { name: 'Close run' }).click();
      await expect.poll(async () => (await runs()).filter((r) => r.closedAt).length).toBe(1);
      await page.getByRole('list', { name: 'Closed runs' }).getByRole('link').first().waitFor();
      a11y.push(...(await inspect(page, 'runs-list', { dark: true })));
    });

    it('filters by type, the filter kept in the address across a reload', async () => {
      await page.getByLabel('Type').selectOption('live');
      await page.getByText('No open run matches.').waitFor();
      await expect.poll(() => new URL(page.url()).searchParams.get('type')).toBe('live');
      await page.reload();
      await page.getByText('No open run matches.').waitFor();
      expect(await page.getByLabel('Type').inputValue()).toBe('live');
      await page.getByLabel('Type').selectOption('');
      await expect.poll(() => new URL(page.url()).searchParams.get('type')).toBeNull();
    });

    it('creates a test plan of two runs from the builder and shows their combined progress', async () => {
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Plans' }).click();
      await page.getByRole('heading', { name: 'Test plans', level: 1 }).waitFor();
      await page.getByText('No test plans yet.').waitFor();
      await page.getByRole('button', { name: 'New plan' }).click();
      const dialog = page.getByRole('dialog', { name: 'New test plan' });
      await dialog.getByLabel('Plan title').fill('Release 2.5');
      await dialog.getByLabel('Title of run 1').fill('Chrome');
      await folderIn(dialog, 1, 'Login').click();
      await dialog.getByLabel('Title of run 2').fill('Firefox');
      await folderIn(dialog, 2, 'Checkout').click();
      await expect.poll(() => dialog.getByTestId('preview-total').allTextContents()).toEqual(['4', '2']);
      a11y.push(...(await inspect(page, 'plans-new')));
      await dialog.getByRole('button', { name: 'Create plan' }).click();
      await page.getByRole('heading', { name: 'Release 2.5', level: 1 }).waitFor();
      const plan = (await api('GET', '/project/RUNS/plan')).plans[0];
      const full = await api('GET', `/project/RUNS/plan/${plan.id}`);
      expect(
        full.runs.map((r: { title: string; statusCounts: { all: number } }) => [r.title, r.statusCounts.all]),
      ).toEqual([
        ['Chrome', 4],
        ['Firefox', 2],
      ]);
      const firefox = full.runs[1];
      const ids = (await api('GET', `/project/RUNS/run/${firefox.id}/tcase`)).tcases.map(
        (t: { id: string }) => t.id,
      );
      await api('POST', `/project/RUNS/run/${firefox.id}/result/batch`, {
        items: [{ tcaseId: ids[0], status: 'passed' }],
      });
      await page.reload();
      await page.getByRole('heading', { name: 'All runs together' }).waitFor();
      expect(await page.getByRole('img').first().getAttribute('aria-label')).toBe(
        '1 of 6 done: 5 Open, 1 Passed',
      );
      a11y.push(...(await inspect(page, 'plan-page')));
    });

    it('creates a milestone, shows the progress of its runs, and archives it', async () => {
      await page.goto(url('/project/RUNS/milestones'));
      await page.getByRole('heading', { name: 'Milestones', level: 1 }).waitFor();
      await page.getByLabel('New milestone').fill('Sprint 48');
      await page.getByRole('button', { name: 'Add milestone' }).click();
      const active = page.getByRole('list', { name: 'Active milestones' });
      await active.getByText('Sprint 48').waitFor();
      const milestone = (await api('GET', '/project/RUNS/milestone')).milestones[0];
      const [run] = (await runs()).filter((r) => !r.closedAt && r.title === 'Login regression');
      await api('PATCH', `/project/RUNS/run/${run.id}`, { milestoneId: milestone.id });
      await page.reload();
      await expect
        .poll(() => active.getByRole('img').first().getAttribute('aria-label'))
        .toBe('2 of 4 done: 2 Open, 1 Passed, 1 Failed');
      a11y.push(...(await inspect(page, 'milestones')));
      await page.getByRole('button', { name: 'Archive Sprint 48' }).click();
      await page.getByRole('list', { name: 'Archived milestones' }).getByText('Sprint 48').waitFor();
      expect((await api('GET', '/project/RUNS/milestone')).milestones[0].archived).toBe(true);
    });

    it('edits an open run, sending only what changed, and lists the run logs on its page', async () => {
      await page.goto(url('/project/RUNS/runs'));
      const [run] = (await runs()).filter((r) => !r.closedAt && r.title === 'Login regression');
      await page.getByRole('button', { name: 'Edit Login regression', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: /Edit “Login regression”/ });
      a11y.push(...(await inspect(page, 'runs-edit')));
      await dialog.getByLabel('Title').fill('Login regression, first pass');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expect
        .poll(async () => (await runs()).find((r) => r.id === run.id)?.title)
        .toBe('Login regression, first pass');

      await api('POST', `/project/RUNS/run/${run.id}/log`, {
        comment: '<p>Nightly job 512: 3 flaky tests retried</p>',
      });
      await page.goto(url(`/project/RUNS/run/${run.id}`));
      await page.getByRole('heading', { name: /Run logs/ }).waitFor();
      await page.getByText('Nightly job 512: 3 flaky tests retried').waitFor();

      // The run's description is edited as rich text from the run page itself, and shown there.
      await page.getByRole('button', { name: 'Edit run' }).click();
      const onPage = page.getByRole('dialog', { name: /Edit “Login regression, first pass”/ });
      await onPage.getByRole('textbox', { name: 'Description' }).fill('Covers the sign-in changes of 2.4');
      await onPage.getByRole('button', { name: 'Save' }).click();
      await onPage.waitFor({ state: 'detached' });
      await page.locator('.run-description').getByText('Covers the sign-in changes of 2.4').waitFor();
      expect((await runs()).find((r) => r.id === run.id)).toMatchObject({
        title: 'Login regression, first pass',
        description: '<p>Covers the sign-in changes of 2.4</p>',
      });
    });

    it('creates a run from cases picked one by one, found by their title', async () => {
      await page.goto(url('/project/RUNS/runs'));
      await page.getByRole('button', { name: 'New run' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'New run' });
      await dialog.getByLabel('Title').fill('Picked by hand');
      await dialog.getByLabel('Pick cases').check();
      const matches = dialog.getByRole('group', { name: 'Matching cases for plan 1' });
      const find = dialog.getByLabel('Find cases to pick');
      await find.fill('e');
      await matches.getByRole('checkbox', { name: /^RUNS-\d+ E$/ }).check();
      await find.fill('f');
      await expect.poll(() => matches.getByRole('checkbox').count()).toBe(1);
      await matches.getByRole('checkbox', { name: /^RUNS-\d+ F$/ }).check();
      await dialog.getByText('2 cases picked').waitFor();
      await expect.poll(() => dialog.getByTestId('preview-total').textContent()).toBe('2');
      a11y.push(...(await inspect(page, 'runs-new-picked')));
      await dialog.getByRole('button', { name: 'Create run' }).click();
      await page.getByRole('heading', { name: /Picked by hand/, level: 1 }).waitFor();
      const run = (await runs()).find((r) => r.title === 'Picked by hand')!;
      const titles = (await api('GET', `/project/RUNS/run/${run.id}/tcase`)).tcases.map(
        (t: { title: string }) => t.title,
      );
      expect(titles.sort()).toEqual(['E', 'F']);
    });

    it("offers every folder of a project with more than a thousand in the builder's tree, in the repository's order", async () => {
      // Zeta (made first, so first) holds Beta and Alpha in that order; a thousand Areas follow it.
      await api('POST', '/project', { code: 'MANY', title: 'Many folders' });
      const areas = Array.from({ length: 1000 }, (_, i) => ({
        path: [`Area ${String(i + 1).padStart(4, '0')}`],
      }));
      await api('POST', '/project/MANY/tcase/folder/bulk', {
        folders: [{ path: ['Zeta', 'Beta'] }, { path: ['Zeta', 'Alpha'] }, ...areas],
      });
      await page.goto(url('/project/MANY/runs'));
      await page.getByRole('button', { name: 'New run' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'New run' });
      const tree = dialog.getByRole('tree', { name: 'Folders of plan 1' });
      const zeta = folderIn(dialog, 1, 'Zeta');
      await zeta.waitFor();
      expect(await tree.getByRole('treeitem').count()).toBe(1001);
      expect(await zeta.getAttribute('aria-expanded')).toBe('false');
      // → opens Zeta: its subfolders follow it, in their order, and the last Area ends the tree.
      await zeta.focus();
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => tree.getByRole('treeitem').count()).toBe(1003);
      const titles = await tree.locator('.folder-pick-title').allTextContents();
      expect(titles.slice(0, 4)).toEqual(['Zeta', 'Beta', 'Alpha', 'Area 0001']);
      expect(titles.at(-1)).toBe('Area 1000');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it('says a run address names no run when the run is unknown or belongs to another project, and leads to the runs', async () => {
      const [first] = await runs();
      await api('POST', '/project', { code: 'ELSE', title: 'Another project' });
      for (const [code, id] of [
        ['RUNS', 999999],
        ['ELSE', first.id],
      ] as const) {
        await page.goto(url(`/project/${code}/run/${id}`));
        const alert = page.getByRole('alert').filter({ hasText: `Run ${id} could not be opened.` });
        await alert.waitFor();
        expect(await alert.textContent()).toContain(`run ${id} not found`);
        // Opened by address, the error takes no focus (only one that comes back from "Try again" does).
        expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);
        // Asking again would answer the same: no "Try again", a way out instead.
        expect(await alert.getByRole('button', { name: 'Try again' }).count()).toBe(0);
        await alert.getByRole('link', { name: 'All projects' }).waitFor();
        if (code === 'RUNS') a11y.push(...(await inspect(page, 'run-missing')));
        await alert.getByRole('link', { name: `All runs of ${code}` }).click();
        await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
      }
    });

    it('moves the focus to the way out when trying again ends in a refusal', async () => {
      const [first] = await runs();
      const path = `**/api/public/v0/project/RUNS/run/${first.id}?*`;
      await page.route(path, (route) => route.abort('internetdisconnected'));
      await page.goto(url(`/project/RUNS/run/${first.id}`));
      const alert = page.getByRole('alert').filter({ hasText: `Run ${first.id} could not be opened.` });
      const retry = alert.getByRole('button', { name: 'Try again' });
      await retry.waitFor();
      await page.unroute(path);
      await page.route(path, (route) =>
        route.fulfill({ status: 404, json: { code: 'NOT_FOUND', message: `run ${first.id} not found` } }),
      );
      await retry.focus();
      await page.keyboard.press('Enter');
      await retry.waitFor({ state: 'detached' });
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.textContent))
        .toBe(`All runs of RUNS`);
      await page.unroute(path);
    });

    it('offers to try again when the service fails to answer, and opens the run then', async () => {
      const [first] = await runs();
      const path = `**/api/public/v0/project/RUNS/run/${first.id}?*`;
      await page.route(path, (route) =>
        route.fulfill({ status: 503, json: { code: 'UNAVAILABLE', message: 'Down for a moment' } }),
      );
      await page.goto(url(`/project/RUNS/run/${first.id}`));
      const alert = page.getByRole('alert').filter({ hasText: `Run ${first.id} could not be opened.` });
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Down for a moment');
      await page.unroute(path);
      await alert.getByRole('button', { name: 'Try again' }).click();
      const heading = page.getByRole('heading', { name: new RegExp(first.title), level: 1 });
      await expect.poll(() => heading.isVisible()).toBe(true);
      expect(await alert.count()).toBe(0);
    });

    it('shows each run’s date, pass rate, milestone and plan, searched by title and sorted, kept in the address', async () => {
      await api('POST', '/project', { code: 'DEPTH', title: 'Depth' });
      const folder = (
        await api('POST', '/project/DEPTH/tcase/folder/bulk', { folders: [{ path: ['Shop'] }] })
      ).ids[0][0] as number;
      const ids: string[] = [];
      for (const title of ['Cart', 'Pay', 'Ship'])
        ids.push(
          (
            await api('POST', '/project/DEPTH/tcase', {
              title,
              type: 'standalone',
              priority: 'low',
              folderId: folder,
            })
          ).id,
        );
      const milestoneId = (await api('POST', '/project/DEPTH/milestone', { title: 'Beta' })).id as number;
      const newRun = async (title: string, extra: Record<string, unknown> = {}) =>
        (
          await api('POST', '/project/DEPTH/run', {
            title,
            type: 'static_struct',
            queryPlans: [{ tcaseIds: ids }],
            ...extra,
          })
        ).id as number;
      // Two passed and one failed: 66.7 %, with 1.5 s and 2 s spent.
      const smoke = await newRun('Nightly smoke', { milestoneId });
      await api('POST', `/project/DEPTH/run/${smoke}/result/batch`, {
        items: [
          { tcaseId: ids[0], status: 'passed', timeTaken: 1500 },
          { tcaseId: ids[1], status: 'passed', timeTaken: 2000 },
          { tcaseId: ids[2], status: 'failed' },
        ],
      });
      // One passed, two open: open cases do not count, 100 %.
      const release = await newRun('Release check');
      await api('POST', `/project/DEPTH/run/${release}/result/batch`, {
        items: [{ tcaseId: ids[0], status: 'passed' }],
      });
      const planId = (
        await api('POST', '/project/DEPTH/plan', {
          title: 'Sprint 9',
          runs: [{ title: 'API', queryPlans: [{ tcaseIds: ids }] }],
        })
      ).id as number;

      await page.goto(url('/project/DEPTH/runs'));
      const open = page.getByRole('list', { name: 'Open runs' });
      const titles = () => open.locator('.runs-title').allInnerTexts();
      await expect.poll(titles).toEqual(['API', 'Release check', 'Nightly smoke']);
      const row = (title: string) => open.getByRole('listitem').filter({ hasText: title });
      expect(await row('Nightly smoke').getByTestId('pass-rate').innerText()).toBe('Pass rate 66.7%');
      expect(await row('Release check').getByTestId('pass-rate').innerText()).toBe('Pass rate 100%');
      expect(await row('API').getByTestId('pass-rate').innerText()).toBe('Pass rate —');
      const created = (await api('GET', `/project/DEPTH/run/${smoke}`)).createdAt as string;
      expect(await row('Nightly smoke').locator('time').getAttribute('datetime')).toBe(created);
      expect(await row('Nightly smoke').getByRole('link', { name: 'Beta' }).getAttribute('href')).toBe(
        `/project/DEPTH/milestone/${milestoneId}`,
      );
      expect(await row('API').getByRole('link', { name: 'Sprint 9' }).getAttribute('href')).toBe(
        `/project/DEPTH/plan/${planId}`,
      );

      await page.getByLabel('Sort by').selectOption('pass-high');
      await expect.poll(titles).toEqual(['Release check', 'Nightly smoke', 'API']);
      await page.getByLabel('Sort by').selectOption('title');
      await expect.poll(titles).toEqual(['API', 'Nightly smoke', 'Release check']);
      await page.getByLabel('Search titles').fill('SMOKE');
      await expect.poll(titles).toEqual(['Nightly smoke']);
      await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('SMOKE');
      a11y.push(...(await inspect(page, 'runs-depth')));
      await page.reload();
      await expect.poll(titles).toEqual(['Nightly smoke']);
      expect(await page.getByLabel('Search titles').inputValue()).toBe('SMOKE');
      expect(await page.getByLabel('Sort by').inputValue()).toBe('title');

      await open.getByRole('link', { name: 'Nightly smoke', exact: true }).click();
      await page.getByRole('heading', { name: /Nightly smoke/, level: 1 }).waitFor();
      // The figures come with the run's own query, which may answer after the heading (shown from the list's cache).
      await expect.poll(() => page.getByTestId('run-pass-rate').innerText()).toBe('Pass rate 66.7%');
      await expect.poll(() => page.getByTestId('run-time-spent').innerText()).toBe('Time spent 3.5 s');
      a11y.push(...(await inspect(page, 'run-figures')));
    });

    it('has no serious or critical accessibility violation and no script error', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
