import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { describeEachDb } from '../helpers/test-app.js';

/**
 * A self-hoster on plain HTTP under a LAN name must get a working /docs page. Chromium
 * treats localhost as secure, so the page is opened as `casebook.lan`, which Chromium's own resolver
 * maps to 127.0.0.1: no traffic leaves the loopback address. Skipped when Chromium is not installed.
 */

const CHROMIUM = '/usr/bin/chromium';
const HOST = 'casebook.lan';
const present = existsSync(CHROMIUM);
if (!present) console.warn(`[casebook] /docs browser check SKIPPED: ${CHROMIUM} is not installed`);

describeEachDb('the /docs page in Chromium over plain HTTP under a LAN name', (t) => {
  let browser: Browser | undefined;
  let port = 0;

  beforeAll(async () => {
    if (!present) return;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it.skipIf(!present)(
    'renders the API documentation, every request on plain HTTP',
    async () => {
      const page = await browser!.newPage();
      const requested: string[] = [];
      // Scripts blocked or requests upgraded would leave the page blank. (Swagger UI's own inline style
      // attribute, refused by its static style-src, changes nothing visible and is not counted.)
      const cspErrors: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      page.on('console', (m) => {
        if (/script-src|upgrade|Mixed Content|ERR_/i.test(m.text())) cspErrors.push(m.text());
      });
      const res = await page.goto(`http://${HOST}:${port}/docs`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 10_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain('Casebook public API');
      expect(cspErrors, cspErrors.join('\n')).toEqual([]);
      expect(requested.filter((u) => !u.startsWith(`http://${HOST}:${port}/`))).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
