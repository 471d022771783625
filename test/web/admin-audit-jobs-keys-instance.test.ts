import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  OWNER,
  sessionApi,
  sessionFetch,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
} from './browser-env.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

if (!hasChromium) {
  console.log(
    `[casebook] admin audit log, jobs, keys and instance browser tests SKIPPED: no Chromium at ${CHROMIUM}`,
  );
}

/**
 * An admin's walk through the audit log, the failed background jobs, every API key and the instance page: one
 * real server (SQLite) whose webhook receiver refuses the first delivery, so a job fails for good.
 */
describe.skipIf(!hasChromium)(
  'administration pages (audit log, jobs, API keys, instance) in Chromium',
  () => {
    let service: RunningService;
    let receiver: Receiver;
    let browser: Browser;
    let page: Page;
    let api: ReturnType<typeof sessionApi>;
    let call: ReturnType<typeof sessionFetch>;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    const look = async (name: string) => a11y.push(...(await inspect(page, name)));
    const INVITED = 'auditor.invited@example.com';
    let inviteLink = '';

    beforeAll(async () => {
      ensureBuilt();
      receiver = await startReceiver();
      // A 400 is not retried (docs/api-decisions.md#retries-and-back-off): the delivery's job fails at once.
      receiver.respond = () => ({ status: 400, body: 'bad payload' });
      service = await startService({ CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' });
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
      page = await context.newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      await signIn(page, service.baseUrl);
      api = sessionApi(page, service.baseUrl);
      call = sessionFetch(page, service.baseUrl);
      inviteLink = (await api('POST', '/users/invitations', { email: INVITED, role: 'user' })).link;
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
      await receiver?.close();
    });

    it('opens the administration bar from the account menu, each tab opening its page', async () => {
      await page.goto(url('/'));
      await page.getByRole('button', { name: /^Account:/ }).click();
      await page.getByRole('menuitem', { name: 'Administration' }).click();
      const bar = page.getByRole('navigation', { name: 'Administration' });
      await page.getByRole('heading', { name: 'Custom fields', level: 1 }).waitFor();
      expect(await bar.getByRole('link', { name: 'Custom fields' }).getAttribute('aria-current')).toBe(
        'page',
      );
      expect(await bar.getByRole('link').allTextContents()).toEqual([
        'People',
        'Custom fields',
        'Result statuses',
        'Integrations',
        'Webhooks',
        'Sign-in',
        'Audit log',
        'Background jobs',
        'API keys',
        'Import a project',
        // The owner's own page: an admin's bar ends before it.
        'Instance',
      ]);
      await bar.getByRole('link', { name: 'Background jobs' }).click();
      await page.getByRole('heading', { name: 'Background jobs', level: 1 }).waitFor();
      await bar.getByRole('link', { name: 'People' }).click();
      await page.getByRole('heading', { name: 'People', level: 1 }).waitFor();
      expect(await bar.getByRole('link', { name: 'People' }).getAttribute('aria-current')).toBe('page');
    });

    it('filters the audit log to one action picked from every action recorded, kept in the address, and opens an event to read its details', async () => {
      await page.goto(url('/admin/audit-log'));
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      const events = page.getByRole('list', { name: 'Audit events' });
      // The owner's sign-in and the invitation are this month's events.
      await events.getByText('login').first().waitFor();
      // Newest first unless asked otherwise: the other order shows the same page the other way round.
      expect(await page.getByLabel('Order').inputValue()).toBe('desc');
      const newest = await events.getByRole('listitem').first().textContent();
      const oldest = await events.getByRole('listitem').last().textContent();
      expect(newest).not.toBe(oldest);
      await page.getByLabel('Order').selectOption('asc');
      await page.waitForURL(/order=asc/);
      await expect.poll(() => events.getByRole('listitem').first().textContent()).toBe(oldest);
      expect(await events.getByRole('listitem').last().textContent()).toBe(newest);
      // The Action filter offers every action the service records, in words, by area.
      const picker = page.getByLabel('Action');
      await picker
        .locator('optgroup[label="Test cases"] option', { hasText: 'Created test cases (tcase.created)' })
        .waitFor({ state: 'attached' });
      await picker.selectOption({ label: 'Invited a person (invite_user)' });
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/action=invite_user/);
      await expect.poll(() => events.getByRole('listitem').count()).toBe(1);
      await page.getByRole('heading', { name: '1 event' }).waitFor();
      const row = events.getByRole('button', { name: /invite_user/ });
      await row.click();
      expect(await row.getAttribute('aria-expanded')).toBe('true');
      const details = page.getByRole('region', { name: /^Event \d+$/ });
      await details.getByText(INVITED).waitFor();
      await details.getByText(`Owner (${OWNER.email})`).waitFor();
      await look('admin-audit-log');
      // The address is the view: a fresh load shows the same filter.
      await page.reload();
      expect(await page.getByLabel('Action').inputValue()).toBe('invite_user');
      await expect.poll(() => events.getByRole('listitem').count()).toBe(1);
    });

    it('exports the filtered events as CSV: the header and only the matching event', async () => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Export CSV' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d\d-\d\d\.csv$/);
      const text = fs.readFileSync((await download.path())!, 'utf8');
      const lines = text.trimEnd().split('\r\n');
      expect(lines[0]).toBe('id,createdAt,action,userId,userName,userEmail,ip,userAgent,meta');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(',invite_user,');
      expect(lines[1]).toContain(OWNER.email);
      expect(lines[1]).toContain(INVITED);
    });

    it('says beside the field when the last day is before the first, keeping what was typed', async () => {
      await page.getByLabel('First day').fill('2026-03-10');
      await page.getByLabel('Last day').fill('2026-03-01');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('The last day must be on or after the first day.').waitFor();
      expect(await page.getByLabel('Last day').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByLabel('Action').inputValue()).toBe('invite_user');
      expect(page.url()).not.toContain('from=');
      await look('admin-audit-log-error');
    });

    it('lists a failed webhook delivery with its reason and retries it until it goes through', async () => {
      await api('POST', '/webhook', {
        name: 'CI dashboard',
        endpoint: `${receiver.url}/hook`,
        eventTypes: ['tcases_created'],
      });
      await api('POST', '/project', { code: 'ADM', title: 'Admin walk' });
      await api('POST', '/project/ADM/tcase/bulk', {
        folderPath: ['Hooks'],
        tcases: [{ title: 'A case that fires a webhook' }],
      });
      await expect
        .poll(async () => (await api('GET', '/job?status=failed')).jobs.length, { timeout: 30_000 })
        .toBe(1);
      const [job] = (await api('GET', '/job?status=failed')).jobs as { id: number }[];
      await page.goto(url('/admin/jobs'));
      const list = page.getByRole('list', { name: 'Failed jobs' });
      await list.getByText('Webhook delivery').waitFor();
      await list.getByText(/400/).waitFor();
      await look('admin-jobs');
      // The row names the webhook and the event; its link opens the delivery log, where "Failed only" finds it.
      await list.getByText(/tcases_created to/).waitFor();
      await list.getByRole('link', { name: 'CI dashboard' }).click();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      await page.getByRole('checkbox', { name: 'Failed only' }).check();
      const failed = page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem');
      await expect.poll(() => failed.count()).toBe(1);
      await failed.getByText('Failed', { exact: true }).waitFor();
      await page.goto(url('/admin/jobs'));
      await list.getByText('Webhook delivery').waitFor();
      const before = receiver.requests.length;
      receiver.respond = () => ({ status: 200, body: 'ok' });
      await page.getByRole('button', { name: `Retry job ${job!.id}` }).click();
      await page.getByText(`Job ${job!.id} is queued to run again.`).waitFor();
      await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBeGreaterThan(before);
      await expect.poll(async () => (await api('GET', '/job?status=failed')).jobs.length).toBe(0);
      await page.reload();
      await page.getByText('No failed jobs.').waitFor();
    });

    it('revokes a key behind a confirmation that names it, and the API refuses the key from then on', async () => {
      const { key } = await api('POST', '/users/me/api-keys', { name: 'Nightly upload' });
      const withKey = () =>
        fetch(url('/api/public/v0/project'), { headers: { authorization: `ApiKey ${key}` } }).then(
          (r) => r.status,
        );
      expect(await withKey()).toBe(200);
      await page.goto(url('/admin/api-keys'));
      const keys = page.getByRole('list', { name: 'API keys of the service' });
      await keys.getByText('Nightly upload').waitFor();
      await look('admin-api-keys');
      await page.getByRole('button', { name: `Revoke Nightly upload of ${OWNER.email}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
      await dialog.getByText(`“Nightly upload” of ${OWNER.email} stops working at once`).waitFor();
      await look('admin-api-keys-confirm');
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText(`“Nightly upload” of ${OWNER.email} is revoked.`).waitFor();
      // The toast comes from the answer; the list follows once it is read again.
      await keys.getByText('Nightly upload').waitFor({ state: 'detached' });
      expect(await withKey()).toBe(401);
      // Revoked keys stay listed on demand, with when.
      await page.getByLabel(/Show \d+ revoked/).check();
      await keys
        .getByText(/Revoked /)
        .first()
        .waitFor();
    });

    it("shows the owner the instance and the test e-mail's outcome in words", async () => {
      await page.goto(url('/admin/instance'));
      await page.getByRole('heading', { name: 'Instance', level: 1 }).waitFor();
      await page.getByText(service.baseUrl, { exact: true }).waitFor();
      await page.getByText('Not configured.').waitFor();
      await page.getByRole('button', { name: 'Send a test e-mail' }).click();
      await page
        .getByRole('status')
        .getByText(/^Mail is not configured: set CASEBOOK_SMTP_URL/)
        .waitFor();
      expect((await call('GET', '/settings/instance')).status()).toBe(200);
      await look('admin-instance');
    });

    it('tells a person without the role that the pages are not theirs, with a way out', async () => {
      const invited = { email: INVITED, password: 'invited password 1' };
      const registered = await fetch(url('/api/auth/register'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: service.baseUrl },
        body: JSON.stringify({
          token: inviteLink.split('/').at(-1),
          name: 'Ivy User',
          password: invited.password,
        }),
      });
      expect(registered.status).toBe(201);
      const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
      const p = await ctx.newPage();
      p.on('pageerror', (e) => pageErrors.push(String(e)));
      try {
        await signIn(p, service.baseUrl, invited);
        for (const [path, words] of [
          ['/admin/audit-log', 'You need the admin role to read the audit log.'],
          ['/admin/jobs', 'You need the admin role to see background jobs.'],
          ['/admin/api-keys', 'You need the admin role to see everyone’s API keys.'],
          ['/admin/instance', 'Only the owner sees the instance’s settings.'],
        ] as const) {
          await p.goto(url(path));
          await p.getByText(words).waitFor();
        }
        // No administration bar, and no way to it in the account menu.
        expect(await p.getByRole('navigation', { name: 'Administration' }).count()).toBe(0);
        await p.getByRole('button', { name: /^Account:/ }).click();
        await p.getByRole('menuitem', { name: 'Your settings' }).waitFor();
        expect(await p.getByRole('menuitem', { name: 'Administration' }).count()).toBe(0);
        await p.keyboard.press('Escape');
        a11y.push(...(await inspect(p, 'admin-instance-denied')));
        // The API agrees with the page.
        expect((await sessionFetch(p, service.baseUrl)('GET', '/audit-logs/export')).status()).toBe(403);
      } finally {
        await ctx.close();
      }
    });

    it('is clean under axe at both sizes, without page errors', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
