import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  CHROMIUM,
  ensureBuilt,
  hasChromium,
  inspect,
  launchChromium,
  sessionApi,
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
} from './browser-env.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

if (!hasChromium) {
  console.log(`[casebook] admin integrations/webhooks browser tests SKIPPED: no Chromium at ${CHROMIUM}`);
}

/**
 * An admin connects a tracker (a fake one on 127.0.0.1) and tests the connection, then creates a webhook to a
 * local receiver, previews its payload, sends a test event, reads the delivery and redelivers it. One service
 * (SQLite), steps in order as a person would take them.
 */
describe.skipIf(!hasChromium)('the integrations and webhooks admin pages in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let tracker: Receiver;
  let receiver: Receiver;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const look = async (name: string, dark = false) => a11y.push(...(await inspect(page, name, { dark })));

  beforeAll(async () => {
    ensureBuilt();
    tracker = await startReceiver();
    receiver = await startReceiver();
    // Private addresses allowed: the tracker and the receiver are on 127.0.0.1.
    service = await startService({ CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(page, service.baseUrl);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await tracker?.close();
    await receiver?.close();
  });

  it('creates a tracker integration, with the refusal beside the field and the credential never shown', async () => {
    await page.goto(`${service.baseUrl}/admin/integrations`);
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    await page.getByText('No integrations yet').waitFor();
    await page.getByRole('button', { name: 'New integration' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Acme issues');
    await page.getByLabel('Account', { exact: true }).fill('acme');
    await page.getByLabel('API address (optional)').fill('ftp://tracker.example');
    await page.getByLabel('Access token (optional)').fill('ghp_browser_secret');
    await page.getByRole('button', { name: 'Create integration' }).click();
    const apiUrl = page.getByRole('textbox', { name: 'API address (optional)' });
    await expect.poll(() => apiUrl.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('"API address" must be an absolute http(s) URL.').waitFor();
    await look('admin-integration-error');
    // Nothing typed is lost: the token is still there, and the corrected address goes through.
    expect(await page.getByLabel('Access token (optional)').inputValue()).toBe('ghp_browser_secret');
    await apiUrl.fill(`${tracker.url}/api/v3`);
    // Tested as typed, before anything is saved.
    tracker.respond = () => ({ status: 200, body: JSON.stringify({ login: 'typed-bot' }) });
    await page.getByRole('button', { name: 'Test these settings' }).click();
    await page.getByText(/^Connected: the tracker knows the credential as typed-bot/).waitFor();
    expect(tracker.requests.at(-1)?.headers.authorization).toBe('Bearer ghp_browser_secret');
    expect((await sessionApi(page, service.baseUrl)('GET', '/integration')).integrations).toEqual([]);
    await page.getByRole('button', { name: 'Create integration' }).click();
    await page.getByText('Integration "Acme issues" created.').waitFor();
    const row = page.getByRole('list', { name: 'Integrations' }).getByRole('listitem');
    await row.getByText('credential stored').waitFor();
    expect(await page.content()).not.toContain('ghp_browser_secret');
  });

  it('tests the connection: connected with the login the tracker answers, then its refusal in words', async () => {
    tracker.respond = () => ({ status: 200, body: JSON.stringify({ login: 'casebook-bot' }) });
    await page.getByRole('button', { name: 'Test connection of Acme issues' }).click();
    await page.getByText(/^Connected: the tracker knows the credential as casebook-bot/).waitFor();
    expect(tracker.requests.at(-1)).toMatchObject({ method: 'GET', url: '/api/v3/user' });
    expect(tracker.requests.at(-1)?.headers.authorization).toBe('Bearer ghp_browser_secret');
    tracker.respond = () => ({ status: 401, body: JSON.stringify({ message: 'Bad credentials' }) });
    await page.getByRole('button', { name: 'Test connection of Acme issues' }).click();
    await page.getByText('The tracker refused the credentials (HTTP 401): "Bad credentials".').waitFor();
    await look('admin-integrations', true);
  });

  it('edits the integration: the credential field says stored, and leaving it empty keeps it', async () => {
    await page.getByRole('button', { name: 'Edit Acme issues' }).click();
    const token = page.getByLabel('Access token: stored — replace');
    expect(await token.inputValue()).toBe('');
    await page.getByLabel('Account', { exact: true }).fill('acme-corp');
    // An address on another host is tested only with the credential typed again: said beside the field.
    await page.getByLabel('API address (optional)').fill('http://127.0.0.9:9/api');
    await page.getByRole('button', { name: 'Test these settings' }).click();
    await page.getByText('Not tested: correct the settings marked above.').waitFor();
    await expect.poll(() => token.getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('API address (optional)').fill(`${tracker.url}/api/v3`);
    await look('admin-integration-edit');
    await page.getByRole('button', { name: 'Save integration' }).click();
    await page.getByText('Integration "Acme issues" saved.').waitFor();
    await page.getByText(/acme-corp at .* credential stored/).waitFor();
    tracker.respond = () => ({ status: 200, body: JSON.stringify({ login: 'casebook-bot' }) });
    await page.getByRole('button', { name: 'Test connection of Acme issues' }).click();
    await page.getByText(/^Connected/).waitFor();
    expect(tracker.requests.at(-1)?.headers.authorization).toBe('Bearer ghp_browser_secret');
  });

  it('creates a webhook after previewing its payload: a bad placeholder is refused in words, a good one rendered', async () => {
    await page.goto(`${service.baseUrl}/admin/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Team chat');
    await page.getByLabel('Endpoint').fill(`${receiver.url}/hook`);
    await page.getByLabel('Result recorded', { exact: true }).check();
    await page.getByLabel('Signing secret (optional)').fill('chat-signing-secret');
    const payload = page.getByLabel('Payload template (optional)');
    await payload.fill('{"text": "${event} ${object..title}"}');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page
      .getByText('The template is refused: "${object..title}" is not a placeholder like ${object.title}')
      .waitFor();
    await payload.fill('{"text": "${event} in ${project.code}: ${object.title}"}');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect
      .poll(() => page.getByLabel('Rendered payload').textContent())
      .toBe('{"text": "run_created in SHOP: Nightly regression"}');
    await look('admin-webhook-new');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByText('Webhook "Team chat" created.').waitFor();
    await look('admin-webhooks', true);
  });

  it('sends a test event, lists the delivery with its code and body, and redelivers it', async () => {
    receiver.respond = () => ({ status: 200, body: 'thanks from the receiver' });
    await page.getByRole('link', { name: 'Deliveries and settings of Team chat' }).click();
    await page.getByRole('heading', { name: 'Team chat', level: 1 }).waitFor();
    await page.getByText('No deliveries yet.').waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event delivered: HTTP 200.').waitFor();
    const deliveries = page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem');
    await expect.poll(() => deliveries.count()).toBe(1);
    await deliveries.first().getByText('Delivered').waitFor();
    await deliveries.first().getByText('HTTP 200').waitFor();
    await deliveries
      .first()
      .getByRole('button', { name: /^Show details/ })
      .click();
    await expect.poll(() => page.getByLabel('Response body').textContent()).toBe('thanks from the receiver');
    await expect.poll(() => page.getByLabel('Body sent').textContent()).toContain('"event":"ping"');
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0].headers['x-casebook-signature']).toBeDefined();
    await look('admin-webhook-deliveries', true);

    receiver.respond = () => ({ status: 202, body: 'again, thanks' });
    await deliveries
      .first()
      .getByRole('button', { name: /^Redeliver/ })
      .click();
    await page.getByText('Redelivery queued').waitFor();
    // The service's job runner sends it; the page shows it once refreshed.
    await expect.poll(() => receiver.requests.length, { timeout: 15_000 }).toBe(2);
    expect(receiver.requests[1].headers['x-casebook-event-id']).toBe(
      receiver.requests[0].headers['x-casebook-event-id'],
    );
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.getByRole('list', { name: 'Deliveries' }).getByText('HTTP 202').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    await expect.poll(() => deliveries.count()).toBe(2);
  });

  it('disables the webhook from the list, and its settings keep the secret write-only', async () => {
    await page.getByLabel('Signing secret: stored — replace').waitFor();
    expect(await page.content()).not.toContain('chat-signing-secret');
    await page.getByRole('link', { name: '← All webhooks' }).click();
    await page.getByRole('button', { name: 'Disable Team chat' }).click();
    await page.getByText('Webhook "Team chat" disabled.').waitFor();
    await page.getByText('disabled', { exact: true }).waitFor();
    // Deleting it names what goes: its delivery records, counted.
    await page.getByRole('button', { name: 'Delete Team chat' }).click();
    const del = page.getByRole('dialog', { name: 'Delete "Team chat"?' });
    await del.getByText(/its 2 delivery records; none is waiting to be sent/).waitFor();
    await look('admin-webhook-delete');
    await del.getByRole('button', { name: 'Cancel' }).click();
    await del.waitFor({ state: 'detached' });
  });

  it('tells a person without the admin role that both pages are for admins', async () => {
    const invited = await sessionApi(page, service.baseUrl)('POST', '/users/invitations', {
      email: 'tess.user@example.com',
      role: 'user',
    });
    const token = new URL(invited.link).pathname.split('/').pop();
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const other = await ctx.newPage();
    other.on('pageerror', (e) => pageErrors.push(String(e)));
    try {
      await other.goto(service.baseUrl);
      const made = await other.request.post(`${service.baseUrl}/api/auth/register`, {
        headers: { origin: service.baseUrl, 'content-type': 'application/json' },
        data: JSON.stringify({ token, name: 'Tess User', password: 'tess password 1' }),
      });
      expect(made.status(), await made.text()).toBe(201);
      await signIn(other, service.baseUrl, { email: 'tess.user@example.com', password: 'tess password 1' });
      for (const [path, words] of [
        ['/admin/integrations', 'You need the admin role to manage integrations.'],
        ['/admin/webhooks', 'You need the admin role to manage webhooks.'],
      ]) {
        await other.goto(`${service.baseUrl}${path}`);
        await other.getByText(words).waitFor();
        expect(await other.getByRole('button', { name: /^New / }).count()).toBe(0);
      }
    } finally {
      await ctx.close();
    }
    expect(pageErrors).toEqual([]);
    expect(a11y).toEqual([]);
  });
});
