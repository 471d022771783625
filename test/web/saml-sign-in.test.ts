import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startSamlIdp, type TestSamlIdp } from '../helpers/saml-idp.js';
import {
  browserTargets,
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  launchChromium,
  sessionApi,
  signIn,
  startServiceOn,
  type RunningService,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] SAML sign-in browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/**
 * Sign-in through a SAML 2.0 identity provider in Chromium: a test IdP in this process whose sign-on address answers
 * the AuthnRequest with a page that posts a signed response to the ACS (HTTP-POST binding), a real server process,
 * and a person who clicks "Sign in with …" and lands where they were going.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))('sign-in through SAML 2.0 on %s', (target) => {
  let idp: TestSamlIdp;
  let service: RunningService;
  let browser: Browser;
  let provider: { id: string; acsUrl: string; spEntityId: string };

  beforeAll(async () => {
    ensureBuilt();
    idp = await startSamlIdp();
    service = await startServiceOn(target);
    browser = await launchChromium();
    const admin = await browser.newPage();
    await signIn(admin, service.baseUrl);
    const api = sessionApi(admin, service.baseUrl);
    await api('POST', '/project', { code: 'SAML', title: 'SAML sign-on' });
    provider = await api('POST', '/saml-provider', {
      name: 'Company SAML',
      idpMetadataXml: idp.metadata(),
      enabled: true,
      justInTime: true,
      roleRules: [{ group: 'qa', role: 'user' }],
      projectRules: [{ group: 'qa', projects: ['SAML'] }],
    });
    await admin.close();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await idp?.close();
  });

  it('signs a new person in with the button and lands on the page they were going to', async () => {
    idp.next = {
      acsUrl: provider.acsUrl,
      audience: provider.spEntityId,
      person: { nameId: 'sam@corp.example', email: 'sam@corp.example', name: 'Sam Tester', groups: ['qa'] },
    };
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/project/SAML`);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    const button = page.getByRole('link', { name: 'Sign in with Company SAML' });
    await button.waitFor();
    await button.click();
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe('/project/SAML');
    const me = await page.request.get(`${service.baseUrl}/api/public/v0/users/me`);
    expect(await me.json()).toMatchObject({ user: { email: 'sam@corp.example', role: 'user' } });
    await page.close();
  });

  it('follows a /sign-in?sso=saml:<id> deep link straight to the IdP and back to returnTo', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/sign-in?sso=saml:${provider.id}&returnTo=%2Fproject%2FSAML`);
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe('/project/SAML');
    await page.close();
  });
});
