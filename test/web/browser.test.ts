import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  OWNER,
  sessionFetch,
  signIn,
  startService,
  submitSignIn,
  VIEWPORTS,
  type RunningService,
  type SessionFetch,
} from './browser-env.js';

if (!hasChromium) {
  console.log(
    `[casebook] browser tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`,
  );
}

/**
 * The web application in a real browser against a real server process (SQLite only: the API beneath is
 * tested on both databases). Steps run in order and share one signed-in page, like a person would.
 */
describe.skipIf(!hasChromium)('the web application in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  const url = (path: string) => `${service.baseUrl}${path}`;
  const look = async (name: string, dark = false) => a11y.push(...(await inspect(page, name, { dark })));
  let apiCall: SessionFetch;

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    page = await context.newPage();
    apiCall = sessionFetch(page, service.baseUrl);
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('sends a visitor without a session to sign-in, remembering where they were going', async () => {
    await page.goto(url('/project/NOPE'));
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/project/NOPE');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await look('sign-in');
  });

  it('says in words why a sign-in failed', async () => {
    await submitSignIn(page, { email: OWNER.email, password: 'not the password' });
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid e-mail or password');
    await look('sign-in-error', true);
  });

  it('signs in and opens the projects page, which says there are none yet', async () => {
    await signIn(page, service.baseUrl);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByText('No active projects yet.').waitFor();
    await look('projects-empty');
  });

  it('shows the API errors of a new project in words next to the field', async () => {
    await page.getByRole('button', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Title').fill('Web shop');
    await dialog.getByLabel('Code').fill('x');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    const code = dialog.getByLabel('Code');
    await expect.poll(() => code.getAttribute('aria-invalid')).toBe('true');
    // The message is the field's description for assistive technology, and visible beside it.
    const describedBy = (await code.getAttribute('aria-describedby')) ?? '';
    const texts = await Promise.all(
      describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()),
    );
    expect(texts.join(' ')).toContain('code must be 2-5 alphanumeric characters');
    await look('project-create-error', true);
  });

  it('creates a project and opens its overview with its counts', async () => {
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Code').fill('WEB');
    await dialog
      .getByRole('textbox', { name: 'Description (optional)' })
      .fill('Everything the shop front does, tested before each release.');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Web shop', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/project/WEB');
    const stats = page.getByRole('region', { name: 'At a glance' });
    await expect.poll(() => stats.textContent()).toMatch(/Test cases\s*0/);
    await expect.poll(() => stats.textContent()).toMatch(/Open runs\s*0/);
    await page.getByText('Everything the shop front does').waitFor();
    await look('project-overview');
  });

  it('counts the test cases and open runs the API holds', async () => {
    const folders = await apiCall('POST', '/project/WEB/tcase/folder/bulk', {
      folders: [{ path: ['Checkout'] }],
    });
    const folderId = (await folders.json()).ids[0][0];
    for (const title of ['Checkout with a card', 'Checkout with a voucher']) {
      expect(
        (
          await apiCall('POST', '/project/WEB/tcase', {
            title,
            type: 'standalone',
            priority: 'medium',
            folderId,
            precondition: { text: '<p>A shopper with an empty <strong>cart</strong>.</p>' },
            steps: [
              { description: '<p>Add a product to the cart</p>', expected: '<p>The cart shows 1 item</p>' },
              { description: '<p>Pay</p>', expected: '<p>The order is confirmed</p>' },
            ],
            tags: ['checkout', 'smoke'],
          })
        ).status(),
      ).toBe(201);
    }
    const cases = await (await apiCall('GET', '/project/WEB/tcase')).json();
    const run = await apiCall('POST', '/project/WEB/run', {
      title: 'Release 2.4 regression',
      type: 'static',
      queryPlans: [{ tcaseIds: cases.data.map((c: { id: string }) => c.id) }],
    });
    expect(run.status()).toBe(201);
    await page.reload();
    const stats = page.getByRole('region', { name: 'At a glance' });
    await expect.poll(() => stats.textContent()).toMatch(/Test cases\s*2/);
    await expect.poll(() => stats.textContent()).toMatch(/Open runs\s*1/);
    await page.getByRole('link', { name: 'Release 2.4 regression' }).waitFor();
    await look('project-overview-with-run', true);
  });

  it('keeps archived projects apart from active ones', async () => {
    await page.getByRole('link', { name: 'Projects' }).first().click();
    await page.getByRole('button', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Title').fill('Legacy mobile app');
    await dialog.getByLabel('Code').fill('OLD');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Legacy mobile app', level: 1 }).waitFor();
    expect((await apiCall('POST', '/project/OLD/archive')).status()).toBe(200);
    await page.goto(url('/'));
    const archived = page.getByRole('region', { name: /Archived/ });
    await archived.getByRole('link', { name: /Legacy mobile app/ }).waitFor();
    const active = page.getByRole('region', { name: /Active/ });
    await active.getByRole('link', { name: /Web shop/ }).waitFor();
    expect(await active.getByRole('link', { name: /Legacy mobile app/ }).count()).toBe(0);
    await look('projects', true);
  });

  it('names a taken project code next to the code field', async () => {
    await page.getByRole('button', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Title').fill('Another shop');
    await dialog.getByLabel('Code').fill('web');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await dialog.getByText('a project with the code WEB exists').waitFor();
    expect(await dialog.getByLabel('Code').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('switches projects from the header', async () => {
    await page.getByRole('button', { name: 'Switch project' }).click();
    await page.getByRole('menuitem', { name: /Web shop/ }).click();
    await page.getByRole('heading', { name: 'Web shop', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/project/WEB');
  });

  it('opens the addresses the upload CLI prints, /project/{CODE}/run/{id} and /tcase/{seq}', async () => {
    const runCases = await (await apiCall('GET', '/project/WEB/run/1/tcase')).json();
    const first = runCases.tcases[0];
    const result = await apiCall('POST', `/project/WEB/run/1/tcase/${first.id}/result`, {
      status: 'passed',
      comment: '',
    });
    expect(result.status()).toBe(201);
    await page.goto(url('/project/WEB/run/1'));
    await page.getByRole('heading', { name: /Release 2.4 regression/, level: 1 }).waitFor();
    const list = page.getByRole('list', { name: 'Test cases of the run' });
    const caseRows = list.getByRole('listitem').filter({ has: page.getByRole('button') });
    await expect.poll(() => caseRows.count()).toBe(2);
    const passedRow = caseRows.filter({ hasText: first.title });
    await expect.poll(() => passedRow.textContent()).toContain('Passed');
    await expect.poll(() => page.getByTestId('count-passed').textContent()).toBe('1');
    await look('run', true);
    await passedRow.getByRole('button').first().click();
    await page.getByRole('link', { name: 'Open the test case' }).click();
    await page.getByRole('heading', { name: first.title, level: 1 }).waitFor();
    await page.goto(url('/project/WEB/run/42'));
    await page.getByText('Run 42 could not be opened.').waitFor();
    await page.goto(url('/project/WEB/tcase/1'));
    await page.getByRole('heading', { name: 'Checkout with a card', level: 1 }).waitFor();
    const steps = page.getByRole('region', { name: /Steps/ });
    expect(await steps.getByRole('listitem').count()).toBe(2);
    await steps.getByText('The order is confirmed').waitFor();
    await page
      .getByRole('region', { name: 'Precondition' })
      .getByText('A shopper with an empty cart.')
      .waitFor();
    await page.getByText('smoke', { exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByText('Checkout').waitFor();
    await look('tcase', true);
    await page.goto(url('/project/WEB/tcase/999'));
    const missing = page.getByRole('alert').filter({ hasText: 'Test case WEB-999 could not be opened.' });
    await missing.waitFor();
    expect(await missing.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await missing.getByRole('link', { name: 'The repository of WEB' }).click();
    await page.getByRole('treegrid', { name: 'Folders' }).waitFor();
    await page.goto(url('/project/NOPE'));
    const noProject = page.getByRole('alert').filter({ hasText: 'Project NOPE could not be opened.' });
    await noProject.waitFor();
    expect(await noProject.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await noProject.getByRole('link', { name: 'All projects' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  });

  it('shows where the keyboard focus is', async () => {
    await page.goto(url('/'));
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    for (let i = 0; i < 12 && (await focused()) !== 'New project'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('New project');
    const outline = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(outline.style).toBe('solid');
    expect(outline.width).toBeGreaterThanOrEqual(2);
    await look('keyboard-focus');
  });

  it('lists the keyboard shortcuts on ? and closes them on Escape', async () => {
    await page.goto(url('/'));
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByRole('definition').allTextContents()).toContain(
      'Save the test case being edited (⌘S on a Mac)',
    );
    await look('shortcuts');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
  });

  it('shows the user menu with the person and sign-out', async () => {
    await page.getByRole('button', { name: /^Account:/ }).click();
    const menu = page.getByRole('menu', { name: 'Account' });
    await expect.poll(() => menu.getByRole('menuitem', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(await menu.textContent()).toContain(OWNER.email);
    await look('user-menu');
    await page.keyboard.press('Escape');
  });

  it('sends a person whose session expired to sign-in and back to the page they were on', async () => {
    await page.goto(url('/'));
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await context.clearCookies();
    await page.getByRole('link', { name: /Web shop/ }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    expect(new URL(page.url()).searchParams.get('returnTo')).toBe('/project/WEB');
    await submitSignIn(page);
    await page.getByRole('heading', { name: 'Web shop', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/project/WEB');
  });

  it('signs out from the user menu; the pages then ask to sign in', async () => {
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(url('/'));
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
  });

  it('asks for the second factor when it is on, and signs in with the authenticator code', async () => {
    await submitSignIn(page);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    const { secret } = await (
      await apiCall('POST', '/users/me/2fa/setup', { password: OWNER.password })
    ).json();
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
    // Each code works once: turn it on with the previous period's code, sign in with the current one.
    const on = await apiCall('POST', '/users/me/2fa/enable', {
      totp: totp.generate({ timestamp: Date.now() - 30_000 }),
    });
    expect(on.status()).toBe(200);
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    await submitSignIn(page);
    await page.getByRole('heading', { name: 'Two-factor check' }).waitFor();
    await look('sign-in-second-factor');
    await page.getByLabel('Authentication code').fill('000000' === totp.generate() ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('That code is not valid').waitFor();
    await page.getByLabel('Authentication code').fill(totp.generate());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  });

  it('answers an unknown address inside the application with a page that says so', async () => {
    await page.goto(url('/no/such/page'));
    await expect
      .poll(() => page.getByRole('heading', { name: 'Page not found', level: 1 }).isVisible())
      .toBe(true);
    expect(await page.getByRole('link', { name: 'Go to your projects' }).getAttribute('href')).toBe('/');
    await look('not-found');
  });

  it('met no serious or critical accessibility violation, no script error and no CSP violation', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
