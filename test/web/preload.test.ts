import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  launchChromium,
  sessionApi,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] preload browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/**
 * A cold load starts the opened page's first requests from the small boot script (web/src/boot.ts), before the
 * application's own code has arrived, and the application takes those answers instead of asking again. Each
 * test holds the application's main script back until the page's data has been asked for: without the boot
 * script nothing asks before it, and the test fails.
 */
describe.skipIf(!hasChromium)('requests started before the application loads', () => {
  let service: RunningService;
  let browser: Browser;
  let signedIn: StorageState;
  let runId: number;

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await signIn(page, service.baseUrl);
    const api = sessionApi(page, service.baseUrl);
    await api('POST', '/project', { code: 'PRE', title: 'Preloads' });
    await api('POST', '/project/PRE/tcase/bulk', {
      folderPath: ['Login'],
      tcases: [{ title: 'Sign in' }, { title: 'Sign out' }],
    });
    const cases = (await api('GET', '/project/PRE/tcase?limit=10')).data as { id: string }[];
    runId = (
      await api('POST', '/project/PRE/run', {
        title: 'Smoke',
        type: 'static',
        queryPlans: [{ tcaseIds: cases.map((c) => c.id) }],
      })
    ).id;
    signedIn = await context.storageState();
    await context.close();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  /**
   * Opens `path` in a fresh context (empty cache), holding the main entry script until `first` has been asked
   * for (or 5 s went by); returns the API requests made, as path + query, and whether `first` came first.
   */
  async function coldLoad(
    path: string,
    first: string,
    ready: (page: Page) => Promise<unknown>,
    state?: StorageState,
  ) {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, storageState: state });
    const page = await context.newPage();
    const requests: string[] = [];
    let sawFirst!: () => void;
    const firstSeen = new Promise<void>((resolve) => (sawFirst = resolve));
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (!url.pathname.startsWith('/api/')) return;
      requests.push(url.pathname + url.search);
      if (url.pathname + url.search === first) sawFirst();
    });
    let firstBeforeEntry = false;
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      firstBeforeEntry = await Promise.race([
        firstSeen.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
      ]);
      await route.continue();
    });
    await page.goto(`${service.baseUrl}${path}`);
    await ready(page);
    await context.close();
    return { requests, firstBeforeEntry };
  }

  const once = (requests: string[], wanted: string[]) =>
    Object.fromEntries(wanted.map((w) => [w, requests.filter((r) => r === w).length]));

  it("starts the run page's cases, run, folders, statuses, tags, log and trackers before its code loads, and asks for each once", async () => {
    const cases = `/api/public/v0/project/PRE/run/${runId}/tcase`;
    const { requests, firstBeforeEntry } = await coldLoad(
      `/project/PRE/run/${runId}`,
      cases,
      (page) => page.getByRole('list', { name: 'Test cases of the run' }).getByText('Sign out').waitFor(),
      signedIn,
    );
    expect(firstBeforeEntry).toBe(true);
    const wanted = [
      '/api/public/v0/users/me',
      cases,
      `/api/public/v0/project/PRE/run/${runId}?include=milestone&include=statusCounts`,
      '/api/public/v0/project/PRE/tcase/folders?sortField=pos&sortOrder=asc',
      '/api/public/v0/settings/preferences/status',
      '/api/public/v0/project/PRE/tag?sortField=title',
      `/api/public/v0/project/PRE/run/${runId}/log`,
      '/api/public/v0/project/PRE/integration',
      '/api/public/v0/project',
    ];
    expect(once(requests, wanted)).toEqual(Object.fromEntries(wanted.map((w) => [w, 1])));
  });

  it("starts the repository's tree, tags, fields and first cases before its code loads, and asks for each once", async () => {
    const firstPage =
      '/api/public/v0/project/PRE/tcase?sortField=seq&sortOrder=asc&offset=0&limit=100&include=tags';
    const { requests, firstBeforeEntry } = await coldLoad(
      '/project/PRE/repository',
      firstPage,
      (page) => page.locator('.case-link').filter({ hasText: 'Sign out' }).waitFor(),
      signedIn,
    );
    expect(firstBeforeEntry).toBe(true);
    const wanted = [
      '/api/public/v0/users/me',
      '/api/public/v0/project/PRE/tcase/folders?sortField=pos&sortOrder=asc',
      '/api/public/v0/project/PRE/tag?sortField=title',
      firstPage,
      '/api/public/v0/project/PRE/custom-field',
      '/api/public/v0/project',
    ];
    expect(once(requests, wanted)).toEqual(Object.fromEntries(wanted.map((w) => [w, 1])));
  });

  it("starts the dashboard's project, counts, milestones, statuses and reports before its code loads, and asks for each once", async () => {
    const project = '/api/public/v0/project/PRE';
    const trend = `${project}/report/trend?by=run`;
    const { requests, firstBeforeEntry } = await coldLoad(
      '/project/pre',
      trend,
      (page) => page.locator('.dash-trend-canvas[data-drawn]').waitFor(),
      signedIn,
    );
    expect(firstBeforeEntry).toBe(true);
    const wanted = [
      '/api/public/v0/users/me',
      project,
      `${project}/tcase/count`,
      `${project}/run?closed=false&include=milestone&include=statusCounts`,
      `${project}/milestone?archived=false`,
      '/api/public/v0/settings/preferences/status',
      trend,
      ...['folders', 'flaky', 'failing', 'slowest', 'coverage', 'defects'].map(
        (r) => `${project}/report/${r}`,
      ),
      '/api/public/v0/project',
    ];
    expect(once(requests, wanted)).toEqual(Object.fromEntries(wanted.map((w) => [w, 1])));
  });

  it('starts the projects list before its code loads, and asks for it once', async () => {
    const { requests, firstBeforeEntry } = await coldLoad(
      '/',
      '/api/public/v0/project',
      (page) =>
        page
          .getByRole('link', { name: /Preloads/ })
          .first()
          .waitFor(),
      signedIn,
    );
    expect(firstBeforeEntry).toBe(true);
    expect(once(requests, ['/api/public/v0/users/me', '/api/public/v0/project'])).toEqual({
      '/api/public/v0/users/me': 1,
      '/api/public/v0/project': 1,
    });
  });

  it('asks for no page data for a visitor without a session, who lands on sign-in', async () => {
    const { requests } = await coldLoad(`/project/PRE/run/${runId}`, '/api/public/v0/users/me', (page) =>
      page.getByRole('button', { name: 'Sign in' }).waitFor(),
    );
    // The sign-in page's own question (which identity providers to offer) is not the run page's data.
    const own = ['/api/public/v0/users/me', '/api/auth/oidc/providers', '/api/auth/saml/providers'];
    expect(requests.filter((r) => !own.includes(r))).toEqual([]);
  });
});
