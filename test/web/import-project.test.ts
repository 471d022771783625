import fs from 'node:fs';
import os from 'node:os';
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
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
} from './browser-env.js';

if (!hasChromium) {
  console.log(`[casebook] import-a-project browser tests SKIPPED: no Chromium at ${CHROMIUM}`);
}

/**
 * An admin exports a project from its settings and imports the archive as a new project from the Administration
 * bar's "Import a project" page: one real server (SQLite).
 */
describe.skipIf(!hasChromium)('Import a project, in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let archive: string;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (p: string) => `${service.baseUrl}${p}`;
  const look = async (name: string) => a11y.push(...(await inspect(page, name)));

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(page, service.baseUrl);
    const api = sessionApi(page, service.baseUrl);
    await api('POST', '/project', { code: 'ARC', title: 'Archived shop' });
    const folder = (
      await api('POST', '/project/ARC/tcase/folder/bulk', { folders: [{ path: ['Checkout'] }] })
    ).ids[0][0];
    await api('POST', '/project/ARC/tcase', {
      title: 'Pay by card',
      type: 'standalone',
      priority: 'high',
      folderId: folder,
      steps: [{ description: '<p>Enter the card</p>', expected: '<p>Paid</p>' }],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (archive) fs.rmSync(path.dirname(archive), { recursive: true, force: true });
  });

  it("downloads the project's archive from its settings", async () => {
    await page.goto(url('/project/ARC/settings'));
    const link = page.getByRole('link', { name: 'Export project' });
    await link.waitFor();
    await look('project-settings-export');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('ARC.casebook');
    archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-archive-')), 'ARC.casebook');
    await download.saveAs(archive);
    expect(fs.statSync(archive).size).toBeGreaterThan(100);
  });

  it('imports the archive under a new code, saying in words what is missing or taken, and links the project', async () => {
    await page.goto(url('/admin/custom-fields'));
    const bar = page.getByRole('navigation', { name: 'Administration' });
    await bar.getByRole('link', { name: 'Import a project' }).click();
    await page.getByRole('heading', { name: 'Import a project', level: 1 }).waitFor();
    const submit = page.getByRole('button', { name: 'Import the project' });
    await submit.click();
    await page.getByText('Choose a Casebook archive (a .casebook file) to import.').waitFor();
    await look('import-project-form');

    await page.getByLabel('Archive').setInputFiles(archive);
    await submit.click();
    // ARC is taken here: said beside the code, nothing started.
    const taken = page.getByText('The code of the archive is taken here: give another one.');
    await taken.waitFor();
    expect(await page.getByLabel('Project code (optional)').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Project code (optional)').fill('ARC2');
    await taken.waitFor({ state: 'detached' });
    // A small archive is written within one poll: the job's answer is held at "running, 2 of 5" until let go.
    let hold = true;
    const job = /\/api\/public\/v0\/import\/\d+$/;
    await page.route(job, async (route) => {
      const res = await route.fetch();
      if (!hold) return route.fulfill({ response: res });
      const running = { ...(await res.json()), status: 'running', progress: { done: 2, total: 5 } };
      await route.fulfill({ response: res, json: running });
    });
    await submit.click();
    await page.getByRole('status').filter({ hasText: '2 of 5 records written' }).waitFor();
    const progress = page.getByRole('progressbar', { name: 'Import progress' });
    expect(await progress.getAttribute('aria-valuetext')).toBe('2 of 5 records');
    expect(await progress.evaluate((el: HTMLProgressElement) => [el.value, el.max])).toEqual([2, 5]);
    await look('import-project-progress');
    hold = false;
    await page.getByRole('heading', { name: 'Project imported', level: 2 }).waitFor();
    await page.unroute(job);
    await look('import-project-done');
    await page.getByRole('link', { name: 'Open project ARC2' }).click();
    await page.waitForURL(/\/project\/ARC2/);
    await page.goto(url('/project/ARC2/repository'));
    await page.getByText('Pay by card').first().waitFor();
  });

  it('has no serious accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
