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
  VIEWPORTS,
  type RunningService,
} from './browser-env.js';

if (!hasChromium) console.log(`[casebook] admin sign-in browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

const SECRET = 'admin-page-client-secret';

/**
 * Administration → Sign-in in Chromium, against a real `oidc-provider` in this process: the owner adds a provider
 * on the page (a refusal beside its field, nothing typed lost), registers the redirect URI the page shows, runs
 * "Test sign-in" in a popup while the provider is still off, and sees the claims and the role they map to; no
 * session changes hands and no account is made.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))('Administration → Sign-in on %s', (target) => {
  let idp: TestIdp;
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  const a11y: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    idp = await startIdp();
    service = await startServiceOn(target, { CASEBOOK_OUTBOUND_ALLOW: '127.0.0.1' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(page, service.baseUrl);
    await sessionApi(page, service.baseUrl)('POST', '/project', { code: 'SSO', title: 'Single sign-on' });
    idp.users.set('pat', {
      email: 'pat@corp.example',
      email_verified: true,
      name: 'Pat Lead',
      groups: ['qa-leads'],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await idp?.close();
  });

  it('adds a provider with ordered role rules and a project rule; a refusal stays beside its field with everything typed', async () => {
    await page.goto(`${service.baseUrl}/admin/sign-in`);
    await page.getByRole('heading', { name: 'Sign-in', level: 1 }).waitFor();
    await page.getByText('No identity providers yet').waitFor();
    a11y.push(...(await inspect(page, 'admin-sign-in-empty')));
    await page.getByRole('button', { name: 'New identity provider' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Company SSO');
    // Plain http to a host CASEBOOK_OUTBOUND_ALLOW does not name: refused at /issuer.
    await page.getByLabel('Issuer', { exact: true }).fill('http://sso.invalid.example');
    await page.getByLabel('Client ID').fill('casebook');
    await page.getByLabel('Client secret').fill(SECRET);
    await page.getByLabel('Just in time: a person new here gets an account at their first sign-in').check();
    await page.getByRole('button', { name: 'Add a role rule' }).click();
    await page.getByLabel('Group of role rule 1').fill('qa');
    await page.getByLabel('Role of rule 1').selectOption('user');
    await page.getByRole('button', { name: 'Add a role rule' }).click();
    await page.getByLabel('Group of role rule 2').fill('qa-leads');
    await page.getByLabel('Role of rule 2').selectOption('admin');
    // qa-leads first: the first matching rule wins.
    await page.getByRole('button', { name: 'Move role rule 2 up' }).click();
    await expect.poll(() => page.getByLabel('Group of role rule 1').inputValue()).toBe('qa-leads');
    await page.getByRole('button', { name: 'Add a project rule' }).click();
    await page.getByLabel('Group of project rule 1').fill('qa-leads');
    await page.getByRole('group', { name: 'Projects of rule 1' }).getByLabel('SSO — Single sign-on').check();
    await page.getByRole('button', { name: 'Add provider' }).click();
    const issuer = page.getByLabel('Issuer', { exact: true });
    await expect.poll(() => issuer.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.locator('.field-error').first().textContent()).toMatch(/issuer/i);
    a11y.push(...(await inspect(page, 'admin-sign-in-refused')));
    // Nothing typed is lost: the secret and the rules are still there.
    expect(await page.getByLabel('Client secret').inputValue()).toBe(SECRET);
    expect(await page.getByLabel('Group of role rule 2').inputValue()).toBe('qa');
    await issuer.fill(idp.issuer);
    await page.getByRole('button', { name: 'Add provider' }).click();
    await page.getByRole('status').filter({ hasText: 'Provider "Company SSO" added.' }).waitFor();
    const row = page.getByRole('list', { name: 'Identity providers' }).getByRole('listitem').first();
    await row.getByText('disabled', { exact: true }).waitFor();
    const redirectUri = (await row.locator('.sso-redirect code').textContent())!;
    expect(redirectUri).toMatch(/\/api\/auth\/oidc\/[\w-]+\/callback$/);
    expect(await page.content()).not.toContain(SECRET);
    idp.configure([{ client_id: 'casebook', client_secret: SECRET, redirect_uris: [redirectUri] }]);
  });

  it('runs Test sign-in in a popup on the disabled provider and shows the claims and the mapped role, signing no one in', async () => {
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      page.getByRole('button', { name: 'Test sign-in with Company SSO' }).click(),
    ]);
    await popup.locator('input[name="login"]').fill('pat');
    await popup.locator('input[name="password"]').fill('any password');
    await popup.getByRole('button', { name: 'Sign-in' }).click();
    await popup.getByRole('button', { name: 'Continue' }).click();
    await popup.getByRole('heading', { name: 'Test sign-in: Company SSO' }).waitFor({ timeout: 15_000 });
    const claims = popup.getByRole('region', { name: 'Last test of Company SSO' });
    await claims.getByText('pat@corp.example (verified)').waitFor();
    await claims.getByText('Admin (rule for group qa-leads)').waitFor();
    await claims.getByText('a new account would be made').waitFor();
    // The page that opened the popup shows it too (the popup told it).
    const shown = page.getByRole('region', { name: 'Last test of Company SSO' });
    await shown.getByText('Admin (rule for group qa-leads)').waitFor();
    await shown.getByText('SSO', { exact: true }).waitFor();
    await page.getByRole('status').filter({ hasText: 'The test sign-in finished' }).waitFor();
    a11y.push(...(await inspect(page, 'admin-sign-in-tested')));
    a11y.push(...(await inspect(popup, 'admin-sign-in-test-popup')));
    await popup.close();
    // Still the owner in this browser; nobody called Pat was made.
    const api = sessionApi(page, service.baseUrl);
    expect((await api('GET', '/users/me')).user.email).toBe('owner@example.com');
    const people = await api('GET', '/users');
    expect(JSON.stringify(people)).not.toContain('pat@corp.example');
  });

  it('edits the provider: the secret is "set" and never shown, a new issuer asks for it again, then enables it', async () => {
    await page.getByRole('button', { name: 'Edit Company SSO' }).click();
    const secret = page.getByLabel('Client secret: set — replace');
    expect(await secret.inputValue()).toBe('');
    await page.getByLabel('Issuer', { exact: true }).fill(`${idp.issuer}/`);
    await page.getByLabel('Client secret for the new issuer').waitFor();
    await page.getByLabel('Issuer', { exact: true }).fill(idp.issuer);
    await page.getByLabel('Enabled: shown on the sign-in page and usable').check();
    await page.getByRole('button', { name: 'Save provider' }).click();
    await page.getByRole('status').filter({ hasText: 'Provider "Company SSO" saved.' }).waitFor();
    const row = page.getByRole('list', { name: 'Identity providers' }).getByRole('listitem').first();
    await row.getByText('enabled', { exact: true }).waitFor();
  });

  it('lets the owner keep passwords to themselves (break-glass): the sign-in page then offers the provider first', async () => {
    const policy = page.getByRole('region', { name: 'Password sign-in' });
    await policy.getByLabel(/Owner only \(break-glass\)/).check();
    await policy.getByRole('button', { name: 'Save password sign-in' }).click();
    await policy.getByText('Saved: only the owner signs in with a password now.').waitFor();
    await policy.scrollIntoViewIfNeeded();
    a11y.push(...(await inspect(page, 'admin-sign-in-policy')));
    const visitor = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    await visitor.goto(`${service.baseUrl}/sign-in`);
    await visitor.getByRole('link', { name: 'Sign in with Company SSO' }).waitFor();
    const ownerLink = visitor.getByRole('button', { name: 'Owner sign-in' });
    await ownerLink.waitFor();
    expect(await visitor.getByLabel('Password').isVisible()).toBe(false);
    a11y.push(...(await inspect(visitor, 'sign-in-owner-only')));
    await ownerLink.click();
    await visitor.getByLabel('E-mail').fill('owner@example.com');
    await visitor.getByLabel('Password').fill('owner-password-1');
    await visitor.getByRole('button', { name: 'Sign in', exact: true }).click();
    await visitor.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await visitor.context().close();
    await policy.getByLabel(/Everyone/).check();
    await policy.getByRole('button', { name: 'Save password sign-in' }).click();
    await policy.getByText('Saved: everyone may sign in with a password.').waitFor();
  });

  it('deletes the provider after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete Company SSO' }).click();
    const dialog = page.getByRole('alertdialog').or(page.getByRole('dialog'));
    await dialog.getByText('keep their accounts').waitFor();
    await dialog.getByRole('button', { name: 'Delete provider' }).click();
    await page.getByRole('status').filter({ hasText: 'Provider "Company SSO" deleted.' }).waitFor();
    await page.getByText('No identity providers yet').waitFor();
  });

  it('finds no accessibility problems and no script errors on the pages', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
