/**
 * `npm run bench:web`: the web application in headless Chromium against a real server process, printed as a
 * table with the web application's targets beside the figures. Today: what the sign-in page costs to load (cold
 * cache); the repository page on a generated project of 10,000 cases in 500 folders (first cases shown, filtering,
 * rows in the DOM while scrolling it all) and the same page on 50,000 cases (`BENCH_WEB_50K=0` skips that part).
 */
import os from 'node:os';
import type { Browser, Page, Response } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  launchChromium,
  OWNER,
  startService,
} from '../test/web/browser-env.js';

interface Row {
  measure: string;
  figure: string;
  target: string;
  met: string;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  if (!hasChromium) {
    console.error(`bench:web needs Chromium at ${CHROMIUM} (apt-get install chromium)`);
    process.exit(1);
  }
  ensureBuilt();
  const service = await startService();
  const browser = await launchChromium();
  const rows: Row[] = [];
  try {
    // A fresh context has an empty cache: what a first visit downloads.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const scripts: Response[] = [];
    const styles: Response[] = [];
    page.on('response', (r) => {
      const type = r.request().resourceType();
      if (type === 'script') scripts.push(r);
      if (type === 'stylesheet') styles.push(r);
    });
    const started = Date.now();
    await page.goto(`${service.baseUrl}/sign-in`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const shownMs = Date.now() - started;

    const transferred = async (list: Response[]) => {
      let wire = 0;
      let raw = 0;
      const encodings = new Set<string>();
      for (const r of list) {
        wire += (await r.request().sizes()).responseBodySize;
        raw += (await r.body()).length;
        encodings.add((await r.headerValue('content-encoding')) ?? 'identity');
      }
      return { wire, raw, encodings: [...encodings].join(', ') };
    };
    const js = await transferred(scripts);
    const css = await transferred(styles);
    rows.push({
      measure: `sign-in page: JavaScript (${scripts.length} files, ${js.encodings})`,
      figure: `${kb(js.wire)} compressed (${kb(js.raw)} raw)`,
      target: '≤ 150 KB compressed',
      met: js.wire <= 150 * 1024 ? 'yes' : 'NO',
    });
    rows.push({
      measure: `sign-in page: CSS (${styles.length} files, ${css.encodings})`,
      figure: `${kb(css.wire)} compressed (${kb(css.raw)} raw)`,
      target: '',
      met: '',
    });
    rows.push({
      measure: 'sign-in page: shown (navigation to the button, cold cache, loopback)',
      figure: `${shownMs} ms`,
      target: '',
      met: '',
    });
    await context.close();

    await repositoryRows(browser, service.baseUrl, rows);
  } finally {
    await browser.close();
    await service.stop();
  }

  const headers: Row = { measure: 'measure', figure: 'figure', target: 'target', met: 'met' };
  const cols = Object.keys(headers) as (keyof Row)[];
  const widths = cols.map((c) => Math.max(headers[c].length, ...rows.map((r) => r[c].length)));
  const line = (r: Row) => `| ${cols.map((c, i) => r[c].padEnd(widths[i])).join(' | ')} |`;
  console.log(
    `\nCasebook web benchmark — ${os.cpus().length} cores, node ${process.version}, Chromium headless, ` +
      `load average ${os.loadavg()[0].toFixed(1)}\n`,
  );
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

const FOLDERS = 500;

/** Test cases through the API, fast: one folder/bulk for the tree, then tcase/bulk calls a few at a time. */
async function generate(page: Page, baseUrl: string, code: string, cases: number): Promise<void> {
  const call = async (path: string, data: unknown) => {
    const res = await page.request.fetch(`${baseUrl}/api/public/v0${path}`, {
      method: 'POST',
      headers: { origin: baseUrl, 'content-type': 'application/json' },
      data: JSON.stringify(data),
    });
    if (res.status() >= 300) throw new Error(`${path}: ${res.status()} ${await res.text()}`);
  };
  await call('/project', { code, title: `Bench ${code}` });
  // 500 folders: 25 areas of 19 features each (plus the areas themselves), so the tree has depth.
  const paths: string[][] = [];
  for (let a = 0; paths.length < FOLDERS; a++) {
    paths.push([`Area ${a}`]);
    for (let f = 0; f < 19 && paths.length < FOLDERS; f++) paths.push([`Area ${a}`, `Feature ${a}.${f}`]);
  }
  await call(`/project/${code}/tcase/folder/bulk`, { folders: paths.map((path) => ({ path })) });
  const perFolder = Math.ceil(cases / FOLDERS);
  const words = ['Checkout', 'Login', 'Search', 'Profile', 'Cart', 'Payment', 'Export', 'Import'];
  let made = 0;
  const jobs = paths.map((path, i) => async () => {
    const n = Math.min(perFolder, cases - i * perFolder);
    if (n <= 0) return;
    const tcases = Array.from({ length: n }, (_, k) => {
      const seq = made + k;
      return { title: `${words[seq % words.length]} flow ${i * perFolder + k}`, tags: [`t${seq % 20}`] };
    });
    made += n;
    await call(`/project/${code}/tcase/bulk`, { folderPath: path, tcases });
  });
  for (let i = 0; i < jobs.length; i += 4) await Promise.all(jobs.slice(i, i + 4).map((j) => j()));
}

const ms = (n: number) => `${Math.round(n)} ms`;

/** The repository page: cold navigation, a search, a scroll through everything; on 10,000 and 50,000 cases. */
async function repositoryRows(browser: Browser, baseUrl: string, rows: Row[]): Promise<void> {
  const setup = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await setup.newPage();
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('E-mail').fill(OWNER.email);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  const sizes: [string, number][] = [['REPO', 10_000]];
  if (process.env.BENCH_WEB_50K !== '0') sizes.push(['BIG', 50_000]);
  const generated = Date.now();
  for (const [code, n] of sizes) await generate(page, baseUrl, code, n);
  console.log(`[bench:web] generated ${sizes.map(([, n]) => n).join(' + ')} cases in ${Date.now() - generated} ms`);
  const storageState = await setup.storageState();
  await setup.close();

  for (const [code, n] of sizes) {
    const label = `${(n / 1000).toFixed(0)}k cases, 500 folders`;
    // A fresh context: empty HTTP cache, signed in.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, storageState });
    const p = await context.newPage();
    await p.addInitScript(() => {
      // The longest main-thread task: a frozen page shows here.
      (window as unknown as { longest: number }).longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          const w = window as unknown as { longest: number };
          w.longest = Math.max(w.longest, e.duration);
        }
      }).observe({ type: 'longtask', buffered: true });
    });
    const started = Date.now();
    await p.goto(`${baseUrl}/project/${code}/repository`);
    await p.locator('[role="treegrid"] [role="row"]').first().waitFor();
    await p.locator('.case-link').first().waitFor();
    const shown = Date.now() - started;
    rows.push({
      measure: `repository (${label}): tree and first cases shown, cold cache`,
      figure: ms(shown),
      target: '≤ 800 ms',
      met: shown <= 800 ? 'yes' : 'NO',
    });

    // Search: results counted from the last key to the list showing the new total.
    const term = 'flow 77';
    const expected = (
      await (
        await p.request.fetch(
          `${baseUrl}/api/public/v0/project/${code}/tcase?limit=0&search=${encodeURIComponent(term)}`,
        )
      ).json()
    ).total as number;
    const search = p.getByRole('searchbox', { name: 'Search test cases by title' });
    await search.click();
    await p.keyboard.type(term, { delay: 60 });
    const typed = Date.now();
    await p.waitForFunction(
      (want) => {
        const head = document.querySelector('.case-list-header')?.textContent ?? '';
        return head.includes(`${want} test`) && !head.includes('updating') && !!document.querySelector('.case-link');
      },
      expected.toLocaleString('en-US'),
      { polling: 'raf' },
    );
    const filtered = Date.now() - typed;
    rows.push({
      measure: `repository (${label}): search "${term}" → ${expected} results shown, after the last key`,
      figure: ms(filtered),
      target: '≤ 200 ms',
      met: filtered <= 200 ? 'yes' : 'NO',
    });

    // Clear the search, then scroll the whole list, counting the rows in the DOM at every change.
    await search.fill('');
    await p.waitForFunction(
      (want) => (document.querySelector('.case-list-header')?.textContent ?? '').startsWith(want),
      n.toLocaleString('en-US'),
      { polling: 'raf' },
    );
    const scrolled = await p.evaluate(async () => {
      const scroller = document.querySelector<HTMLElement>('.case-scroller')!;
      const list = scroller.querySelector('ul')!;
      let max = list.children.length;
      const observer = new MutationObserver(() => (max = Math.max(max, list.children.length)));
      observer.observe(list, { childList: true });
      const t0 = performance.now();
      while (scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1) {
        scroller.scrollTop += scroller.clientHeight * 2;
        await new Promise((r) => requestAnimationFrame(r));
      }
      // The last rows arrive from their page.
      const deadline = performance.now() + 10_000;
      while (!list.querySelector('li:last-child .case-link') && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      observer.disconnect();
      const last = list.querySelector('li:last-child')?.getAttribute('aria-posinset');
      return { max, ms: performance.now() - t0, last };
    });
    rows.push({
      measure: `repository (${label}): most rows in the DOM while scrolling all (to row ${scrolled.last})`,
      figure: `${scrolled.max} rows (${ms(scrolled.ms)} to scroll)`,
      target: '≤ 200 rows',
      met: scrolled.max <= 200 ? 'yes' : 'NO',
    });
    const longest = await p.evaluate(() => (window as unknown as { longest: number }).longest);
    rows.push({
      measure: `repository (${label}): longest main-thread task over all of the above`,
      figure: ms(longest),
      target: 'no frozen page',
      met: longest < 250 ? 'yes' : 'NO',
    });
    await context.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
