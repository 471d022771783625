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
  type SessionApi,
} from './browser-env.js';
import { createPostgresDatabase, POSTGRES_URL, type TestDatabase } from '../helpers/databases.js';

if (!hasChromium) {
  console.log(
    `[casebook] admin settings, custom fields and statuses browser tests SKIPPED: no Chromium at ${CHROMIUM}`,
  );
}

/**
 * The administration pages as an admin walks them: a project's settings (members, configurations, the shared-step library
 * with the cases an edit reaches, tracker links) and the service's custom fields and result statuses, each used
 * where it shows (the case editor, the run page, the cases that include a shared step).
 */
// The admin day runs on both databases: this walk too, on PostgreSQL when CASEBOOK_TEST_POSTGRES_URL is set.
const targets = POSTGRES_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
describe.skipIf(!hasChromium).each(targets)(
  'administration pages (project settings, custom fields, statuses) on %s',
  (target) => {
    let database: TestDatabase | undefined;
    let service: RunningService;
    let browser: Browser;
    let page: Page;
    let api: SessionApi;
    const a11y: string[] = [];
    const pageErrors: string[] = [];
    const url = (path: string) => `${service.baseUrl}${path}`;
    const look = async (name: string, dark = false) => a11y.push(...(await inspect(page, name, { dark })));
    let folderId = 0;
    let vera = 0;
    const settingsNav = () => page.getByRole('navigation', { name: 'Settings sections' });

    beforeAll(async () => {
      ensureBuilt();
      if (target === 'postgres') database = await createPostgresDatabase(POSTGRES_URL!);
      service = await startService(database ? { CASEBOOK_DATABASE_URL: database.url } : {});
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      api = sessionApi(page, service.baseUrl);
      await signIn(page, service.baseUrl);
      await api('POST', '/project', { code: 'ADA', title: 'Admin day' });
      folderId = (await api('POST', '/project/ADA/tcase/folder/bulk', { folders: [{ path: ['Checkout'] }] }))
        .ids[0][0];
      // A viewer who is not yet a member of the project.
      const { link } = await api('POST', '/users/invitations', { email: 'vera@example.com', role: 'viewer' });
      const registered = await fetch(url('/api/auth/register'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          token: String(link).split('/').pop(),
          name: 'Vera Viewer',
          password: 'vera pw 12345',
        }),
      });
      expect(registered.status).toBe(201);
      vera = ((await registered.json()) as { id: number }).id;
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await service?.stop();
      await database?.drop();
    });

    it('adds and removes a member, naming who sees the project', async () => {
      await page.goto(url('/project/ADA/settings'));
      await settingsNav().getByRole('link', { name: 'Members' }).click();
      const section = page.getByRole('region', { name: 'Members' });
      await section.getByRole('list', { name: 'Admins and the owner' }).getByText('Owner').waitFor();
      // Nothing chosen: said beside the select, nothing sent.
      await section.getByRole('button', { name: 'Add member' }).click();
      await section.getByText('Choose the person to add.').waitFor();
      await section.getByLabel('Add a member').selectOption({ label: 'Vera Viewer (Viewer)' });
      await section.getByRole('button', { name: 'Add member' }).click();
      await section.getByText('Vera Viewer can now see the project.').waitFor();
      await section.getByRole('list', { name: 'Members' }).getByText('Vera Viewer').waitFor();
      expect(
        (await api('GET', '/project/ADA/member')).members.map((m: { userId: number }) => m.userId),
      ).toContain(vera);
      await look('admin-members');
      await section.getByRole('button', { name: 'Remove Vera Viewer' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove Vera Viewer?' });
      await dialog.getByRole('button', { name: 'Remove member' }).click();
      await dialog.waitFor({ state: 'detached' });
      await section.getByText('No members besides admins').waitFor();
    });

    it('creates, refuses a duplicate of, renames and deletes a configuration', async () => {
      await settingsNav().getByRole('link', { name: 'Configurations' }).click();
      const section = page.getByRole('region', { name: 'Configurations' });
      await section.getByLabel('New configuration').fill('Chrome on Linux');
      await section.getByRole('button', { name: 'Add configuration' }).click();
      await section.getByRole('list', { name: 'Configurations' }).getByText('Chrome on Linux').waitFor();
      // The same title again: the service's refusal is shown, and what was typed stays.
      await section.getByLabel('New configuration').fill('Chrome on Linux');
      await section.getByRole('button', { name: 'Add configuration' }).click();
      await section.getByText('The project already has a configuration titled "Chrome on Linux".').waitFor();
      expect(await section.getByLabel('New configuration').inputValue()).toBe('Chrome on Linux');
      await look('admin-configurations');
      await section.getByRole('button', { name: 'Rename Chrome on Linux' }).click();
      const rename = page.getByRole('dialog', { name: 'Rename Chrome on Linux' });
      await rename.getByLabel('Title').fill('Firefox on Linux');
      await rename.getByRole('button', { name: 'Rename' }).click();
      await rename.waitFor({ state: 'detached' });
      // A run made for it: the delete dialog counts it.
      const [config] = (await api('GET', '/project/ADA/configuration')).configurations;
      await api('POST', '/project/ADA/run', {
        title: 'On Firefox',
        type: 'static_struct',
        configurationId: config.id,
        queryPlans: [{ tcaseIds: [] }],
      });
      await section.getByRole('button', { name: 'Delete Firefox on Linux' }).click();
      const del = page.getByRole('dialog', { name: 'Delete Firefox on Linux?' });
      await del.getByText('1 run uses it (still open)').waitFor();
      await look('admin-configuration-delete');
      await del.getByRole('button', { name: 'Delete configuration' }).click();
      await del.waitFor({ state: 'detached' });
      expect((await api('GET', '/project/ADA/configuration')).configurations).toEqual([]);
    });

    it('creates a shared step, two cases use it, and an edit names both before it changes both', async () => {
      await settingsNav().getByRole('link', { name: 'Shared steps' }).click();
      const section = page.getByRole('region', { name: 'Shared steps' });
      await section.getByRole('button', { name: 'New shared step' }).click();
      await section.getByRole('button', { name: 'Create shared step' }).click();
      await section.getByText('Give the shared step a title.').waitFor();
      await section.getByLabel('Title').fill('Sign in as a customer');
      await section.getByRole('textbox', { name: 'Sub-step 1 description' }).fill('Open the sign-in page');
      await section.getByRole('textbox', { name: 'Sub-step 1 expected result' }).fill('The form shows');
      await section.getByRole('button', { name: 'Create shared step' }).click();
      const list = section.getByRole('list', { name: 'Shared steps' });
      await list.getByRole('heading', { name: 'Sign in as a customer' }).waitFor();
      await list.getByText('Used by no test case.').waitFor();

      const stepId = (await api('GET', '/project/ADA/shared-step')).sharedSteps[0].id;
      for (const title of ['Pay by card', 'Pay by invoice'])
        await api('POST', '/project/ADA/tcase', {
          title,
          type: 'standalone',
          priority: 'medium',
          folderId,
          steps: [{ sharedStepId: stepId }],
        });
      await page.reload();
      await list.getByText('Used by 2 test cases').click();
      await list.getByRole('link', { name: 'ADA-1' }).waitFor();
      await list.getByRole('link', { name: 'ADA-2' }).waitFor();
      await look('admin-shared-steps');

      await list.getByRole('button', { name: 'Edit Sign in as a customer' }).click();
      const reach = section.getByRole('list', { name: 'Test cases this change reaches' });
      await reach.getByText('Pay by card').waitFor();
      await reach.getByText('Pay by invoice').waitFor();
      await section.getByText('Saving changes 2 test cases').waitFor();
      await section
        .getByRole('textbox', { name: 'Sub-step 1 description' })
        .fill('Open the new sign-in page');
      await look('admin-shared-step-edit');
      await section.getByRole('button', { name: 'Save changes' }).click();
      await list.getByText('Open the new sign-in page').waitFor();
      // Both cases show the new version.
      for (const seq of [1, 2]) {
        await page.goto(url(`/project/ADA/tcase/${seq}`));
        await page.getByText('Open the new sign-in page').waitFor();
      }
      // In use: the delete says so and lists who uses it, and deletes nothing.
      await page.goto(url('/project/ADA/settings/shared-steps'));
      await page.getByRole('button', { name: 'Delete Sign in as a customer' }).click();
      const inUse = page.getByRole('dialog', { name: 'Sign in as a customer is in use' });
      await inUse.getByText('2 test cases use this shared step').waitFor();
      await inUse.getByRole('button', { name: 'Close' }).click();
    });

    it('says no tracker is set up, then links one, asking for its repository first', async () => {
      await settingsNav().getByRole('link', { name: 'Issue trackers' }).click();
      const section = page.getByRole('region', { name: 'Issue trackers' });
      await section.getByText('No issue tracker is linked.').waitFor();
      await section.getByText('The service has no issue tracker set up yet').waitFor();
      const made = await api('POST', '/integration', {
        name: 'Shop tracker',
        type: 'tracker_a',
        config: { account: 'acme' },
      });
      await page.reload();
      await section.getByLabel('Tracker').selectOption({ label: 'Shop tracker (Repository tracker)' });
      await section.getByRole('button', { name: 'Link tracker' }).click();
      await section.getByText('Repository is needed for this tracker.').waitFor();
      await section.getByLabel('Repository').fill('shop');
      await section.getByRole('button', { name: 'Link tracker' }).click();
      await section
        .getByRole('list', { name: 'Linked issue trackers' })
        .getByText('Repository: shop')
        .waitFor();
      expect((await api('GET', '/project/ADA/integration')).integrations).toMatchObject([
        { integrationId: made.id, config: { repo: 'shop' } },
      ]);
      await look('admin-trackers');
    });

    it('creates a dropdown custom field limited to the project, and a case takes its value', async () => {
      await page.goto(url('/admin/custom-fields'));
      await page.getByRole('heading', { name: 'Custom fields', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New custom field' }).click();
      await page.getByLabel('Type').selectOption('dropdown');
      await page.getByLabel('Name', { exact: true }).fill('Browser');
      expect(await page.getByLabel('System name').inputValue()).toBe('browser');
      // A dropdown without options: the service's refusal beside the options.
      await page.getByRole('button', { name: 'Create field' }).click();
      await page.getByText('A dropdown field needs 1-100 options.').waitFor();
      await page.getByRole('button', { name: 'Add an option' }).click();
      await page.getByRole('textbox', { name: 'Option 1' }).fill('Chrome');
      await page.getByRole('button', { name: 'Add an option' }).click();
      await page.getByRole('textbox', { name: 'Option 2' }).fill('Firefox');
      await page.getByLabel('Default', { exact: true }).selectOption('Firefox');
      await page.getByLabel('Every project, also those made later').uncheck();
      await page.getByRole('group', { name: 'Only these projects' }).getByLabel('ADA · Admin day').check();
      await look('admin-custom-field-new');
      await page.getByRole('button', { name: 'Create field' }).click();
      const fields = page.getByRole('list', { name: 'Custom fields, in order' });
      await fields.getByRole('heading', { name: 'Browser' }).waitFor();
      await fields.getByText('Only 1 project').waitFor();

      // A second field, then reordered above the first.
      await page.getByRole('button', { name: 'New custom field' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Ticket');
      await page.getByRole('button', { name: 'Create field' }).click();
      await fields.getByRole('heading', { name: 'Ticket' }).waitFor();
      await page.getByRole('button', { name: 'Move Ticket up' }).click();
      await expect
        .poll(async () =>
          (await api('GET', '/custom-field')).customFields.map((f: { name: string }) => f.name),
        )
        .toEqual(['Ticket', 'Browser']);
      await page.getByRole('button', { name: 'Disable Ticket' }).click();
      await page.getByRole('button', { name: 'Enable Ticket' }).waitFor();
      await look('admin-custom-fields', true);

      await page.goto(url(`/project/ADA/tcase/new?folder=${folderId}`));
      await page.getByRole('heading', { name: 'New test case' }).waitFor();
      await page.getByLabel('Title').fill('Pay with a voucher');
      await page.getByLabel('Browser').selectOption('Chrome');
      // The disabled field is not offered.
      expect(await page.getByLabel('Ticket').count()).toBe(0);
      await page.getByRole('button', { name: 'Create case' }).first().click();
      await page.getByRole('heading', { name: 'Pay with a voucher', level: 1 }).waitFor();
      const made = await api('GET', '/project/ADA/tcase/3');
      expect(made.customFields.browser).toMatchObject({ value: 'Chrome' });
    });

    it('deletes a custom field after saying how many cases lose their value', async () => {
      await page.goto(url('/admin/custom-fields'));
      await page.getByRole('button', { name: 'Delete Browser' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete Browser?' });
      await dialog.getByText('1 test case (1 version) hold a value of this field').waitFor();
      await look('admin-custom-field-delete');
      await dialog.getByRole('button', { name: 'Delete field' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect((await api('GET', '/project/ADA/tcase/3')).customFields).toEqual({});
    });

    it('names, colours and switches on a custom status, previewed in both themes and offered on the run page', async () => {
      await page.goto(url('/admin/statuses'));
      await page.getByRole('heading', { name: 'Result statuses', level: 1 }).waitFor();
      await page.getByLabel('Status 1 name').fill('');
      await page.getByRole('button', { name: 'Save statuses' }).click();
      await page.getByText('Give the status a name.').waitFor();
      await page.getByLabel('Status 1 name').fill('Flaky');
      await page.getByLabel('Status 1 colour').selectOption('purple');
      await page
        .getByRole('group', { name: /Custom status 1/ })
        .getByLabel('Offered on the run page')
        .check();
      for (const theme of ['light', 'dark'])
        await page
          .getByRole('list', { name: `Statuses in the ${theme} theme` })
          .getByText('Flaky')
          .waitFor();
      await look('admin-statuses', true);
      await page.getByRole('button', { name: 'Save statuses' }).click();
      await page.getByText('Saved: the run page offers the switched-on statuses.').waitFor();
      const saved = (await api('GET', '/settings/preferences/status')).statuses;
      expect(saved.find((s: { id: string }) => s.id === 'custom1')).toMatchObject({
        name: 'Flaky',
        color: 'purple',
        isActive: true,
      });

      const tcaseId = (await api('GET', '/project/ADA/tcase/1')).id;
      const run = await api('POST', '/project/ADA/run', {
        title: 'Smoke',
        type: 'static_struct',
        queryPlans: [{ tcaseIds: [tcaseId] }],
      });
      await page.goto(url(`/project/ADA/run/${run.id}`));
      const recorder = page.getByRole('region', { name: 'Record a result' });
      await recorder.getByRole('button', { name: /Flaky/ }).click();
      await expect
        .poll(
          async () => (await api('GET', `/project/ADA/run/${run.id}/tcase/${tcaseId}`)).results[0]?.status,
        )
        .toBe('custom1');
      // Switching it off names the results recorded with it, which keep it.
      await page.goto(url('/admin/statuses'));
      const flaky = page.getByRole('group', { name: /Custom status 1/ });
      await flaky.getByText('1 result was recorded with “Flaky”.').waitFor();
      await flaky.getByLabel('Offered on the run page').uncheck();
      await flaky
        .getByText(
          'Switching it off: 1 result was recorded with “Flaky”; it keeps it, but no new result can use it.',
        )
        .waitFor();
      await look('admin-status-off');
    });

    it('tells a viewer the admin pages are not theirs, and hides the sections their role may not use', async () => {
      await api('POST', '/project/ADA/member', { userId: vera });
      const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
      const viewer = await ctx.newPage();
      viewer.on('pageerror', (e) => pageErrors.push(String(e)));
      try {
        await signIn(viewer, service.baseUrl, { email: 'vera@example.com', password: 'vera pw 12345' });
        await viewer.goto(url('/admin/custom-fields'));
        await viewer.getByText('You need the admin role to manage custom fields.').waitFor();
        await viewer.goto(url('/admin/statuses'));
        await viewer.getByText('You need the admin role to change the result statuses.').waitFor();
        await viewer.goto(url('/project/ADA/settings/members'));
        await viewer.getByRole('heading', { name: 'Members: not allowed' }).waitFor();
        const nav = viewer.getByRole('navigation', { name: 'Settings sections' });
        expect(await nav.getByRole('link').allInnerTexts()).toEqual(['General', 'Issue trackers']);
      } finally {
        await ctx.close();
      }
    });

    it('has no serious or critical accessibility violation and no script error on any page', () => {
      expect(a11y).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
