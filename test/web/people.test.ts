import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  SCREENSHOTS,
  OWNER,
  sessionApi,
  sessionFetch,
  signIn,
  startService,
  submitSignIn,
  VIEWPORTS,
  type RunningService,
} from './browser-env.js';
import { startMailReceiver, type MailReceiver } from '../helpers/mail-receiver.js';

if (!hasChromium) {
  console.log(`[casebook] people browser tests SKIPPED: no Chromium at ${CHROMIUM}`);
}

/** The whole page at phone size (the list is below the fold there), for looking at; axe runs in inspect. */
async function wholePhonePage(p: Page, name: string) {
  await p.setViewportSize(VIEWPORTS.phone);
  await p.waitForTimeout(150);
  await p.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone-full.png`), fullPage: true });
  await p.setViewportSize(VIEWPORTS.desktop);
}

/**
 * The People page (admins and the owner): invitations, roles, reset links, deactivation. A real server
 * process (SQLite) without mail, so the one-time links are shown to the admin; steps run in order like a
 * person would.
 */
describe.skipIf(!hasChromium)('the People page in Chromium (no mail configured)', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const nora = { email: 'nora.new@example.com', name: 'Nora New', password: 'first password 1' };
  const adam = { email: 'adam.admin@example.com', name: 'Adam Admin', password: 'adam password 1' };
  const url = (path: string) => `${service.baseUrl}${path}`;
  const look = async (p: Page, name: string, dark = false) =>
    a11y.push(...(await inspect(p, name, { dark })));

  async function freshPage(): Promise<[BrowserContext, Page]> {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    return [ctx, p];
  }

  const users = () => page.getByRole('list', { name: 'Users' });
  const row = (name: string) => users().getByRole('listitem', { name });

  /** Reads the one-time link from its dialog, checks it is said to be shown once, and closes the dialog. */
  async function takeLink(title: string, shot: string): Promise<string> {
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    await dialog.getByText('will not be shown again').waitFor();
    expect(await dialog.getByRole('button', { name: 'Copy the link' }).count()).toBe(1);
    const link = (await dialog.getByLabel('One-time link').inputValue()).trim();
    await look(page, shot);
    await dialog.getByRole('button', { name: 'Copy the link' }).click();
    await dialog.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    // Escape does not close it: only Done does, once the link is taken.
    await page.keyboard.press('Escape');
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Once closed, it is gone from the page.
    expect(await page.getByText(link).count()).toBe(0);
    return link;
  }

  beforeAll(async () => {
    ensureBuilt();
    service = await startService();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(page, service.baseUrl);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('is reached from the user menu; lists the owner and says when nothing is pending', async () => {
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'People' }).click();
    await page.getByRole('heading', { name: 'People', level: 1 }).waitFor();
    await row('Owner').waitFor();
    expect(await row('Owner').getByText('Ownership changes only when the owner transfers it.').count()).toBe(
      1,
    );
    // The owner's own row has no controls: nobody changes or deactivates the owner.
    expect(await row('Owner').getByRole('button').count()).toBe(0);
    await page.getByText('No pending invitations.').waitFor();
    await look(page, 'people', true);
  });

  it("shows the API's refusal of an invitation next to the e-mail field", async () => {
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const field = page.getByRole('textbox', { name: 'E-mail' });
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    await page.getByText(`A user with e-mail ${OWNER.email} exists.`).waitFor();
    await look(page, 'people-invite-error');
  });

  let inviteLink = '';
  it('invites someone into a chosen project: the link is shown once, with a copy button; the invitation is pending', async () => {
    const api = sessionApi(page, service.baseUrl);
    await api('POST', '/project', { code: 'NORA', title: "Nora's checkout" });
    await api('POST', '/project', { code: 'ELSE', title: 'Somebody else' });
    await page.reload();
    await page.getByLabel('E-mail').fill(nora.email);
    await page.getByLabel('Role', { exact: true }).selectOption('test-runner');
    await page.getByRole('radio', { name: 'Only the projects ticked' }).check();
    await page
      .getByRole('list', { name: 'Projects to join' })
      .getByRole('checkbox', { name: /Nora's checkout/ })
      .check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    inviteLink = await takeLink(`Invitation link for ${nora.email}`, 'people-invitation-link');
    expect(inviteLink).toMatch(new RegExp(`^${service.baseUrl}/invite/[\\w-]{40,}$`));
    const pending = page.getByRole('list', { name: 'Pending invitations' });
    await pending.getByText(nora.email).waitFor();
    expect(await pending.getByText(/Test runner · NORA · invited by Owner/).count()).toBe(1);
    await look(page, 'people-pending');
    await wholePhonePage(page, 'people-pending');
  });

  it('makes every project the default for new members, and the invitation form follows', async () => {
    await page.getByRole('checkbox', { name: /Join every project, and the ones made later/ }).check();
    await page.getByText('New members join every project unless their invitation names some.').waitFor();
    await page.reload();
    // Once the setting has loaded, the box shows it and a new invitation starts from it.
    await expect
      .poll(() =>
        page.getByRole('checkbox', { name: /Join every project, and the ones made later/ }).isChecked(),
      )
      .toBe(true);
    await expect
      .poll(() => page.getByRole('radio', { name: 'All projects, and the ones made later' }).isChecked())
      .toBe(true);
    await look(page, 'people-access-defaults');
    await page.getByRole('checkbox', { name: /Join every project, and the ones made later/ }).uncheck();
    await page.getByText('New members join the projects their invitation names.').waitFor();
  });

  it('revokes an invitation', async () => {
    await page.getByLabel('E-mail').fill('not.coming@example.com');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await takeLink('Invitation link for not.coming@example.com', 'people-invitation-link-2');
    await page.getByRole('button', { name: 'Revoke the invitation of not.coming@example.com' }).click();
    await expect
      .poll(() => page.getByRole('list', { name: 'Pending invitations' }).getByText('not.coming').count())
      .toBe(0);
  });

  it('the invited person accepts in another browser and is then listed', async () => {
    const [ctx, p] = await freshPage();
    try {
      await p.goto(inviteLink);
      await p.getByRole('heading', { name: 'Join Casebook' }).waitFor();
      await p.getByLabel('Your name').fill(nora.name);
      await p.getByLabel('New password').fill(nora.password);
      await p.getByLabel('Repeat the password').fill(nora.password);
      await p.getByRole('button', { name: 'Create account' }).click();
      await expect.poll(() => new URL(p.url()).pathname).toBe('/');
      // She lands on the project she was invited to, and only that one.
      await p.getByText("Nora's checkout").first().waitFor();
      expect(await p.getByText('Somebody else').count()).toBe(0);
    } finally {
      await ctx.close();
    }
    await page.reload();
    await row(nora.name).waitFor();
    expect(await row(nora.name).getByText('Active').count()).toBe(1);
    expect(await row(nora.name).getByText(nora.email).count()).toBe(1);
    expect(await page.getByText('No pending invitations.').count()).toBe(1);
  });

  it("changes a role; an admin's refusal by the API is shown in words next to the role", async () => {
    const role = row(nora.name).getByRole('combobox', { name: `Role of ${nora.name}` });
    expect(await role.inputValue()).toBe('test-runner');
    await role.selectOption('admin');
    // Nothing is sent until the role is saved (keyboard users step through the options first).
    await row(nora.name)
      .getByRole('button', { name: `Save role of ${nora.name}` })
      .click();
    await page.getByText(`${nora.name} is now admin.`).waitFor();
    expect(
      await row(nora.name)
        .getByRole('button', { name: /^Save role/ })
        .count(),
    ).toBe(0);

    // Another admin may not change the role of an equal admin: the page says so next to the control.
    const invited = await sessionFetch(page, service.baseUrl)('POST', '/users/invitations', {
      email: adam.email,
      role: 'admin',
    });
    expect(invited.status()).toBe(201);
    const token = ((await invited.json()) as { link: string }).link.split('/').pop();
    const registered = await fetch(url('/api/auth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: adam.name, password: adam.password }),
    });
    expect(registered.status).toBe(201);
    const [ctx, p] = await freshPage();
    try {
      await signIn(p, service.baseUrl, adam);
      await p.goto(url('/people'));
      const noras = p.getByRole('list', { name: 'Users' }).getByRole('listitem', { name: nora.name });
      await noras.getByRole('combobox', { name: `Role of ${nora.name}` }).selectOption('viewer');
      await noras.getByRole('button', { name: `Save role of ${nora.name}` }).click();
      await noras
        .getByRole('alert')
        .getByText("You can't change the role of a user whose role (admin) is not below yours (admin).")
        .waitFor();
      await look(p, 'people-role-refused');
      await wholePhonePage(p, 'people-role-refused');
    } finally {
      await ctx.close();
    }

    // By keyboard: focus the role, choose with the arrow keys, save with the button next to it.
    await role.focus();
    await role.selectOption('user');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText(`${nora.name} is now user.`).waitFor();
    const { users } = (await sessionApi(page, service.baseUrl)('GET', '/users/accounts')) as {
      users: { email: string; role: string }[];
    };
    expect(users.find((u) => u.email === nora.email)?.role).toBe('user');
  });

  it('a refused deactivation is said once, in its dialog, and is gone when the dialog opens again', async () => {
    // Nora is an admin for a while: Adam, an admin too, may not deactivate her.
    const accounts = await page.request.get(url('/api/public/v0/users/accounts'));
    const noraId = ((await accounts.json()) as { users: { id: number; email: string }[] }).users.find(
      (u) => u.email === nora.email,
    )!.id;
    const setNorasRole = async (role: string) =>
      expect(
        (
          await page.request.post(url(`/api/public/v0/users/${noraId}/role`), {
            headers: { origin: service.baseUrl },
            data: { role },
          })
        ).status(),
      ).toBe(200);
    await setNorasRole('admin');
    const [ctx, p] = await freshPage();
    try {
      await p.goto(url('/sign-in'));
      await signIn(p, service.baseUrl, adam);
      await p.goto(url('/people'));
      const noras = p.getByRole('list', { name: 'Users' }).getByRole('listitem', { name: nora.name });
      const refusal = "You can't deactivate a user whose role (admin) is not below yours (admin).";
      await noras.getByRole('button', { name: `Deactivate ${nora.name}` }).click();
      const dialog = p.getByRole('dialog', { name: `Deactivate ${nora.name}?` });
      await dialog.getByRole('button', { name: `Deactivate ${nora.name}` }).click();
      await dialog.getByRole('alert').getByText(refusal).waitFor();
      // Once, beside the button that was refused: not again in the row behind the dialog.
      expect(await p.getByText(refusal).count()).toBe(1);
      await look(p, 'people-deactivate-refused');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await p.getByText(refusal).count()).toBe(0);
      // Opened again, the dialog asks afresh: the earlier refusal is not shown as if it were new.
      await noras.getByRole('button', { name: `Deactivate ${nora.name}` }).click();
      await dialog.getByRole('button', { name: `Deactivate ${nora.name}` }).waitFor();
      expect(await dialog.getByRole('alert').count()).toBe(0);
      expect(await p.getByText(refusal).count()).toBe(0);
    } finally {
      await ctx.close();
      await setNorasRole('user');
    }
  });

  it('issues a reset link, shown once, that sets a new password', async () => {
    await row(nora.name)
      .getByRole('button', { name: `Reset password for ${nora.name}` })
      .click();
    const link = await takeLink(`Password reset link for ${nora.name}`, 'people-reset-link');
    expect(link).toMatch(new RegExp(`^${service.baseUrl}/reset-password/[\\w-]{40,}$`));
    const [ctx, p] = await freshPage();
    try {
      await p.goto(link);
      await p.getByRole('heading', { name: 'Set a new password' }).waitFor();
      nora.password = 'second password 2';
      await p.getByLabel('New password').fill(nora.password);
      await p.getByLabel('Repeat the password').fill(nora.password);
      await p.getByRole('button', { name: 'Set the password' }).click();
      await p.getByRole('heading', { name: 'Your password is set' }).waitFor();
      await signIn(p, service.baseUrl, nora);
    } finally {
      await ctx.close();
    }
  });

  it('deactivates after a confirmation naming the person, then reactivates', async () => {
    await row(nora.name)
      .getByRole('button', { name: `Deactivate ${nora.name}` })
      .click();
    const dialog = page.getByRole('dialog', { name: `Deactivate ${nora.name}?` });
    await dialog.waitFor();
    expect(await dialog.getByText(nora.email).count()).toBe(1);
    await look(page, 'people-deactivate');
    await dialog.getByRole('button', { name: `Deactivate ${nora.name}` }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(nora.name).getByText('Deactivated').waitFor();
    // A deactivated person can't be sent a reset link: the control is gone.
    expect(
      await row(nora.name)
        .getByRole('button', { name: `Reset password for ${nora.name}` })
        .count(),
    ).toBe(0);
    await look(page, 'people-deactivated', true);
    await wholePhonePage(page, 'people-deactivated');
    const [ctx, p] = await freshPage();
    try {
      await p.goto(url('/sign-in'));
      await submitSignIn(p, nora);
      await p.getByRole('alert').waitFor();
      expect(new URL(p.url()).pathname).toBe('/sign-in');
    } finally {
      await ctx.close();
    }
    await row(nora.name)
      .getByRole('button', { name: `Reactivate ${nora.name}` })
      .click();
    await row(nora.name).getByText('Active', { exact: true }).waitFor();
    await page.getByText(`${nora.name} is active again and can sign in.`).waitFor();
  });

  it('tells a member that the page needs the admin role, and the menu does not offer it', async () => {
    const [ctx, p] = await freshPage();
    try {
      await signIn(p, service.baseUrl, nora);
      await p.getByRole('button', { name: /^Account:/ }).click();
      await p.getByRole('menuitem', { name: 'Your settings' }).waitFor();
      expect(await p.getByRole('menuitem', { name: 'People' }).count()).toBe(0);
      await p.keyboard.press('Escape');
      await p.goto(url('/people'));
      await p.getByText('You need the admin role to manage people.').waitFor();
      expect(await p.getByRole('list', { name: 'Users' }).count()).toBe(0);
      await look(p, 'people-needs-admin');
    } finally {
      await ctx.close();
    }
  });

  it('the owner transfers ownership to an admin after a confirmation, and becomes an admin', async () => {
    await page.goto(url('/people'));
    // Only admins are offered ownership; Nora (user) is not.
    expect(
      await row(nora.name)
        .getByRole('button', { name: /^Transfer ownership/ })
        .count(),
    ).toBe(0);
    await row('Adam Admin').getByRole('button', { name: 'Transfer ownership to Adam Admin' }).click();
    const dialog = page.getByRole('dialog', { name: 'Transfer ownership to Adam Admin?' });
    await dialog.waitFor();
    await look(page, 'people-transfer');
    await dialog.getByRole('button', { name: 'Transfer ownership' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Adam Admin is now the owner, and you are an admin.').waitFor();
    await row('Adam Admin').getByText('Ownership changes only when the owner transfers it.').waitFor();
    await row('Owner').getByText('Another admin or the owner changes your role.').waitFor();
    expect(await page.getByRole('button', { name: /^Transfer ownership/ }).count()).toBe(0);
  });

  it('had no serious accessibility violation and no script error', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

/** With mail configured the links go out by e-mail and the page says so instead of showing them. */
describe.skipIf(!hasChromium)('the People page in Chromium (mail configured)', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let mail: MailReceiver | undefined;

  beforeAll(async () => {
    ensureBuilt();
    mail = await startMailReceiver();
    service = await startService({ CASEBOOK_SMTP_URL: mail.url });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    await signIn(page, service.baseUrl);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  const mailedLink = (to: string, kind: 'invite' | 'reset-password') => mail!.linkFor(to, kind);

  it('says the invitation and the reset link were e-mailed, and shows no link', async () => {
    const mel = { email: 'mailed.person@example.com', name: 'Mel Mailed', password: 'mel password 1' };
    await page.goto(`${service.baseUrl}/people`);
    await page.getByLabel('E-mail').fill(mel.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation e-mailed to ${mel.email}.`).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    const token = (await mailedLink(mel.email, 'invite')).split('/').pop();
    const registered = await fetch(`${service.baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: mel.name, password: mel.password }),
    });
    expect(registered.status).toBe(201);

    await page.reload();
    await page
      .getByRole('list', { name: 'Users' })
      .getByRole('button', { name: `Reset password for ${mel.name}` })
      .click();
    await page.getByText(`A password reset link was e-mailed to ${mel.email}.`).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await mailedLink(mel.email, 'reset-password')).toMatch(/\/reset-password\//);
  });
});
