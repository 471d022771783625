import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  OWNER,
  sessionFetch,
  signIn,
  browserTargets,
  startServiceOn,
  submitSignIn,
  VIEWPORTS,
  type RunningService,
  type SessionFetch,
} from './browser-env.js';
import { startMailReceiver, type MailReceiver } from '../helpers/mail-receiver.js';

if (!hasChromium) {
  console.log(`[casebook] settings browser tests SKIPPED: no Chromium at ${CHROMIUM}`);
}

/**
 * Issue 13, pages 1 and 2 beyond sign-in: invitation, password reset, your settings (2FA, API keys, the
 * shortcuts switch), the device sign-in approval page, and project administration. A real server process
 * (SQLite) with mail going to a local receiver; steps run in order like a person would.
 */
describe.skipIf(!hasChromium).each(browserTargets('sqlite'))(
  'account, settings, device and project admin pages in Chromium on %s',
  (target) => {
    let service: RunningService;
    let receiver: MailReceiver;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const invitee = { email: 'tess.tester@example.com', password: 'first password 1', name: 'Tess Tester' };
    let totpSecret = '';

    const url = (path: string) => `${service.baseUrl}${path}`;
    const look = async (p: Page, name: string, dark = false) =>
      a11y.push(...(await inspect(p, name, { dark })));
    let apiCall: SessionFetch;

    /** A fresh browser without a session (another person, or the same one on another device). */
    async function freshPage(): Promise<[BrowserContext, Page]> {
      const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
      const p = await ctx.newPage();
      p.on('pageerror', (e) => pageErrors.push(String(e)));
      return [ctx, p];
    }

    /** A TOTP of the set-up secret in a time step not used yet (the service refuses a code used twice). */
    let lastStep = -1;
    async function freshTotp(): Promise<string> {
      for (;;) {
        const step = Math.floor(Date.now() / 30_000);
        if (step !== lastStep) {
          lastStep = step;
          return new TOTP({ secret: Secret.fromBase32(totpSecret), digits: 6, period: 30 }).generate();
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }

    beforeAll(async () => {
      ensureBuilt();
      receiver = await startMailReceiver();
      service = await startServiceOn(target, { CASEBOOK_SMTP_URL: receiver.url });
      browser = await launchChromium();
      context = await browser.newContext({ viewport: VIEWPORTS.desktop });
      page = await context.newPage();
      apiCall = sessionFetch(page, service.baseUrl);
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      await signIn(page, service.baseUrl);
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
      await receiver?.close();
    });

    it('accepts an e-mailed invitation: the new person chooses name and password and is signed in', async () => {
      const res = await apiCall('POST', '/users/invitations', {
        email: invitee.email,
        role: 'user',
      });
      expect(res.status()).toBe(201);
      expect(await res.json()).toMatchObject({ emailed: true });
      const link = await receiver.linkFor(invitee.email, 'invite');
      const [ctx, p] = await freshPage();
      try {
        await p.goto(link);
        await p.getByRole('heading', { name: 'Join Casebook' }).waitFor();
        expect(await p.getByText(invitee.email).count()).toBeGreaterThan(0);
        await p.getByLabel('Your name').fill(invitee.name);
        await p.getByLabel('New password').fill(invitee.password);
        await p.getByLabel('Repeat the password').fill('something else');
        await look(p, 'invitation');
        await p.getByRole('button', { name: 'Create account' }).click();
        // The browser's own check says the passwords differ, before anything is sent.
        await p.getByText('The two passwords differ.').waitFor();
        await p.getByLabel('Repeat the password').fill(invitee.password);
        await p.getByRole('button', { name: 'Create account' }).click();
        await expect.poll(() => new URL(p.url()).pathname).toBe('/');
        await p.getByRole('button', { name: /Account: Tess Tester/ }).waitFor();
        // The link works once.
        await p.goto(link);
        await p.getByRole('heading', { name: 'This invitation cannot be used' }).waitFor();
        await look(p, 'invitation-used');
      } finally {
        await ctx.close();
      }
    });

    it('resets a forgotten password with the mailed link, then signs in with the new one', async () => {
      const [ctx, p] = await freshPage();
      try {
        await p.goto(url('/sign-in'));
        await p.getByRole('link', { name: 'Forgot your password?' }).click();
        await p.getByRole('heading', { name: 'Reset your password' }).waitFor();
        await look(p, 'reset-request');
        await p.getByLabel('E-mail').fill(invitee.email);
        await p.getByRole('button', { name: 'Send the reset link' }).click();
        await p.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
        const link = await receiver.linkFor(invitee.email, 'reset-password');
        await p.goto(link);
        await p.getByRole('heading', { name: 'Set a new password' }).waitFor();
        // The page says before the change what it ends.
        await p
          .getByText(
            'Setting a new password signs you out everywhere: every session and device sign-in of your account ends.',
          )
          .waitFor();
        invitee.password = 'second password 2';
        await p.getByLabel('New password').fill(invitee.password);
        await p.getByLabel('Repeat the password').fill(invitee.password);
        await look(p, 'reset-set');
        await p.getByRole('button', { name: 'Set the password' }).click();
        await p.getByRole('heading', { name: 'Your password is set' }).waitFor();
        await p.getByText('Every session and device sign-in of your account has ended.').waitFor();
        // A used link says so in words.
        await p.goto(link);
        await p.getByLabel('New password').fill('third password 3');
        await p.getByLabel('Repeat the password').fill('third password 3');
        await p.getByRole('button', { name: 'Set the password' }).click();
        await expect
          .poll(() => p.getByRole('alert').textContent())
          .toContain('invalid, expired or already used');
        await signIn(p, service.baseUrl, invitee);
        await expect.poll(() => new URL(p.url()).pathname).toBe('/');
      } finally {
        await ctx.close();
      }
    });

    it('sets up two-factor sign-in with the QR secret, shows recovery codes, then signs in with a code', async () => {
      await page.goto(url('/settings'));
      await page.getByRole('heading', { name: 'Your settings' }).waitFor();
      await look(page, 'settings', true);
      await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      await page.getByLabel('Your password').fill(OWNER.password);
      await page.getByRole('button', { name: 'Continue' }).click();
      const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
      await qr.waitFor();
      expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
      totpSecret = ((await page.getByLabel('Setup key').textContent()) ?? '').trim();
      expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
      await look(page, 'settings-2fa-setup');
      await page.getByLabel('Code from the app').fill(await freshTotp());
      await page.getByRole('button', { name: 'Turn on' }).click();
      const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
      await expect.poll(() => codes.count()).toBeGreaterThanOrEqual(8);
      await page.getByText(/^On\. Signing in asks for a code/).waitFor();
      await look(page, 'settings-2fa-on');

      const [ctx, p] = await freshPage();
      try {
        await p.goto(url('/sign-in'));
        await submitSignIn(p);
        await p.getByLabel('Authentication code').fill(await freshTotp());
        await p.getByRole('button', { name: 'Verify' }).click();
        await expect.poll(() => new URL(p.url()).pathname).toBe('/');
      } finally {
        await ctx.close();
      }
    }, 90_000);

    it('creates an API key shown once with a copy button, and revokes it', async () => {
      await page.goto(url('/settings'));
      await page.getByLabel('New key name').fill('CI uploads');
      await page.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByLabel('New API key');
      await shown.waitFor();
      const key = ((await shown.textContent()) ?? '').trim();
      expect(key.split('.')).toHaveLength(3);
      expect(await page.getByRole('button', { name: 'Copy the key' }).count()).toBe(1);
      await look(page, 'settings-key-created');
      const row = page
        .getByRole('list', { name: 'Your API keys' })
        .getByRole('listitem')
        .filter({ hasText: 'CI uploads' });
      await expect.poll(() => row.textContent()).toContain('never used');
      const withKey = () =>
        fetch(url('/api/public/v0/users/me'), { headers: { authorization: `ApiKey ${key}` } }).then(
          (r) => r.status,
        );
      expect(await withKey()).toBe(200);
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByLabel('New API key').waitFor({ state: 'detached' });
      // Its use shows once the list is read again.
      await page.reload();
      await expect.poll(() => row.textContent()).toContain('last used just now');

      await page.getByRole('button', { name: 'Revoke CI uploads' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
      await dialog.waitFor();
      await look(page, 'settings-key-revoke');
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await expect.poll(() => page.getByRole('button', { name: 'Revoke CI uploads' }).count()).toBe(0);
      expect(await withKey()).toBe(401);
    });

    it('changes the name, and shows an API error next to the field it concerns', async () => {
      await page.goto(url('/settings'));
      const profile = page.getByRole('region', { name: 'Profile' });
      await profile.getByLabel('Name').fill('Olivia Owner');
      await profile.getByRole('button', { name: 'Save profile' }).click();
      await expect.poll(() => profile.getByRole('status').textContent()).toBe('Your name was saved.');
      await expect.poll(() => page.getByRole('button', { name: /Account: Olivia Owner/ }).count()).toBe(1);

      const password = page.getByRole('region', { name: 'Password' });
      // It says what a change ends before one is made.
      await password
        .getByText(/signs you out everywhere else: your other sessions and device sign-ins/)
        .waitFor();
      await password.getByLabel('Current password').fill('not my password');
      await password.getByLabel('New password').fill('a brand new password');
      await password.getByRole('button', { name: 'Change password' }).click();
      // The message is the field's own description (React Aria links it), not a line elsewhere on the page.
      const current = password.getByLabel('Current password');
      await expect.poll(() => current.getAttribute('aria-invalid')).toBe('true');
      const description = await current.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
      expect(description).toContain('the current password is not correct');
      expect(await password.getByLabel('New password').getAttribute('aria-invalid')).toBeNull();
      await look(page, 'settings-field-error');
    });

    it('turns single-key shortcuts off: `?` then does nothing, the menu still lists them', async () => {
      await page.goto(url('/settings'));
      await page.getByRole('heading', { name: 'Your settings' }).waitFor();
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('?');
      const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.count()).toBe(0);

      const toggle = page.getByRole('switch', { name: /Single-key shortcuts/ });
      expect(await toggle.isChecked()).toBe(true);
      await toggle.click({ force: true });
      expect(await toggle.isChecked()).toBe(false);
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('?');
      await page.waitForTimeout(300);
      expect(await dialog.count()).toBe(0);
      // Kept in this browser: still off after a reload.
      await page.reload();
      await page.getByRole('heading', { name: 'Your settings' }).waitFor();
      expect(await page.getByRole('switch', { name: /Single-key shortcuts/ }).isChecked()).toBe(false);
      await page.keyboard.press('?');
      await page.waitForTimeout(300);
      expect(await dialog.count()).toBe(0);
    });

    it("switches to the dark theme and back to the system's, kept in this browser across reloads", async () => {
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? 'system');
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(url('/settings'));
      const themes = page.getByRole('group', { name: 'Theme' });
      await themes.waitFor();
      expect(await themes.getByRole('radio', { name: /Same as the system/ }).isChecked()).toBe(true);
      expect(await background()).toBe('rgb(246, 246, 243)');

      await themes.getByRole('radio', { name: 'Dark' }).check();
      expect(await theme()).toBe('dark');
      expect(await background()).toBe('rgb(18, 20, 22)');
      // Kept: the reloaded page is dark from its first script on, the system still asking for light.
      await page.reload();
      await themes.waitFor();
      expect(await theme()).toBe('dark');
      expect(await background()).toBe('rgb(18, 20, 22)');
      expect(await themes.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
      await look(page, 'settings, dark theme chosen');

      // Back to the system's: it follows the system's scheme as it changes.
      await themes.getByRole('radio', { name: /Same as the system/ }).check();
      expect(await theme()).toBe('system');
      expect(await background()).toBe('rgb(246, 246, 243)');
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background()).toBe('rgb(18, 20, 22)');
      // The radio's name says what the system asks for now.
      await themes.getByRole('radio', { name: /Same as the system \(now dark\)/ }).waitFor();
      await page.emulateMedia({ colorScheme: null });
    });

    it('approves a device sign-in on the app page after signing in, and says so for bad and denied codes', async () => {
      const start = () =>
        fetch(url('/api/oauth/device/code'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: 'qas-cli' }),
        }).then(
          (r) =>
            r.json() as Promise<{
              device_code: string;
              user_code: string;
              verification_uri_complete: string;
            }>,
        );
      const code = await start();
      expect(code.verification_uri_complete).toBe(url(`/device?user_code=${code.user_code}`));
      const [ctx, p] = await freshPage();
      try {
        // Not signed in: sign-in first, then back to the code.
        await p.goto(code.verification_uri_complete);
        await expect.poll(() => new URL(p.url()).pathname).toBe('/sign-in');
        await submitSignIn(p, invitee);
        await expect.poll(() => new URL(p.url()).pathname).toBe('/device');
        await p.getByRole('heading', { name: /QA Sphere CLI \(qasphere\) asks to act as you/ }).waitFor();
        expect(await p.getByText(code.user_code, { exact: true }).count()).toBe(1);
        await look(p, 'device', true);
        await p.getByRole('button', { name: 'Approve' }).click();
        await p.getByText('Device approved').waitFor();
        await look(p, 'device-approved');
        const tokens = await fetch(url('/api/oauth/token'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
            device_code: code.device_code,
            client_id: 'qas-cli',
          }),
        });
        expect(tokens.status).toBe(200);

        await p.goto(url('/device?user_code=BCDF-GHJK'));
        await expect.poll(() => p.getByRole('alert').textContent()).toContain('This code is not valid');
        await look(p, 'device-bad-code');

        const second = await start();
        await p.goto(url('/device'));
        await p.getByLabel('Code shown on your device').fill(second.user_code.toLowerCase());
        await p.getByRole('button', { name: 'Continue' }).click();
        await p.getByRole('button', { name: 'Deny' }).click();
        await p.getByText('Sign-in denied').waitFor();
        await p.reload();
        await p.getByText('This sign-in was denied').waitFor();

        // The device sign-in is among the person's keys, marked as one.
        await p.goto(url('/settings'));
        // Exact: the password panel's sentence also speaks of "device sign-ins".
        await p.getByText('Device sign-in', { exact: true }).first().waitFor();
        expect(await p.getByText('Device sign-in', { exact: true }).count()).toBeGreaterThan(0);
      } finally {
        await ctx.close();
      }
    });

    it('edits a project, archives and unarchives it, and deletes it after the code is typed', async () => {
      const created = await apiCall('POST', '/project', { code: 'ADM', title: 'Admin project' });
      expect(created.status()).toBe(201);
      await page.goto(url('/project/ADM'));
      await page.getByRole('heading', { name: 'Admin project' }).waitFor();
      // The project's bar leads to its settings, where the project is edited.
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Settings' }).click();
      const edit = page.getByRole('region', { name: 'General' });
      await edit.getByLabel('Title').waitFor();
      await edit.getByLabel('Title').fill('Payments');
      // The description is rich text: what is typed is stored as HTML.
      await edit.getByRole('textbox', { name: 'Description' }).fill('Cards and wallets.');
      await edit.getByRole('button', { name: 'Add a link' }).click();
      await edit.getByLabel('Link 1 address').fill('not a url');
      await edit.getByLabel('Link 1 text').fill('Wiki');
      await look(page, 'project-edit');
      await edit.getByRole('button', { name: 'Save' }).click();
      // A malformed address is refused next to the field, nothing is stored; a correct one saves.
      await edit.getByText('Link url must be an absolute http(s) URL of at most 255 characters.').waitFor();
      expect((await (await apiCall('GET', '/project/ADM')).json()).title).toBe('Admin project');
      await edit.getByLabel('Link 1 address').fill('https://wiki.example.com/payments');
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.getByText('Saved.').waitFor();
      expect(await (await apiCall('GET', '/project/ADM')).json()).toMatchObject({
        title: 'Payments',
        overviewDescription: '<p>Cards and wallets.</p>',
      });
      await page
        .getByRole('navigation', { name: 'Project' })
        .getByRole('link', { name: 'Dashboard' })
        .click();
      await page.getByRole('heading', { name: 'Payments' }).waitFor();
      await page.getByRole('link', { name: 'Wiki' }).waitFor();
      await page.getByText('Cards and wallets.').waitFor();

      // Something to count: a case in an open run with a result (GET /project/ADM/counts; both databases in its API test).
      const folder = (
        await (await apiCall('POST', '/project/ADM/tcase/folder/bulk', { folders: [{ path: ['F'] }] })).json()
      ).ids[0][0];
      const tcase = (
        await (
          await apiCall('POST', '/project/ADM/tcase', {
            title: 'Pay',
            type: 'standalone',
            folderId: folder,
            priority: 'low',
          })
        ).json()
      ).id;
      const run = (
        await (
          await apiCall('POST', '/project/ADM/run', {
            title: 'R',
            type: 'static_struct',
            queryPlans: [{ tcaseIds: [tcase] }],
          })
        ).json()
      ).id;
      expect(
        (
          await apiCall('POST', `/project/ADM/run/${run}/tcase/${tcase}/result`, { status: 'passed' })
        ).status(),
      ).toBe(201);
      await page.goto(url('/project/ADM/settings'));
      await page.getByRole('button', { name: 'Archive…' }).click();
      const archive = page.getByRole('dialog', { name: 'Archive Payments?' });
      // The confirmation says what becomes read-only, counted.
      await archive.getByText('no result can be recorded in its 1 open run', { exact: false }).waitFor();
      expect(await archive.locator('p').first().textContent()).toContain(
        'its 1 test case, 1 run (1 open) and 1 result can be read',
      );
      await archive.getByRole('button', { name: 'Archive project' }).click();
      await page.getByText('Archived', { exact: true }).waitFor();
      await look(page, 'project-archived');
      await page.getByRole('button', { name: 'Unarchive' }).click();
      await expect.poll(() => page.getByText('Archived', { exact: true }).count()).toBe(0);

      await page.getByRole('button', { name: 'Delete…' }).click();
      const del = page.getByRole('dialog', { name: 'Delete Payments?' });
      await del.waitFor();
      // It names what goes, each count on its own line, and asks for the code.
      const goes = del.getByRole('list', { name: 'What is deleted' });
      await goes.waitFor();
      expect(await goes.getByRole('listitem').allTextContents()).toEqual([
        '1 test case',
        '1 run, still open',
        '1 result recorded in them',
        'no files attached to test cases',
      ]);
      const confirm = del.getByRole('button', { name: 'Delete project' });
      expect(await confirm.isDisabled()).toBe(true);
      await del.getByLabel('Type ADM to confirm').fill('ad');
      expect(await confirm.isDisabled()).toBe(true);
      await del.getByLabel('Type ADM to confirm').fill('ADM');
      await look(page, 'project-delete');
      await confirm.click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/');
      expect((await apiCall('GET', '/project/ADM')).status()).toBe(404);
    });

    it('has no serious or critical accessibility violation and no script error on any page', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
