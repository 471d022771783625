import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import path from 'node:path';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  SCREENSHOTS,
  sessionApi,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] steps reorder browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * Reordering a test case's steps in the editor (React Aria's useDrag/useDrop on each step): with the mouse by
 * the handle, onto a step's rich-text field (no text goes in), from the keyboard (Enter, Tab, Enter; Escape
 * cancels), and the saved order read back through the API. One signed-in page; steps run in order.
 */
describe.skipIf(!hasChromium)('reordering steps in the test case editor in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof sessionApi>;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  const url = (p: string) => `${service.baseUrl}${p}`;

  const items = () => page.locator('.steps-edit > li');
  const handle = (n: number) => page.getByRole('button', { name: `Drag step ${n}`, exact: true });
  /** Each step's description as its editor shows it, in the page's order. */
  const descriptions = () =>
    items().evaluateAll((lis) =>
      lis.map((li) => li.querySelector('[role="textbox"]')?.textContent ?? '(no editor)'),
    );
  /** Each step's expected result as its editor shows it, in the page's order. */
  const expectations = () =>
    items().evaluateAll((lis) =>
      lis.map((li) => li.querySelectorAll('[role="textbox"]')[1]?.textContent ?? '(no editor)'),
    );
  const inView = (l: Locator) =>
    l.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null);
  const status = () => page.getByRole('status').allTextContents();
  /** A window tall enough for all four steps at once: the mouse drags only within what is shown. */
  const showSteps = async () => {
    await page.setViewportSize({ width: VIEWPORTS.desktop.width, height: 1200 });
    await page.locator('.steps-edit').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  };
  /** The mouse pressed on a step's handle (at its centre: React Aria's TalkBack guess is not in this path). */
  const grab = async (n: number) => {
    const box = (await handle(n).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
  };

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    await signIn(page, service.baseUrl);
    api = sessionApi(page, service.baseUrl);
    await api('POST', '/project', { code: 'SR', title: 'Steps' });
    const folderId = (await api('POST', '/project/SR/tcase/folder/bulk', { folders: [{ path: ['Cart'] }] }))
      .ids[0][0];
    await api('POST', '/project/SR/tcase', {
      title: 'Order a book',
      type: 'standalone',
      priority: 'medium',
      folderId,
      steps: ['A', 'B', 'C', 'D'].map((x) => ({
        description: `<p>Do ${x}</p>`,
        expected: `<p>See ${x}</p>`,
      })),
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('opens the case in the editor with its four steps and a handle on each', async () => {
    await page.goto(url('/project/SR/tcase/1'));
    await page.getByRole('heading', { name: 'Order a book', level: 1 }).waitFor();
    await page.getByRole('button', { name: /^Edit/ }).click();
    await page.getByRole('heading', { name: 'Edit SR-1' }).waitFor();
    await expect.poll(descriptions).toEqual(['Do A', 'Do B', 'Do C', 'Do D']);
    for (const n of [1, 2, 3, 4]) await handle(n).waitFor();
    await items()
      .nth(0)
      .evaluate((el) => el.scrollIntoView({ block: 'center' }));
    a11y.push(...(await inspect(page, 'steps-reorder-edit')));
  });

  it('moves a step by dragging its handle with the mouse onto another step', async () => {
    await showSteps();
    await grab(4);
    const first = (await items().nth(0).boundingBox())!;
    await page.mouse.move(first.x + 40, first.y + 20, { steps: 6 });
    // The step it would go before is marked (it comes from below: the line is above), the dragged one dimmed.
    await expect.poll(() => items().nth(0).getAttribute('class')).toMatch(/\bstep-drop\b/);
    expect(await items().nth(0).getAttribute('class')).not.toMatch(/step-drop-after/);
    await expect.poll(() => items().nth(3).getAttribute('class')).toMatch(/\bstep-dragging\b/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'steps-reorder-mouse-drag.png') });
    await page.mouse.up();
    await expect.poll(status).toContain('Step 4 moved to position 1 of 4.');
    expect(await descriptions()).toEqual(['Do D', 'Do A', 'Do B', 'Do C']);
    expect(await expectations()).toEqual(['See D', 'See A', 'See B', 'See C']);
    expect(await items().nth(0).getAttribute('class')).not.toMatch(/step-drop|step-dragging/);
    // Playwright's own drag does it too.
    await handle(3).dragTo(items().nth(1));
    await expect.poll(status).toContain('Step 3 moved to position 2 of 4.');
    expect(await descriptions()).toEqual(['Do D', 'Do B', 'Do A', 'Do C']);
  });

  it('drops a step dragged onto a rich-text field as a move: no text goes into the field', async () => {
    // Onto step 3's description, over its text.
    await grab(1);
    const field = (await page.getByRole('textbox', { name: 'Step 3 description' }).boundingBox())!;
    await page.mouse.move(field.x + 20, field.y + field.height / 2, { steps: 6 });
    await expect.poll(() => items().nth(2).getAttribute('class')).toMatch(/\bstep-drop\b.*step-drop-after/);
    await page.mouse.up();
    await expect.poll(status).toContain('Step 1 moved to position 3 of 4.');
    expect(await descriptions()).toEqual(['Do B', 'Do A', 'Do D', 'Do C']);
    expect(await expectations()).toEqual(['See B', 'See A', 'See D', 'See C']);
    // Onto its own expected result: not a drop target, nothing moves and nothing is typed.
    await grab(2);
    const own = (await page.getByRole('textbox', { name: 'Step 2 expected result' }).boundingBox())!;
    await page.mouse.move(own.x + 20, own.y + own.height / 2, { steps: 6 });
    await page.mouse.up();
    await page.waitForTimeout(200);
    expect(await descriptions()).toEqual(['Do B', 'Do A', 'Do D', 'Do C']);
    expect(await expectations()).toEqual(['See B', 'See A', 'See D', 'See C']);
    expect(await page.locator('.step-drop, .step-dragging, .steps-dragging').count()).toBe(0);
  });

  it('moves a step from the keyboard: Enter on the handle, Tab through the steps in page order, Enter', async () => {
    // At the usual size, where step 4 is out of view below step 1.
    await page.setViewportSize(VIEWPORTS.desktop);
    await items()
      .nth(0)
      .evaluate((el) => el.scrollIntoView({ block: 'center' }));
    expect(await inView(handle(4))).toBe(false);
    await handle(1).focus();
    await page.keyboard.press('Enter');
    // The nearest step first; its place is where the step would go (after it: the line is below).
    await expect.poll(focused).toBe('Move to position 2 of 4');
    await expect.poll(() => items().nth(1).getAttribute('class')).toMatch(/step-drop step-drop-after/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'steps-reorder-keyboard-drag.png') });
    await page.keyboard.press('Tab');
    await expect.poll(focused).toBe('Move to position 3 of 4');
    await page.keyboard.press('Tab');
    await expect.poll(focused).toBe('Move to position 4 of 4');
    expect(await items().nth(3).getAttribute('class')).toMatch(/step-drop-after/);
    await page.keyboard.press('Enter');
    await expect.poll(status).toContain('Step 1 moved to position 4 of 4.');
    expect(await descriptions()).toEqual(['Do A', 'Do D', 'Do C', 'Do B']);
    // Focus goes with the moved step to its handle, in view, ready for another move.
    await expect.poll(focused).toBe('Drag step 4');
    expect(await inView(handle(4))).toBe(true);
    a11y.push(...(await inspect(page, 'steps-reorder-keyboard-dropped')));
  });

  it('cancels a keyboard drag with Escape: nothing moves and the editor stays open', async () => {
    await handle(2).focus();
    // Space starts it too (the handle is a button).
    await page.keyboard.press(' ');
    await expect.poll(focused).toMatch(/^Move to position \d of 4$/);
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('Drag step 2');
    expect(await descriptions()).toEqual(['Do A', 'Do D', 'Do C', 'Do B']);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.locator('.step-drop, .step-dragging, .steps-dragging').count()).toBe(0);
    // The buttons still move steps, announced.
    await page.getByRole('button', { name: 'Move step 3 up' }).click();
    await expect.poll(status).toContain('Step 3 moved to position 2 of 4.');
    expect(await descriptions()).toEqual(['Do A', 'Do C', 'Do D', 'Do B']);
    a11y.push(...(await inspect(page, 'steps-reorder-moved')));
  });

  it('saves the steps in their new order', async () => {
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByRole('heading', { name: 'Order a book', level: 1 }).waitFor();
    await page.getByText('Version 2', { exact: true }).first().waitFor();
    const stored = await api('GET', '/project/SR/tcase/1');
    expect(stored.steps.map((s: { description: string }) => s.description)).toEqual([
      '<p>Do A</p>',
      '<p>Do C</p>',
      '<p>Do D</p>',
      '<p>Do B</p>',
    ]);
    expect(stored.steps.map((s: { expected: string }) => s.expected)).toEqual([
      '<p>See A</p>',
      '<p>See C</p>',
      '<p>See D</p>',
      '<p>See B</p>',
    ]);
  });

  it('leaves a text drag within a rich-text field to the field', async () => {
    await page.getByRole('button', { name: /^Edit/ }).click();
    await page.getByRole('heading', { name: 'Edit SR-1' }).waitFor();
    await showSteps();
    const field = page.getByRole('textbox', { name: 'Step 1 description' });
    await expect.poll(() => field.textContent()).toBe('Do A');
    // The word "A" selected, then dragged before "Do".
    const at = await field.evaluate((el) => {
      const p = el.querySelector('p')!;
      const range = document.createRange();
      range.setStart(p.firstChild!, 3);
      range.setEnd(p.firstChild!, 4);
      const word = range.getBoundingClientRect();
      return { x: word.x + word.width / 2, y: word.y + word.height / 2, start: p.getBoundingClientRect().x };
    });
    await page.mouse.dblclick(at.x, at.y);
    expect(await page.evaluate(() => String(getSelection()))).toBe('A');
    await page.waitForTimeout(600); // not a third click
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    await page.mouse.move(at.start + 1, at.y, { steps: 8 });
    await page.mouse.up();
    await expect.poll(async () => (await field.textContent())?.replace(/\s+/g, ' ').trim()).toBe('ADo');
    expect((await descriptions()).slice(1)).toEqual(['Do C', 'Do D', 'Do B']);
    expect(await page.locator('.step-drop, .step-dragging, .steps-dragging').count()).toBe(0);
  });

  it('met no serious or critical accessibility violation, page error or CSP violation on the way', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
