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
  type SessionApi,
} from './browser-env.js';

if (!hasChromium)
  console.log(`[casebook] typing-vs-shortcuts browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/** Holds the rich editor's code back, as a slow network would, until the returned function is called. */
async function holdEditorCode(page: Page): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/RichTextEditor-[^/]*\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/**
 * Typed text is text: a person who opens an editor and types at once (before the editor has mounted and taken
 * the focus) records no result, ticks no case, opens no dialog, and finds every character in the editor, in
 * order. Each try starts from a cold browser (the editor's code not cached), as a tester's first comment of the day.
 */
describe.skipIf(!hasChromium)('typing into an editor that is still opening, in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let signedIn: Awaited<ReturnType<BrowserContext['storageState']>>;
  let api: SessionApi;
  const seqs: number[] = [];
  const tcaseIds: string[] = [];
  const pageErrors: string[] = [];
  // Every status key (p f b s o, the digits), the bulk tick (x), j/k, search (/) and the shortcuts list (?).
  const TEXT = 'Typed text: passed, failed, blocked, skipped, open 1 2 x j k / ? done';

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    api = sessionApi(page, service.baseUrl);
    await signIn(page, service.baseUrl);
    signedIn = await context.storageState();
    await api('POST', '/project', { code: 'TYPE', title: 'Typing' });
    await api('POST', '/project/TYPE/tcase/bulk', {
      folderPath: ['Checkout'],
      tcases: Array.from({ length: 8 }, (_, i) => ({ title: `Case ${i + 1}` })),
    });
    const all = await api('GET', '/project/TYPE/tcase?limit=100');
    for (const c of all.data) {
      seqs.push(c.seq);
      tcaseIds.push(c.id);
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  /**
   * A run of its own, and a fresh browser (nothing cached) signed in, on its page with the third case selected
   * (cases before and after it, for j/k to move to).
   */
  let runs = 0;
  async function coldRunPage() {
    const runId: number = (
      await api('POST', '/project/TYPE/run', {
        title: `Typing run ${++runs}`,
        type: 'static_struct',
        queryPlans: [{ tcaseIds }],
      })
    ).id;
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, storageState: signedIn });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(`${service.baseUrl}/project/TYPE/run/${runId}?tcase=${seqs[2]}`);
    await page.getByRole('heading', { name: 'Case 3', level: 2 }).waitFor();
    const statusCounts = async () =>
      (await api('GET', `/project/TYPE/run/${runId}?include=statusCounts`)).statusCounts as Record<
        string,
        number
      >;
    return {
      page,
      statusCounts,
      /** Nothing recorded in the run, nothing ticked, no dialog, the search box untouched, the case still selected. */
      async expectNoShortcutFired() {
        const counts = await statusCounts();
        expect(counts.open).toBe(seqs.length);
        expect(counts.all).toBe(seqs.length);
        expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(0);
        expect(await page.getByRole('dialog').count()).toBe(0);
        expect(await page.getByLabel("Search the run's cases").inputValue()).toBe('');
        await page.getByRole('heading', { name: 'Case 3', level: 2 }).waitFor({ timeout: 1_000 });
      },
      /** Sends the draft with a status from the keys (Esc, then `b`) and returns the comment the service stored. */
      async storedComment(): Promise<string> {
        const results = async () =>
          (await api('GET', `/project/TYPE/run/${runId}/tcase/${tcaseIds[2]}`)).results as {
            comment: string;
          }[];
        await page.keyboard.press('Escape');
        await page.keyboard.press('b');
        await expect.poll(async () => (await results()).length).toBe(1);
        return (await results())[0].comment;
      },
      close: () => context.close(),
    };
  }

  /** What the comment editor shows, once it is there. */
  const editorText = (page: Page) =>
    page.getByRole('textbox', { name: 'Comment' }).innerText({ timeout: 1_000 });

  // On this machine the editor's code arrives in a few ms; over a network it takes longer, and typing 300 or
  // 500 ms after the click then lands while it is still on its way (the report: the first character lost).
  for (const latency of [0, 550])
    for (const delay of [0, 50, 300, 500]) {
      it(`records nothing and keeps every character when typing ${delay} ms after "Add a comment…" (editor's code ${latency} ms away)`, async () => {
        const run = await coldRunPage();
        const { page } = run;
        try {
          if (latency)
            await page.route(/RichTextEditor-[^/]*\.js$/, async (route) => {
              await new Promise((r) => setTimeout(r, latency));
              await route.continue();
            });
          await page.getByRole('button', { name: 'Add a comment…' }).click();
          if (delay) await page.waitForTimeout(delay);
          await page.keyboard.type(TEXT);
          await expect.poll(() => editorText(page), { timeout: 5_000 }).toBe(TEXT);
          await run.expectNoShortcutFired();
          expect(await run.storedComment()).toBe(`<p>${TEXT}</p>`);
        } finally {
          await run.close();
        }
      });
    }

  it('keeps Enter and Backspace in order while the editor is slow to arrive, and records nothing meanwhile', async () => {
    const run = await coldRunPage();
    const { page } = run;
    try {
      // The editor's code on a slow network: everything below is typed before it can have mounted.
      const release = await holdEditorCode(page);
      await page.getByRole('button', { name: 'Add a comment…' }).click();
      await page.keyboard.type('Line onex');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Enter');
      await page.keyboard.type('pass fail x / ?');
      await page.waitForTimeout(300);
      await run.expectNoShortcutFired();
      release();
      await expect
        .poll(() => page.getByRole('textbox', { name: 'Comment' }).innerHTML({ timeout: 1_000 }), {
          timeout: 5_000,
        })
        .toBe('<p>Line one</p><p>pass fail x / ?</p>');
      // Typing goes on in the editor, after what was kept.
      await page.keyboard.type(' more');
      expect(await run.storedComment()).toBe('<p>Line one</p><p>pass fail x / ? more</p>');
    } finally {
      await run.close();
    }
  });

  it('gives the keys back on Escape while the editor is still on its way: the late editor takes no focus', async () => {
    const run = await coldRunPage();
    const { page } = run;
    try {
      const release = await holdEditorCode(page);
      await page.getByRole('button', { name: 'Add a comment…' }).click();
      await page.keyboard.press('Escape');
      release();
      await page.getByRole('textbox', { name: 'Comment' }).waitFor();
      await page.waitForTimeout(200);
      await page.keyboard.press('p');
      await expect.poll(async () => (await run.statusCounts()).passed).toBe(1);
    } finally {
      await run.close();
    }
  });

  it("puts what is typed right after `n` in the repository into the new case's title, not into the search", async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, storageState: signedIn });
    try {
      const page = await context.newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      await page.goto(`${service.baseUrl}/project/TYPE/repository`);
      await page
        .getByRole('link', { name: /Case 1/ })
        .first()
        .waitFor();
      // `n`, `/` and `j` are the repository's own shortcuts: typed at once, they are the new case's title.
      const title = 'New login / logout case, just typed';
      await page.keyboard.press('n');
      await page.keyboard.type(title);
      await expect.poll(() => new URL(page.url()).pathname).toBe('/project/TYPE/tcase/new');
      await expect.poll(() => page.getByLabel('Title').inputValue({ timeout: 1_000 })).toBe(title);
    } finally {
      await context.close();
    }
  });

  it('had no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});
