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
  startServiceOn,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] my work browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

const TESS = { email: 'tess@example.com', password: 'tess-password-123' };

/**
 * Issue 42, due dates and "My work", in Chromium against a real server (SQLite; the API beneath is tested on both
 * databases): the lead gives a new run a due date and assigns cases with due dates; the tester opens My work, sees
 * what is overdue said in words, and one click opens the run page showing only their cases.
 */
describe.skipIf(!hasChromium)('due dates and my work', () => {
  let service: RunningService;
  let browser: Browser;
  let lead: Page;
  let tester: Page;
  let api: SessionApi;
  let runId: number;
  const seqs = new Map<string, number>();
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const caseRow = (page: Page, title: string) =>
    page
      .getByRole('list', { name: 'Test cases of the run' })
      .getByRole('listitem')
      .filter({ hasText: title });

  beforeAll(async () => {
    ensureBuilt();
    service = await startServiceOn('sqlite');
    browser = await launchChromium();
    lead = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    lead.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(lead, service.baseUrl);
    await signIn(lead, service.baseUrl);
    await api('POST', '/project', { code: 'MW', title: 'Shop' });
    await api('POST', '/project/MW/tcase/bulk', {
      folderPath: ['Checkout'],
      tcases: ['Pay by card', 'Pay by invoice', 'Refund', 'Gift cards'].map((title) => ({ title })),
    });
    for (const c of (await api('GET', '/project/MW/tcase?limit=100')).data) seqs.set(c.title, c.seq);
    const { link } = await api('POST', '/users/invitations', { email: TESS.email, role: 'test-runner' });
    const registered = await fetch(`${service.baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: link.split('/').pop(), name: 'Tess Runner', password: TESS.password }),
    });
    expect(registered.status, await registered.clone().text()).toBe(201);
    const tessId = ((await registered.json()) as { id: number }).id;
    await api('POST', '/project/MW/member', { userId: tessId });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('creates a run with a due date in the New run dialog, and shows it overdue on the run and in the list', async () => {
    await lead.goto(`${service.baseUrl}/project/MW/runs`);
    await lead.getByRole('button', { name: 'New run' }).first().click();
    const dialog = lead.getByRole('dialog', { name: 'New run' });
    await dialog.getByLabel('Title').fill('Sprint 7');
    await dialog.getByLabel('Due date').fill('2020-01-15');
    await expect.poll(() => dialog.getByTestId('preview-total').textContent()).toBe('4');
    a11y.push(...(await inspect(lead, 'my-work-new-run')));
    await dialog.getByRole('button', { name: 'Create run' }).click();
    await lead.getByRole('heading', { name: /Sprint 7/, level: 1 }).waitFor();
    runId = Number(/\/run\/(\d+)/.exec(lead.url())![1]);
    expect(await lead.getByTestId('run-due').textContent()).toBe('Due Jan 15, 2020Overdue');
    expect((await api('GET', `/project/MW/run/${runId}`)).dueAt).toBe('2020-01-15');

    await lead.goto(`${service.baseUrl}/project/MW/runs`);
    const item = lead
      .getByRole('list', { name: 'Open runs' })
      .getByRole('listitem')
      .filter({ hasText: 'Sprint 7' });
    await item.getByText('Overdue').waitFor();
    expect(await item.locator('time[datetime="2020-01-15"]').textContent()).toBe('Jan 15, 2020');
    a11y.push(...(await inspect(lead, 'my-work-runs-list')));
  });

  it('assigns cases with a due date from the run page', async () => {
    await lead.goto(`${service.baseUrl}/project/MW/run/${runId}`);
    await caseRow(lead, 'Pay by card').waitFor();
    await caseRow(lead, 'Pay by card').getByRole('checkbox').check();
    await caseRow(lead, 'Refund').getByRole('checkbox').check();
    await lead.getByRole('button', { name: 'Assign selected' }).click();
    const dialog = lead.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Assign 2 cases' }).waitFor();
    await dialog.getByLabel('Assignee').selectOption({ label: 'Tess Runner' });
    await dialog.getByLabel('Due date').fill('2020-01-10');
    a11y.push(...(await inspect(lead, 'my-work-assign-dialog')));
    await dialog.getByRole('button', { name: 'Assign' }).click();
    await dialog.waitFor({ state: 'detached' });
    // One more, due far ahead: not overdue.
    const key = `MW-${seqs.get('Gift cards')}`;
    await caseRow(lead, 'Gift cards')
      .getByRole('button', { name: `Assign ${key} (nobody assigned)` })
      .click();
    await dialog.getByLabel('Assignee').selectOption({ label: 'Tess Runner' });
    await dialog.getByLabel('Due date').fill('2099-03-01');
    await dialog.getByRole('button', { name: 'Assign' }).click();
    await dialog.waitFor({ state: 'detached' });
    await caseRow(lead, 'Gift cards')
      .getByRole('button', { name: `Assignee of ${key}: Tess Runner. Change` })
      .waitFor();
  });

  it('lists the tester’s cases in My work, overdue first and said in words, and opens the run filtered to them', async () => {
    tester = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    tester.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(tester, service.baseUrl, TESS);
    await tester.getByRole('banner').getByRole('link', { name: 'My work', exact: true }).click();
    await tester.getByRole('heading', { name: 'My work', level: 1 }).waitFor();
    const summary = tester.getByTestId('my-work-summary');
    await expect.poll(() => summary.textContent()).toBe('3 open0 done2 overdue');
    const cases = tester.getByRole('list', { name: 'Your open cases in Sprint 7' });
    const rows = cases.getByRole('listitem');
    expect(await rows.locator('.my-work-case-link').allTextContents()).toEqual([
      `MW-${seqs.get('Pay by card')} Pay by card`,
      `MW-${seqs.get('Refund')} Refund`,
      `MW-${seqs.get('Gift cards')} Gift cards`,
    ]);
    expect(await rows.nth(0).getByText('Overdue').isVisible()).toBe(true);
    expect(await rows.nth(2).getByText('Overdue').count()).toBe(0);
    expect(await rows.nth(2).locator('time').textContent()).toBe('Mar 1, 2099');
    a11y.push(...(await inspect(tester, 'my-work', { dark: true })));

    await tester.getByRole('link', { name: 'Sprint 7', exact: true }).click();
    await tester.getByRole('heading', { name: /Sprint 7/, level: 1 }).waitFor();
    expect(new URL(tester.url()).searchParams.get('assignee')).toBe('me');
    expect(await tester.getByRole('button', { name: 'Mine' }).getAttribute('aria-pressed')).toBe('true');
    const shown = tester.getByRole('list', { name: 'Test cases of the run' }).locator('.run-case-title');
    await expect.poll(() => shown.count()).toBe(3);
    expect((await shown.allTextContents()).sort()).toEqual(['Gift cards', 'Pay by card', 'Refund']);
  });

  it('finds no serious accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
