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

if (!hasChromium)
  console.log(`[casebook] assignee and progress browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * The lead's week, in Chromium against a real server (SQLite; the API beneath is tested on both databases): the
 * New run, Edit run and New test plan dialogs offer as assignee only the people the server accepts and show a
 * refusal beside the Assignee field; the dashboard's and the runs list's bars show what is done of each run.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))(
  'assignees and progress bars on %s',
  (target) => {
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    let api: SessionApi;
    const people = new Map<string, number>();
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    const optionsOf = (select: Locator) => select.locator('option').allTextContents();
    /** The words the select's aria-describedby points at: its error, read as a screen reader reads it. */
    const describedBy = async (select: Locator) => {
      const id = await select.getAttribute('aria-describedby');
      return id ? page.locator(`[id="${id}"]`).textContent() : null;
    };

    async function person(name: string, role: string, member: boolean) {
      const email = `${name.split(' ')[0].toLowerCase()}@example.com`;
      const { link } = await api('POST', '/users/invitations', { email, role });
      const res = await fetch(`${service.baseUrl}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: link.split('/').pop(), name, password: `${email}-password` }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const id = ((await res.json()) as { id: number }).id;
      if (member) await api('POST', '/project/WEEK/member', { userId: id });
      people.set(name, id);
    }

    beforeAll(async () => {
      ensureBuilt();
      service = await startServiceOn(target);
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      api = sessionApi(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      await api('POST', '/project', { code: 'WEEK', title: 'Week' });
      await api('POST', '/project/WEEK/tcase/bulk', {
        folderPath: ['Checkout'],
        tcases: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].map((title) => ({ title })),
      });
      await person('Tess Runner', 'test-runner', true);
      await person('Lena Leaver', 'test-runner', true);
      await person('Vic Viewer', 'viewer', true);
      await person('Otto Outsider', 'test-runner', false);
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
    });

    it('offers as a new run’s assignee only people who can open the project and shows a refusal beside the field', async () => {
      await page.goto(url('/project/WEEK/runs'));
      await page.getByRole('button', { name: 'New run' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'New run' });
      const assignee = dialog.getByLabel('Assignee');
      await expect.poll(() => optionsOf(assignee)).toContain('Tess Runner');
      const offered = await optionsOf(assignee);
      expect(offered).toContain('Lena Leaver');
      expect(offered).not.toContain('Vic Viewer');
      expect(offered).not.toContain('Otto Outsider');

      // Lena loses access while the dialog is open: the refusal is said beside the Assignee field.
      await api('DELETE', `/project/WEEK/member/${people.get('Lena Leaver')}`);
      await dialog.getByLabel('Title').fill('Checkout for Lena');
      await assignee.selectOption({ label: 'Lena Leaver' });
      await dialog.getByRole('button', { name: 'Create run' }).click();
      const refusal = `user ${people.get('Lena Leaver')} has no access to project WEEK`;
      await dialog.getByText(refusal).waitFor();
      expect(await describedBy(assignee)).toBe(refusal);
      expect(await assignee.getAttribute('aria-invalid')).toBe('true');
      a11y.push(...(await inspect(page, 'week-new-run-refused')));

      await assignee.selectOption({ label: 'Tess Runner' });
      expect(await describedBy(assignee)).toBeNull();
      await dialog.getByRole('button', { name: 'Create run' }).click();
      await page.getByRole('heading', { name: /Checkout for Lena/, level: 1 }).waitFor();
      const [run] = (await api('GET', '/project/WEEK/run')).runs;
      expect(run.assignmentId).toBe(people.get('Tess Runner'));
    });

    it('offers as an edited run’s assignee only people who can open the project and shows a refusal beside the field', async () => {
      await api('POST', '/project/WEEK/member', { userId: people.get('Lena Leaver') });
      await page.goto(url('/project/WEEK/runs'));
      await page.getByRole('button', { name: 'Edit Checkout for Lena', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: /Edit “Checkout for Lena”/ });
      const assignee = dialog.getByLabel('Assignee');
      await expect.poll(() => optionsOf(assignee)).toContain('Lena Leaver');
      expect(await assignee.inputValue()).toBe(String(people.get('Tess Runner')));
      const offered = await optionsOf(assignee);
      expect(offered).not.toContain('Vic Viewer');
      expect(offered).not.toContain('Otto Outsider');

      await api('DELETE', `/project/WEEK/member/${people.get('Lena Leaver')}`);
      await assignee.selectOption({ label: 'Lena Leaver' });
      await dialog.getByRole('button', { name: 'Save' }).click();
      const refusal = `user ${people.get('Lena Leaver')} has no access to project WEEK`;
      await dialog.getByText(refusal).waitFor();
      expect(await describedBy(assignee)).toBe(refusal);
      a11y.push(...(await inspect(page, 'week-edit-run-refused')));
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    });

    it('offers as a plan run’s assignee only people who can open the project', async () => {
      await page.goto(url('/project/WEEK/plans'));
      await page.getByRole('button', { name: 'New plan' }).click();
      const dialog = page.getByRole('dialog', { name: 'New test plan' });
      const assignee = dialog.getByLabel('Assignee of run 1');
      await expect.poll(() => optionsOf(assignee)).toContain('Tess Runner');
      const offered = await optionsOf(assignee);
      expect(offered).not.toContain('Vic Viewer');
      expect(offered).not.toContain('Otto Outsider');
      expect(offered).not.toContain('Lena Leaver');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it('draws each open run’s bar as what is done of that run, on the dashboard and the runs list', async () => {
      const ids = ((await api('GET', '/project/WEEK/tcase?limit=100')).data as { id: string }[]).map(
        (c) => c.id,
      );
      const big = await api('POST', '/project/WEEK/run', {
        title: 'Nothing done',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: ids }],
      });
      const half = await api('POST', '/project/WEEK/run', {
        title: 'Half done',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: ids.slice(0, 4) }],
      });
      await api('POST', `/project/WEEK/run/${half.id}/result/batch`, {
        items: [
          { tcaseId: ids[0], status: 'passed' },
          { tcaseId: ids[1], status: 'failed' },
        ],
      });
      expect(big.id).toBeGreaterThan(0);

      await page.goto(url('/project/WEEK'));
      const open = page.getByRole('list', { name: 'Open runs' });
      /** The drawn width of a bar, in percent of the whole track (the track itself not counted). */
      const filled = async (name: RegExp) =>
        (
          await open
            .getByRole('img', { name })
            .locator('rect:not(.dash-bar-track)')
            .evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('width'))))
        ).reduce((a, b) => a + b, 0);
      await open.getByRole('img', { name: /Nothing done: 0 of 8 done/ }).waitFor();
      expect(await filled(/Nothing done: 0 of 8 done/)).toBe(0);
      expect(await filled(/Half done: 2 of 4 done/)).toBeCloseTo(50);
      a11y.push(...(await inspect(page, 'week-dashboard')));

      await page.goto(url('/project/WEEK/runs'));
      const bar = (title: string) =>
        page
          .getByRole('listitem')
          .filter({ hasText: title })
          .getByRole('img', { name: /of \d+ done/ });
      await bar('Nothing done').waitFor();
      expect(await bar('Nothing done').getAttribute('aria-label')).toMatch(/^0 of 8 done/);
      expect(await bar('Nothing done').locator('.status-bar-part').count()).toBe(0);
      const parts = await bar('Half done')
        .locator('.status-bar-part')
        .evaluateAll((spans) => spans.map((s) => (s as HTMLElement).style.flexBasis));
      expect(parts).toEqual(['25%', '25%']);
      a11y.push(...(await inspect(page, 'week-runs-list')));
    });

    it('has no serious or critical accessibility violation and no script error', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
