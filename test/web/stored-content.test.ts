import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
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
  type SessionApi,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] stored-content browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/** Would set a flag if it ever ran as markup (the page's CSP blocks inline handlers too: the element is what counts). */
const PAYLOAD = '<img src=x onerror="window.__casebookXss=1">';

/**
 * Issue 24, in a real browser against a real server: no script nobody wrote. A value saved under a text field
 * is shown as text, also after a rich-text field takes its system name; an uploaded script never runs from the
 * application's origin.
 */
describe.skipIf(!hasChromium)('stored content in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  let folderId = 0;
  // The database file is the test's, so that it can hold HTML the service would never have stored.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-stored-'));
  const dbFile = path.join(dataDir, 'casebook.db');
  const url = (path: string) => `${service.baseUrl}${path}`;

  beforeAll(async () => {
    ensureBuilt();
    service = await startService({ CASEBOOK_DATABASE_URL: `sqlite:${dbFile}` });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    await api('POST', '/project', { code: 'XS', title: 'Stored content' });
    folderId = (await api('POST', '/project/XS/tcase/folder/bulk', { folders: [{ path: ['Cases'] }] }))
      .ids[0][0];
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const ran = () =>
    page.evaluate(() => (window as unknown as { __casebookXss?: number }).__casebookXss === 1);

  it('shows a value saved under a text field as text, and not as HTML once a rich-text field takes its name', async () => {
    const text = await api('POST', '/custom-field', { type: 'text', systemName: 'notes', name: 'Notes' });
    const tcase = await api('POST', '/project/XS/tcase', {
      title: 'A case with notes',
      type: 'standalone',
      folderId,
      priority: 'medium',
      customFields: { notes: { value: PAYLOAD } },
    });
    await page.goto(url(`/project/XS/tcase/${tcase.seq}`));
    await page.getByRole('heading', { name: 'A case with notes', level: 1 }).waitFor();
    const notes = page
      .locator('.facts div', { has: page.locator('dt', { hasText: /^Notes$/ }) })
      .locator('dd');
    await expect(notes.textContent()).resolves.toBe(PAYLOAD);
    expect(await page.locator('img[src="x"]').count()).toBe(0);

    await api('DELETE', `/custom-field/${text.id}`);
    await api('POST', '/custom-field', { type: 'richtext', systemName: 'notes', name: 'Notes' });
    await page.reload();
    await page.getByRole('heading', { name: 'A case with notes', level: 1 }).waitFor();
    await page.locator('.facts').waitFor();
    // The value went with its field: nothing is shown under the new one, least of all as markup.
    expect(await page.locator('.facts dt', { hasText: /^Notes$/ }).count()).toBe(0);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.content()).not.toContain('onerror');
    expect(await ran()).toBe(false);
  });

  it("does not run a JavaScript upload loaded as a script of the application's own origin", async () => {
    const res = await page.request.post(url('/api/public/v0/file/batch'), {
      headers: { origin: service.baseUrl },
      multipart: {
        files: {
          name: 'payload.js',
          mimeType: 'application/javascript',
          buffer: Buffer.from('window.__casebookXss = 1;'),
        },
      },
    });
    expect(res.status()).toBe(201);
    const src = (await res.json()).files[0].url as string;
    // What an attacker's markup would do if it reached the page: <script src=/api/public/v0/file/…>.
    const outcome = await page.evaluate(
      (scriptSrc) =>
        new Promise<string>((resolve) => {
          const script = document.createElement('script');
          script.src = scriptSrc;
          script.onload = () => resolve('loaded');
          script.onerror = () => resolve('refused');
          document.head.append(script);
        }),
      new URL(src).pathname,
    );
    expect(await ran()).toBe(false);
    expect(outcome).toBe('refused');
  });

  it('sanitises stored HTML again in the browser: markup written around the service never runs', async () => {
    const tcase = await api('POST', '/project/XS/tcase', {
      title: 'A case with a tampered step',
      type: 'standalone',
      folderId,
      priority: 'medium',
      steps: [{ description: '<p>Open the cart</p>', expected: '<p>It opens</p>' }],
    });
    // What a restored backup or a direct write could hold: the service's own sanitiser never saw it.
    const db = new Database(dbFile);
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare('update steps set description = ? where description = ?').run(
        '<p>Open the cart</p><img src=x onerror="window.__casebookXss=1"><script>window.__casebookXss=1</script>' +
          '<a href="javascript:window.__casebookXss=1">pay</a><svg><a href="https://ok.example.com">svg</a></svg>',
        '<p>Open the cart</p>',
      );
    } finally {
      db.close();
    }
    await page.goto(url(`/project/XS/tcase/${tcase.seq}`));
    await page.getByRole('heading', { name: 'A case with a tampered step', level: 1 }).waitFor();
    const step = page.locator('.step').first();
    await expect(step.textContent()).resolves.toContain('Open the cart');
    expect(await step.locator('p', { hasText: 'Open the cart' }).count()).toBe(1);
    expect(await page.locator('[onerror], script:not([src]), svg a, a[href^="javascript"]').count()).toBe(0);
    expect(await step.getByText('pay').count()).toBe(1);
    expect(await ran()).toBe(false);
  });
});
