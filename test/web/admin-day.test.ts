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
  signIn,
  startService,
  VIEWPORTS,
  type RunningService,
  type SessionApi,
} from './browser-env.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createPostgresDatabase, POSTGRES_URL, type TestDatabase } from '../helpers/databases.js';

if (!hasChromium) {
  console.log(`[casebook] admin day browser test SKIPPED: no Chromium at ${CHROMIUM}`);
}

/**
 * Issue 27's "Done when", the integrations half of an admin's day in one walk through the pages: connect a fake
 * tracker and a webhook to a local receiver, link the tracker to a project, record a failing result with an issue
 * link and see both calls arrive, find those actions in the audit log and export them, revoke a key and see the API
 * refuse it. The API only seeds what a person would not type (the project's cases, the run, a key to revoke).
 * The issue asks for both databases: the walk runs on SQLite, and on PostgreSQL when CASEBOOK_TEST_POSTGRES_URL is set.
 */
const targets = POSTGRES_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
describe.skipIf(!hasChromium).each(targets)("an admin's day in Chromium on %s", (target) => {
  let database: TestDatabase | undefined;
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let api: SessionApi;
  let tracker: Receiver;
  let receiver: Receiver;
  let runId = 0;
  const a11y: string[] = [];
  const pageErrors: string[] = [];
  const url = (path: string) => `${service.baseUrl}${path}`;
  const look = async (name: string) => a11y.push(...(await inspect(page, name)));
  const ACTIONS = ['integration.created', 'webhook.created', 'integration.project_linked'];

  beforeAll(async () => {
    ensureBuilt();
    // The fake tracker answers "who am I" (test connection) and a comment (the comment-back job), as GitHub would.
    tracker = await startReceiver();
    tracker.respond = (req) =>
      req.method === 'GET'
        ? { status: 200, body: JSON.stringify({ login: 'casebook-bot' }) }
        : { status: 201, body: JSON.stringify({ id: 9001 }) };
    receiver = await startReceiver();
    receiver.respond = () => ({ status: 200, body: 'received' });
    // Private addresses allowed: the tracker and the receiver are on 127.0.0.1.
    if (target === 'postgres') database = await createPostgresDatabase(POSTGRES_URL!);
    service = await startService({
      CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true',
      ...(database ? { CASEBOOK_DATABASE_URL: database.url } : {}),
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await signIn(page, service.baseUrl);
    api = sessionApi(page, service.baseUrl);
    await api('POST', '/project', { code: 'DAY', title: 'Checkout' });
    await api('POST', '/project/DAY/tcase/bulk', {
      folderPath: ['Payments'],
      tcases: [{ title: 'Pay by card' }, { title: 'Pay by invoice' }],
    });
    const cases = (await api('GET', '/project/DAY/tcase?limit=10')).data as { id: string }[];
    runId = (
      await api('POST', '/project/DAY/run', {
        title: 'Release 3.0',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: cases.map((c) => c.id) }],
      })
    ).id;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await database?.drop();
    await tracker?.close();
    await receiver?.close();
  });

  it('connects a tracker and checks the connection, then a webhook to the local receiver', async () => {
    await page.goto(url('/admin/integrations'));
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New integration' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Acme issues');
    await page.getByLabel('Account', { exact: true }).fill('acme');
    await page.getByLabel('API address (optional)').fill(`${tracker.url}/api/v3`);
    await page.getByLabel('Access token (optional)').fill('ghp_day_token');
    await page.getByRole('button', { name: 'Create integration' }).click();
    await page.getByText('Integration "Acme issues" created.').waitFor();
    await page.getByRole('button', { name: 'Test connection of Acme issues' }).click();
    await page.getByText(/^Connected: the tracker knows the credential as casebook-bot/).waitFor();
    await look('admin-day-integrations');

    await page.goto(url('/admin/webhooks'));
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Team chat');
    await page.getByLabel('Endpoint').fill(`${receiver.url}/hook`);
    await page.getByLabel('Result recorded', { exact: true }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByText('Webhook "Team chat" created.').waitFor();
    await look('admin-day-webhooks');
  });

  it("links the tracker to the project in the project's settings", async () => {
    await page.goto(url('/project/DAY/settings'));
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Issue trackers' })
      .click();
    const section = page.getByRole('region', { name: 'Issue trackers' });
    await section.getByLabel('Tracker').selectOption({ label: 'Acme issues (Repository tracker)' });
    await section.getByLabel('Repository').fill('shop');
    await section.getByRole('button', { name: 'Link tracker' }).click();
    await section
      .getByRole('list', { name: 'Linked issue trackers' })
      .getByText('Repository: shop')
      .waitFor();
    await look('admin-day-project-trackers');
  });

  it('records a failing result with an issue link: the tracker gets its comment, the webhook its delivery', async () => {
    await page.goto(url(`/project/DAY/run/${runId}`));
    await page.getByRole('heading', { name: 'Pay by card', level: 2 }).waitFor();
    await page.getByLabel('Tracker').selectOption({ label: 'Acme issues' });
    const address = page.getByLabel('Address of the issue');
    await address.fill('https://git.test/acme/shop/issues/77');
    await page.getByLabel('Link text').fill('Declined cards');
    await page.getByText('(77, read from the address)').waitFor();
    await look('admin-day-run');
    await address.press('Escape');
    await page.keyboard.press('f');
    const row = page
      .getByRole('list', { name: 'Test cases of the run' })
      .getByRole('listitem')
      .filter({ hasText: 'Pay by card' });
    await expect.poll(() => row.textContent()).toContain('Failed');

    // The comment-back job (D24) posts on issue 77 with the token, linking back to the result.
    const comment = () => tracker.requests.find((r) => r.method === 'POST');
    await expect
      .poll(() => comment()?.url, { timeout: 20_000 })
      .toBe('/api/v3/repos/acme/shop/issues/77/comments');
    expect(comment()?.headers.authorization).toBe('Bearer ghp_day_token');
    expect(JSON.parse(comment()!.body).body).toContain(`/project/DAY/run/${runId}?tcase=1`);
    // The webhook's receiver gets the result, and the webhook's page lists the delivery with its code.
    await expect.poll(() => receiver.requests.length, { timeout: 20_000 }).toBe(1);
    expect(JSON.parse(receiver.requests[0].body)).toMatchObject({ event: 'result_created' });
    await page.goto(url('/admin/webhooks'));
    await page.getByRole('link', { name: 'Deliveries and settings of Team chat' }).click();
    await page.getByRole('heading', { name: 'Team chat', level: 1 }).waitFor();
    const deliveries = page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem');
    await expect.poll(() => deliveries.count()).toBe(1);
    await deliveries.first().getByText('result_created').waitFor();
    await deliveries.first().getByText('HTTP 200').waitFor();
    await look('admin-day-deliveries');
  });

  it('finds those actions in the audit log and exports them as CSV', async () => {
    await page.goto(url('/admin/audit-log'));
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    // Several actions picked from the list of every action the service records.
    await page
      .getByLabel('Action')
      .locator('option', { hasText: `(${ACTIONS[0]})` })
      .waitFor({ state: 'attached' });
    await page.getByLabel('Action').selectOption([...ACTIONS]);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/action=/);
    const events = page.getByRole('list', { name: 'Audit events' });
    await expect.poll(() => events.getByRole('listitem').count()).toBe(3);
    for (const action of ACTIONS) await events.getByText(action, { exact: true }).waitFor();
    await look('admin-day-audit-log');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const lines = fs
      .readFileSync((await download.path())!, 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('id,createdAt,action,userId,userName,userEmail,ip,userAgent,meta');
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[2])
        .sort(),
    ).toEqual([...ACTIONS].sort());
    for (const line of lines.slice(1)) expect(line).toContain(OWNER.email);
  });

  it('revokes a key on the API keys page, and the API refuses it from then on', async () => {
    const { key } = await api('POST', '/users/me/api-keys', { name: 'CI upload' });
    const withKey = () =>
      fetch(url('/api/public/v0/project'), { headers: { authorization: `ApiKey ${key}` } }).then(
        (r) => r.status,
      );
    expect(await withKey()).toBe(200);
    await page.goto(url('/admin/api-keys'));
    const keys = page.getByRole('list', { name: 'API keys of the service' });
    await keys.getByText('CI upload').waitFor();
    await page.getByRole('button', { name: `Revoke CI upload of ${OWNER.email}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText(`“CI upload” of ${OWNER.email} is revoked.`).waitFor();
    await look('admin-day-api-keys');
    expect(await withKey()).toBe(401);
  });

  it('is clean under axe at both sizes, without page errors', () => {
    expect(a11y).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
