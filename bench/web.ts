/**
 * `npm run bench:web`: the web application in headless Chromium against a real server process, printed as a
 * table with the web application's targets beside the figures. Today: what the sign-in page costs to load (cold
 * cache). The repository page's figures (first cases shown, filtering, rows in the DOM) join when it exists.
 */
import os from 'node:os';
import type { Response } from 'playwright-core';
import { CHROMIUM, ensureBuilt, hasChromium, launchChromium, startService } from '../test/web/browser-env.js';

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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
