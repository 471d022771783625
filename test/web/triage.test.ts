import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  browserTargets,
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  SCREENSHOTS,
  sessionApi,
  signIn,
  startServiceOn,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] triage browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

const XSS = '<img src=x onerror=alert(1)>';
const TIMEOUT = (spec: string) =>
  `<p>TimeoutError: Timeout 30000ms waiting for #checkout</p><pre><code>    at tests/${spec}.spec.ts:12:5</code></pre>`;
// A message that quotes markup: stored escaped (D22), its label is plain text holding angle brackets.
const MARKUP = '<p>Error: expected &lt;img src=x onerror=alert(1)&gt; to be visible</p>';
const TIMEOUT_LABEL = 'TimeoutError: Timeout <n>ms waiting for #checkout';
const MARKUP_LABEL = 'expected <img src=x onerror=alert(<n>)> to be visible';
const BUG = { url: 'https://tracker.example.com/issues/77', text: 'BUG-77 checkout times out' };

/**
 * Issue 45's pages, in Chromium against a real server (SQLite; the API beneath is tested on both databases): a run
 * with six failures sharing two messages, a previous run where one of them was linked to a defect. The run page's
 * "Failures" groups them with their counts, expands to the cases, links a defect to a whole group, marks one known
 * and undoes it; a case shows the defect linked before and accepts it; the report lists the groups; labels and
 * titles that look like HTML are text.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))('failure triage on %s', (target) => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  let runId: number;
  let previousId: number;
  let ownerName: string;
  const ids = new Map<string, string>();
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const dialogs: string[] = [];
  const panel = () => page.getByRole('region', { name: /^Failures/ });
  const group = (label: string) => panel().getByRole('listitem').filter({ hasText: label }).first();
  const dialog = () => page.getByRole('dialog');
  const timeoutCases = ['Pay by card', 'Pay by invoice', 'Refund', 'Gift cards'];
  const markupCases = ['Show banner', XSS];
  /** The links on a case's latest result in the run, as stored. */
  const linksOf = async (title: string) => {
    const d = await api('GET', `/project/TRI/run/${runId}/tcase/${ids.get(title)}`);
    return (d.results.at(-1).links as { url: string; text: string }[]).map((l) => `${l.text} ${l.url}`);
  };
  /** The part of the page at both sizes, whole, beside the page's screenshots (test-results/screenshots/). */
  const elementShots = async (part: Locator, name: string) => {
    for (const size of ['desktop', 'phone'] as const) {
      await page.setViewportSize(VIEWPORTS[size]);
      await part.screenshot({ path: path.join(SCREENSHOTS, `triage-${name}-part-${size}.png`) });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  };
  const fail = (run: number, title: string, comment: string, links?: object[]) =>
    api('POST', `/project/TRI/run/${run}/tcase/${ids.get(title)}/result`, {
      status: 'failed',
      comment,
      ...(links ? { links } : {}),
    });

  beforeAll(async () => {
    ensureBuilt();
    service = await startServiceOn(target);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    ownerName = (await api('GET', '/users/me')).user.name;
    await api('POST', '/project', { code: 'TRI', title: 'Triage' });
    await api('POST', '/project/TRI/tcase/bulk', {
      folderPath: ['Checkout'],
      tcases: [...timeoutCases, ...markupCases, 'Sign in'].map((title) => ({ title })),
    });
    for (const c of (await api('GET', '/project/TRI/tcase?limit=100')).data) ids.set(c.title, c.id);
    const newRun = async (title: string, titles: string[]) =>
      (
        await api('POST', '/project/TRI/run', {
          title,
          type: 'static_struct',
          queryPlans: [{ tcaseIds: titles.map((t) => ids.get(t)) }],
        })
      ).id as number;
    // Last night the checkout timed out once, and someone linked it to a defect.
    previousId = await newRun('Nightly 1', ['Pay by card', 'Sign in']);
    await fail(previousId, 'Pay by card', TIMEOUT('checkout'), [BUG]);
    // Signing in failed last night and passes tonight: a flip, which the case list shows as its flaky score.
    await fail(previousId, 'Sign in', '<p>Expected status 200 but got 503</p>');
    runId = await newRun('Nightly 2', [...timeoutCases, ...markupCases, 'Sign in']);
    for (const [i, title] of timeoutCases.entries()) await fail(runId, title, TIMEOUT(`spec-${i}`));
    for (const title of markupCases) await fail(runId, title, MARKUP);
    await api('POST', `/project/TRI/run/${runId}/tcase/${ids.get('Sign in')}/result`, { status: 'passed' });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('groups the run’s failures by what they fail with, with their counts, new ones marked', async () => {
    await page.goto(`${service.baseUrl}/project/TRI/run/${runId}`);
    await page.getByRole('heading', { name: /Nightly 2/, level: 1 }).waitFor();
    await panel().getByTestId('triage-summary').waitFor();
    expect(await panel().getByTestId('triage-summary').textContent()).toBe(
      `6 failing cases in 2 groups · 1 new since run ${previousId}`,
    );
    await panel().getByRole('button', { name: 'Show failure groups' }).click();
    await group(TIMEOUT_LABEL).waitFor();
    const groups = panel().getByRole('list', { name: 'Failure groups' }).locator(':scope > li');
    expect(await groups.locator('.triage-what').allTextContents()).toEqual([
      `4 cases fail with ${TIMEOUT_LABEL}`,
      `2 cases fail with ${MARKUP_LABEL}`,
    ]);
    // The timeout failed last night too; the markup message is new.
    expect(await group(TIMEOUT_LABEL).locator('.badge').allTextContents()).toEqual([]);
    expect(await group(MARKUP_LABEL).locator('.badge').allTextContents()).toEqual([
      `New since run ${previousId}`,
    ]);
  });

  it('shows a label and a title that look like HTML as text', async () => {
    await group(MARKUP_LABEL)
      .getByRole('button', { name: /2 cases fail with/ })
      .click();
    const cases = group(MARKUP_LABEL).getByRole('list');
    await cases.getByRole('button', { name: new RegExp(XSS.replace(/[()]/g, '\\$&')) }).waitFor();
    expect(await group(MARKUP_LABEL).locator('code').textContent()).toBe(MARKUP_LABEL);
    expect(await panel().locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('expands a group to its cases, and opens a case on the run page', async () => {
    await group(TIMEOUT_LABEL)
      .getByRole('button', { name: /4 cases fail with/ })
      .click();
    const cases = group(TIMEOUT_LABEL).getByRole('list');
    await cases.getByRole('button').first().waitFor();
    expect(
      (await cases.getByRole('button').allTextContents()).map((t) => t.replace(/^TRI-\d+ /, '')),
    ).toEqual(timeoutCases);
    await cases.getByRole('button', { name: /Refund/ }).click();
    await page.getByRole('heading', { name: 'Refund', level: 2 }).waitFor();
    a11y.push(...(await inspect(page, 'triage-groups', { dark: true })));
  });

  it('suggests the defect linked last night, and links it to this result alone on Accept', async () => {
    const suggestions = page.getByRole('region', { name: 'Suggested from past decisions' });
    await suggestions.waitFor();
    expect((await suggestions.getByRole('listitem').first().textContent())?.replace(/\s+/g, ' ')).toMatch(
      new RegExp(`^Suggested defect: ${BUG.text} — linked by ${ownerName} in run “Nightly 1” on .+Accept$`),
    );
    // Nothing is linked until accepted.
    expect(await linksOf('Refund')).toEqual([]);
    a11y.push(...(await inspect(page, 'triage-suggestion')));
    await elementShots(suggestions, 'suggestion');
    await suggestions.getByRole('button', { name: 'Accept' }).click();
    await suggestions
      .getByRole('status')
      .filter({ hasText: `“${BUG.text}” linked to this result.` })
      .waitFor();
    // The result shows it as its link, and it is no suggestion any more.
    await page.locator('.run-links').getByRole('link', { name: BUG.text }).waitFor();
    await suggestions.getByRole('button', { name: 'Accept' }).waitFor({ state: 'detached' });
    expect(await linksOf('Refund')).toEqual([`${BUG.text} ${BUG.url}`]);
    // The run's other cases failing the same way are the group's "Link this defect to all", not Accept's.
    for (const title of timeoutCases.filter((c) => c !== 'Refund')) expect(await linksOf(title)).toEqual([]);
    expect(await linksOf('Show banner')).toEqual([]);
  });

  it('links a defect to every case of a group in one action, refusing a bad address beside its field', async () => {
    await group(MARKUP_LABEL).getByRole('button', { name: 'Link this defect to all' }).click();
    await dialog().getByRole('heading', { name: 'Link this defect to all' }).waitFor();
    await dialog().getByLabel('Address of the issue').fill('ftp://tracker.example.com/issues/78');
    await dialog().getByRole('button', { name: 'Link to 2 cases' }).click();
    await dialog().getByText('The address must be an http(s) address').waitFor();
    expect(await linksOf('Show banner')).toEqual([]);
    a11y.push(...(await inspect(page, 'triage-link-dialog')));
    await dialog().getByLabel('Address of the issue').fill('https://tracker.example.com/issues/78');
    await dialog().getByLabel('Link text').fill('BUG-78 <b>banner</b>');
    await dialog().getByLabel('Link text').press('Enter');
    await dialog().waitFor({ state: 'detached' });
    await panel()
      .getByRole('status')
      .filter({ hasText: '“BUG-78 <b>banner</b>” linked to 2 cases.' })
      .waitFor();
    for (const title of markupCases)
      expect(await linksOf(title)).toEqual(['BUG-78 <b>banner</b> https://tracker.example.com/issues/78']);
    expect(await linksOf('Refund')).toEqual([`${BUG.text} ${BUG.url}`]);
    expect(await linksOf('Pay by card')).toEqual([]);
  });

  it('marks a group as known and takes it back with Undo', async () => {
    const known = async () =>
      (await api('GET', `/project/TRI/run/${runId}/failure-group`)).groups.find(
        (g: { label: string }) => g.label === MARKUP_LABEL,
      ).known;
    await group(MARKUP_LABEL).getByRole('button', { name: 'Mark all as known' }).click();
    await panel()
      .getByRole('status')
      .filter({ hasText: `“${MARKUP_LABEL}” is marked as known.` })
      .waitFor();
    const knownList = panel().getByRole('list', { name: 'Known failure groups' });
    await knownList.getByText('Known', { exact: true }).waitFor();
    expect(await panel().getByTestId('triage-summary').textContent()).toContain('· 1 known');
    expect(await known()).toMatchObject({ by: { name: ownerName }, runId });
    await panel().getByRole('button', { name: 'Undo' }).click();
    await panel().getByRole('status').filter({ hasText: 'is no longer marked as known.' }).waitFor();
    await knownList.waitFor({ state: 'detached' });
    expect(await known()).toBeNull();
    await group(MARKUP_LABEL).getByRole('button', { name: 'Mark all as known' }).waitFor();
  });

  it('keeps a group open across known and back, and fits a phone without sideways scrolling', async () => {
    // Both groups still show their cases: the markup group kept it through its move to the known list and back.
    expect(await panel().locator('.triage-cases').count()).toBe(2);
    a11y.push(...(await inspect(page, 'triage-panel')));
    await elementShots(panel(), 'panel');
    await page.setViewportSize(VIEWPORTS.phone);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it('lists the failure groups on the run report, read-only, with their counts', async () => {
    await page.goto(`${service.baseUrl}/project/TRI/run/${runId}/report`);
    const section = page.getByRole('region', { name: /^Failure groups/ }).first();
    await section.getByRole('table').waitFor();
    const rows = await section
      .getByRole('row')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toEqual([
      ['Fails with', 'Cases', 'New', 'Known'],
      [TIMEOUT_LABEL, '4', '—', '—'],
      [MARKUP_LABEL, '2', 'New', '—'],
    ]);
    expect(await section.getByRole('button').count()).toBe(0);
    expect(await section.locator('img').count()).toBe(0);
    a11y.push(...(await inspect(page, 'triage-report')));
    await elementShots(section, 'report');
  });

  it('marks a case whose status flipped over the last runs with its flaky score in the case list', async () => {
    await page.goto(`${service.baseUrl}/project/TRI/run/${runId}`);
    const list = page.getByRole('list', { name: 'Test cases of the run' });
    await list.getByRole('listitem').filter({ hasText: 'Sign in' }).getByText('Flaky 100%').waitFor();
    // Failing twice in a row, or once, is no flip.
    expect(await list.getByText(/^Flaky \d+%$/).count()).toBe(1);
  });

  it('has no serious accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
