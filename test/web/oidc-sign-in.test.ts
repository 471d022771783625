import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startIdp, type TestIdp } from '../helpers/oidc-idp.js';
import {
  browserTargets,
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  sessionApi,
  signIn,
  startServiceOn,
  type RunningService,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] OIDC sign-in browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

const SECRET = 'browser-test-client-secret';

/**
 * Sign-in through an OpenID Connect provider in Chromium: a real `oidc-provider` in this process, a real server
 * process, and a person who clicks "Sign in with …", signs in at the provider and lands where they were going; a
 * refusal comes back to the sign-in page in words.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))(
  'sign-in through OpenID Connect on %s',
  (target) => {
    let idp: TestIdp;
    let service: RunningService;
    let browser: Browser;
    const a11y: string[] = [];
    let providerId = '';

    beforeAll(async () => {
      ensureBuilt();
      idp = await startIdp();
      service = await startServiceOn(target, { CASEBOOK_OUTBOUND_ALLOW: '127.0.0.1' });
      browser = await launchChromium();
      const admin = await browser.newPage();
      await signIn(admin, service.baseUrl);
      const api = sessionApi(admin, service.baseUrl);
      await api('POST', '/project', { code: 'SSO', title: 'Single sign-on' });
      const provider = await api('POST', '/oidc-provider', {
        name: 'Company SSO',
        issuer: idp.issuer,
        clientId: 'casebook',
        clientSecret: SECRET,
        enabled: true,
        justInTime: true,
        scopes: ['groups'],
        roleRules: [{ group: 'qa', role: 'user' }],
        projectRules: [{ group: 'qa', projects: ['SSO'] }],
      });
      providerId = provider.id;
      idp.configure([
        { client_id: 'casebook', client_secret: SECRET, redirect_uris: [provider.redirectUri] },
      ]);
      idp.users.set('pat', {
        email: 'pat@corp.example',
        email_verified: true,
        name: 'Pat Tester',
        groups: ['qa'],
      });
      idp.users.set('uma', { email: 'uma@corp.example', email_verified: false, name: 'Uma' });
      await admin.close();
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
      await idp?.close();
    });

    /** The provider's own login and consent pages, as a person fills them. */
    async function atTheProvider(page: Page, login: string) {
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
    }

    it('signs a new person in with the button and lands on the page they were going to, a member of the mapped project', async () => {
      const page = await browser.newPage();
      await page.goto(`${service.baseUrl}/project/SSO`);
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      const button = page.getByRole('link', { name: 'Sign in with Company SSO' });
      await button.waitFor();
      a11y.push(...(await inspect(page, 'sign-in-providers')));
      await button.click();
      await atTheProvider(page, 'pat');
      await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe('/project/SSO');
      const me = await page.request.get(`${service.baseUrl}/api/public/v0/users/me`);
      expect(await me.json()).toMatchObject({ user: { email: 'pat@corp.example', role: 'user' } });
      await page.close();
    });

    it('brings a person the provider does not vouch for back to the sign-in page, saying why', async () => {
      const page = await browser.newPage();
      await page.goto(`${service.baseUrl}/sign-in`);
      await page.getByRole('link', { name: 'Sign in with Company SSO' }).click();
      await atTheProvider(page, 'uma');
      await expect.poll(() => new URL(page.url()).searchParams.get('error')).toBe('email_unverified');
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toContain('did not send a verified e-mail address');
      a11y.push(...(await inspect(page, 'sign-in-provider-error')));
      await page.close();
    });

    it('follows a /sign-in?sso= deep link straight to the provider and back to returnTo', async () => {
      const page = await browser.newPage();
      await page.goto(`${service.baseUrl}/sign-in?sso=${providerId}&returnTo=%2Fproject%2FSSO`);
      await atTheProvider(page, 'pat');
      await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe('/project/SSO');
      await page.close();
    });

    it('finds no accessibility problems on the sign-in page with its provider buttons', () => {
      expect(a11y).toEqual([]);
    });
  },
);
