import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  sessionApi,
  sessionFetch,
  signIn,
  browserTargets,
  startServiceOn,
  SCREENSHOTS,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

if (!hasChromium) console.log(`[casebook] run page browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

interface ApiResult {
  status: string;
  comment: string;
  links: {
    url: string;
    text: string;
    integrationId?: string;
    meta?: { id?: string };
    comment?: { status: string };
  }[];
  files?: { id: string; fileName: string; mimeType: string; size: number; url: string }[];
}

/**
 * A tester's day on the run page, in a real browser against a real server (SQLite): the run opened from the
 * address the upload CLI prints, results recorded by keyboard (a custom status and an issue link among them),
 * counts moving, a CI upload appearing without a reload, a failed request kept and retried once, one status for
 * several cases, and a closed run read-only.
 */
describe.skipIf(!hasChromium).each(browserTargets('postgres'))('the run page in Chromium on %s', (target) => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let runId: number;
  let tracker: Receiver;
  const ids = new Map<string, string>();
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (path: string) => `${service.baseUrl}${path}`;
  let api: SessionApi;
  const resultsOf = async (title: string): Promise<ApiResult[]> =>
    (await api('GET', `/project/RUNP/run/${runId}/tcase/${ids.get(title)}`)).results;
  const list = () => page.getByRole('list', { name: 'Test cases of the run' });
  const row = (title: string) => list().getByRole('listitem').filter({ hasText: title });
  const current = () => list().locator('[aria-current="true"]');
  /** Each row's main button (a row also holds its assignee's). */
  const caseButtons = () => list().getByRole('button', { name: /^RUNP-/ });
  const count = (status: string) => page.getByTestId(`count-${status}`);
  /** The comment editor opens on request (its button), then is the "Comment" textbox. */
  const commentBox = async () => {
    await page.getByRole('button', { name: 'Add a comment…' }).click();
    const box = page.getByRole('textbox', { name: 'Comment' });
    // The editor loads on first use; clicking it puts the caret there whether or not its autofocus won the race.
    await box.click();
    return box;
  };

  beforeAll(async () => {
    ensureBuilt();
    // The fake issue tracker listens on loopback, which outbound calls may reach only when allowed.
    tracker = await startReceiver();
    tracker.respond = () => ({ status: 201, body: JSON.stringify({ id: 9001 }) });
    service = await startServiceOn(target, { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    await api('POST', '/project', { code: 'RUNP', title: 'Run page' });
    for (const [folder, titles] of [
      ['Login', ['Sign in with a password', 'Sign in with a second factor', 'Sign out']],
      ['Checkout', ['Pay by card', 'Pay by invoice']],
    ] as const) {
      await api('POST', '/project/RUNP/tcase/bulk', {
        folderPath: [folder],
        tcases: titles.map((title) => ({ title })),
      });
    }
    const all = await api('GET', '/project/RUNP/tcase?limit=100');
    for (const c of all.data) ids.set(c.title, c.id);
    const patched = await sessionFetch(page, service.baseUrl)(
      'PATCH',
      `/project/RUNP/tcase/${ids.get('Sign in with a password')}`,
      {
        steps: [{ description: '<p>Do: Sign in with a password</p>', expected: '<p>It works</p>' }],
        priority: 'high',
        tags: ['auth'],
      },
    );
    expect(patched.status(), await patched.text()).toBe(200);
    const made = await api('POST', '/integration', {
      name: 'Shop tracker',
      type: 'tracker_a',
      config: { account: 'acme', apiUrl: `${tracker.url}/api/v3` },
      token: 'ghp_test_token',
    });
    await api('POST', '/project/RUNP/integration', { integrationId: made.id, config: { repo: 'shop' } });
    await api('POST', '/settings/preferences/status', {
      statuses: [{ id: 'custom1', name: 'Flaky', color: 'purple', isActive: true }],
    });
    runId = (
      await api('POST', '/project/RUNP/run', {
        title: 'Release 2.4 regression',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [...ids.values()] }],
      })
    ).id;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await tracker?.close();
  });

  it('opens /project/{CODE}/run/{id} directly, with the first open case selected and its steps shown', async () => {
    await page.goto(url(`/project/RUNP/run/${runId}`));
    await page.getByRole('heading', { name: /Release 2.4 regression/, level: 1 }).waitFor();
    await expect.poll(() => current().textContent()).toContain('Sign in with a password');
    await page.getByRole('heading', { name: 'Sign in with a password', level: 2 }).waitFor();
    await page.getByText('Do: Sign in with a password').waitFor();
    expect(await count('open').textContent()).toBe('5');
    a11y.push(...(await inspect(page, 'run-page', { dark: true })));
  });

  it('records results with one key each, moves to the next open case, and keeps comment, custom status and issue link', async () => {
    await page.keyboard.press('p');
    await expect.poll(() => row('Sign in with a password').textContent()).toContain('Passed');
    await expect.poll(() => current().textContent()).toContain('Sign in with a second factor');
    expect(await count('passed').textContent()).toBe('1');
    expect(await count('open').textContent()).toBe('4');

    await (await commentBox()).fill('The code arrives after 40 s.');
    await page.keyboard.press('Escape');
    await page.keyboard.press('f');
    await expect.poll(() => row('Sign in with a second factor').textContent()).toContain('Failed');

    // Sign out: the custom status by its digit.
    await page.keyboard.press('1');
    await expect.poll(() => row('Sign out').textContent()).toContain('Flaky');

    // Pay by card: failed with a link to the issue.
    await page.getByLabel('Address of the issue').fill('https://tracker.example.com/issues/42');
    await page.getByLabel('Link text').fill('Card declined');
    await page.keyboard.press('Escape');
    await page.keyboard.press('f');
    await expect.poll(() => row('Pay by card').textContent()).toContain('Failed');

    await expect
      .poll(async () => (await resultsOf('Sign in with a second factor')).map((r) => r.comment))
      .toEqual(['<p>The code arrives after 40 s.</p>']);
    expect((await resultsOf('Sign out')).map((r) => r.status)).toEqual(['custom1']);
    await expect
      .poll(async () => (await resultsOf('Pay by card'))[0]?.links)
      .toEqual([
        expect.objectContaining({ url: 'https://tracker.example.com/issues/42', text: 'Card declined' }),
      ]);
    expect(await count('failed').textContent()).toBe('2');
    const run = await api('GET', `/project/RUNP/run/${runId}/changes`);
    expect(run.statusCounts).toMatchObject({ passed: 1, failed: 2, custom1: 1, open: 1 });
  });

  it('shows a result uploaded through the API without a reload', async () => {
    await api('POST', `/project/RUNP/run/${runId}/result/batch`, {
      items: [{ tcaseId: ids.get('Pay by invoice'), status: 'blocked', comment: 'CI: gateway down' }],
    });
    await expect.poll(() => row('Pay by invoice').textContent(), { timeout: 10_000 }).toContain('Blocked');
    expect(await count('blocked').textContent()).toBe('1');
  });

  it('records a failure with a rich-text comment, an attached file and a tracker link that comments back', async () => {
    await row('Pay by card').getByRole('button').first().click();
    await page.getByRole('heading', { name: 'Pay by card', level: 2 }).waitFor();
    await commentBox();
    // The editor has the caret once opened: typing goes in at once.
    await page.keyboard.type('Declined with ');
    await page.keyboard.press('Control+b');
    await page.keyboard.type('code 51');
    await page.keyboard.press('Control+b');
    await page.keyboard.press('Escape');
    // A file still uploading holds the result back, with words next to the files; nothing is sent meanwhile.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Uploaded for the result (?purpose=result): matched by path, whatever the query.
    const uploads = (u: URL) => u.pathname === '/api/public/v0/file';
    await page.route(uploads, async (route) => {
      expect(new URL(route.request().url()).searchParams.get('purpose')).toBe('result');
      await held;
      await route.continue();
    });
    await page.getByLabel('Attach files to the result').setInputFiles({
      name: 'declined.png',
      mimeType: 'image/png',
      buffer: PNG,
    });
    await page.getByRole('status').filter({ hasText: 'Uploading a file…' }).waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('f');
    await page.getByRole('alert').filter({ hasText: 'Wait for the upload to finish' }).waitFor();
    release();
    const attached = page.getByRole('list', { name: 'Files attached to the result' });
    await attached.getByRole('link', { name: 'declined.png' }).waitFor();
    await page.unroute(uploads);
    expect(await resultsOf('Pay by card')).toHaveLength(1);
    await page.getByLabel('Tracker').selectOption({ label: 'Shop tracker' });

    // A link that cannot be sent stops the key and says why next to the link; nothing is stored.
    const address = page.getByLabel('Address of the issue');
    await address.fill('tracker.example.com/77');
    await address.press('Escape');
    await page.keyboard.press('f');
    await page.getByText(/The issue link must be an http\(s\) address/).waitFor();
    expect(await address.getAttribute('aria-invalid')).toBe('true');
    expect(await resultsOf('Pay by card')).toHaveLength(1);

    await address.fill('https://git.test/acme/shop/issues/77');
    await page.getByLabel('Link text').fill('Declined cards');
    await page.getByText('(77, read from the address)').waitFor();
    a11y.push(...(await inspect(page, 'run-page-recorder')));
    await address.press('Escape');
    await page.keyboard.press('f');
    await expect.poll(async () => (await resultsOf('Pay by card')).length).toBe(2);
    const [, result] = await resultsOf('Pay by card');
    expect(result.status).toBe('failed');
    expect(result.comment).toMatch(/^<p>Declined with ?<strong> ?code 51<\/strong><\/p>/);
    // The attachment is an item of the result (extensions.md §8), no longer a link appended to the comment.
    expect(result.comment).not.toContain('declined.png');
    expect(result.files).toEqual([
      expect.objectContaining({ fileName: 'declined.png', mimeType: 'image/png', size: PNG.length }),
    ]);
    expect(result.links).toEqual([
      expect.objectContaining({
        url: 'https://git.test/acme/shop/issues/77',
        text: 'Declined cards',
        integrationId: expect.any(String),
        meta: { id: '77' },
      }),
    ]);
    // The service comments on issue 77 in the background, and the link says so.
    await expect
      .poll(() => tracker.requests.map((r) => r.url), { timeout: 15_000 })
      .toEqual(['/api/v3/repos/acme/shop/issues/77/comments']);
    await expect
      .poll(async () => (await resultsOf('Pay by card'))[1].links[0].comment?.status, { timeout: 15_000 })
      .toBe('posted');
    // The attachment is shown with the result in the run: an image as a thumbnail that opens the full image.
    await row('Pay by card').getByRole('button').first().click();
    const here = page.getByRole('region', { name: 'Results in this run' });
    const thumb = here
      .getByRole('list', { name: 'Attached images' })
      .getByRole('img', { name: 'declined.png' });
    await thumb.waitFor();
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    const open = here.getByRole('link', { name: 'declined.png' });
    expect(await open.getAttribute('href')).toBe(result.files![0].url);
    expect(await open.getAttribute('target')).toBe('_blank');
    await thumb.scrollIntoViewIfNeeded();
    a11y.push(...(await inspect(page, 'run-page-result-files')));
    // At phone size the history is below the recorder: looked at there too.
    await page.setViewportSize(VIEWPORTS.phone);
    await thumb.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'run-page-result-files-history-phone.png') });
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it('keeps a result whose request failed, with its comment, and stores it once when sent again', async () => {
    await row('Sign out').getByRole('button').first().click();
    await (await commentBox()).fill('Retried after the network came back.');
    await page.route('**/result', (route) => route.abort('internetdisconnected'));
    await page.getByRole('textbox', { name: 'Comment' }).press('Escape');
    await page.keyboard.press('p');
    const alert = page.getByRole('alert').filter({ hasText: 'was not saved' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Its comment is kept.');
    await expect.poll(() => row('Sign out').textContent()).toContain('Flaky');
    a11y.push(...(await inspect(page, 'run-page-failed')));
    await page.unroute('**/result');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await alert.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await resultsOf('Sign out')).map((r) => r.comment))
      .toEqual(['', '<p>Retried after the network came back.</p>']);
    await expect.poll(() => row('Sign out').textContent()).toContain('Passed');
  });

  it('records one status for several selected cases', async () => {
    await row('Sign in with a password').getByRole('checkbox').check();
    await row('Pay by invoice').getByRole('checkbox').check();
    await page.getByRole('heading', { name: /Record one status for 2 selected cases/ }).waitFor();
    await page.keyboard.press('s');
    await expect.poll(() => row('Sign in with a password').textContent()).toContain('Skipped');
    await expect.poll(() => row('Pay by invoice').textContent()).toContain('Skipped');
    await expect
      .poll(async () => (await resultsOf('Pay by invoice')).map((r) => r.status))
      .toEqual(['blocked', 'skipped']);
  });

  it('filters by status and search', async () => {
    const failedChip = page
      .getByRole('group', { name: 'Show cases by status' })
      .getByRole('button', { name: /^Failed/ });
    await failedChip.click();
    await expect.poll(() => caseButtons().allTextContents()).toHaveLength(2);
    // The filter is in the address: shared or reloaded, the page shows the same cases.
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('failed');
    await page.reload();
    await expect.poll(() => caseButtons().allTextContents()).toHaveLength(2);
    expect(await failedChip.getAttribute('aria-pressed')).toBe('true');
    await failedChip.click();
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBeNull();
    await page.keyboard.press('/');
    await page.keyboard.type('invoice');
    await expect.poll(() => caseButtons().allTextContents()).toHaveLength(1);
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('invoice');
    await page.getByLabel("Search the run's cases").fill('');

    // Priority and tag narrow the list too, and are kept in the address.
    const high = page
      .getByRole('group', { name: 'Show cases by priority' })
      .getByRole('button', { name: 'High' });
    await high.click();
    await expect.poll(() => caseButtons().allTextContents()).toHaveLength(1);
    expect(new URL(page.url()).searchParams.get('priority')).toBe('high');
    await high.click();
    await page.getByLabel('Show cases with the tag').selectOption({ label: 'Tag: auth' });
    await expect
      .poll(() => caseButtons().allTextContents())
      .toEqual([expect.stringContaining('Sign in with a password')]);
    await page.reload();
    await expect
      .poll(() => caseButtons().allTextContents())
      .toEqual([expect.stringContaining('Sign in with a password')]);
    a11y.push(...(await inspect(page, 'run-page-filtered')));
    await page.getByLabel('Show cases with the tag').selectOption({ label: 'Any tag' });
    await expect.poll(() => caseButtons().allTextContents()).toHaveLength(5);
    await page.getByLabel("Search the run's cases").fill('');
  });

  it('shows a closed run read-only', async () => {
    await api('POST', `/project/RUNP/run/${runId}/close`);
    await page.reload();
    await page.getByRole('note').filter({ hasText: 'This run is closed' }).waitFor();
    expect(await page.getByRole('region', { name: 'Record a result' }).count()).toBe(0);
    const before = await resultsOf('Sign in with a second factor');
    await row('Sign in with a second factor').getByRole('button').first().click();
    await page.keyboard.press('p');
    await page.waitForTimeout(300);
    expect(await resultsOf('Sign in with a second factor')).toEqual(before);
    a11y.push(...(await inspect(page, 'run-page-closed')));
  });

  it('opens with the case of ?tcase=<seq> selected, the address a tracker comment links to', async () => {
    const seq = (await api('GET', `/project/RUNP/run/${runId}/tcase/${ids.get('Pay by invoice')}`)).seq;
    await page.goto(url(`/project/RUNP/run/${runId}?tcase=${seq}`));
    await expect.poll(() => current().textContent()).toContain('Pay by invoice');
    await page.getByRole('heading', { name: 'Pay by invoice', level: 2 }).waitFor();
  });

  it('has no serious or critical accessibility violation and no script error on any page looked at', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
