import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import {
  generated,
  importFailingAtChunk,
  importFile,
  listCases,
} from '../../../test/helpers/import-factories.js';
import { createWebhook, deliveryHarness } from '../../../test/helpers/webhook-harness.js';

/** An import tells webhooks what the API's bulk writes would: tcases_created and tcases_edited, per chunk. */
describeEachDb(
  'imports: webhook events',
  (t) => {
    const h = deliveryHarness(t);
    const received = () => h.receiver.requests.map((r) => JSON.parse(r.body));
    const csv = (title: string) => Buffer.from(`Folder,Name,Legacy ID\r\nA,${title},E-1\r\nA/B,Two,E-2\r\n`);

    it('sends tcases_created for the cases an import creates and tcases_edited for those it changes, nothing for a dry run', async () => {
      const p = await createProject(t);
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/cases`,
        eventTypes: ['tcases_created', 'tcases_edited', 'tcase_created', 'tcase_edited'],
      });
      const first = await importFile(t, p.code, csv('One'));
      expect(first).toMatchObject({ status: 'done', created: 2 });
      await h.drain();
      const [one, two] = await listCases(t, p.code);
      expect(received()).toMatchObject([
        {
          event: 'tcases_created',
          project: { id: p.id },
          object: {
            importId: first.id,
            tcases: [
              { id: one.id, seq: one.seq, title: 'One', folderId: one.folderId },
              { id: two.id, seq: two.seq, title: 'Two', folderId: two.folderId },
            ],
          },
        },
      ]);
      h.receiver.requests.length = 0;
      await importFile(t, p.code, csv('One renamed'), { dryRun: 'true' });
      const second = await importFile(t, p.code, csv('One renamed'));
      expect(second).toMatchObject({ status: 'done', created: 0, updated: 1 });
      // The same file again changes nothing and says nothing.
      await importFile(t, p.code, csv('One renamed'));
      await h.drain();
      expect(received().map((b) => [b.event, b.object])).toEqual([
        ['tcases_edited', { action: 'imported', importId: second.id, count: 1, tcaseIds: [one.id] }],
      ]);
    });

    it('sends tcases_edited naming what it took back when it fails part-way', async () => {
      const p = await createProject(t);
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/back`,
        eventTypes: ['tcases_created', 'tcases_edited'],
      });
      const importId = await importFailingAtChunk(t, p.code, generated(600, 1), 2);
      await h.drain();
      const got = received();
      expect(got.map((b) => [b.event, b.object.action])).toEqual([
        ['tcases_created', undefined],
        ['tcases_edited', 'import_taken_back'],
      ]);
      const created = got[0].object.tcases.map((c: any) => c.id);
      expect(created).toHaveLength(500);
      expect(got[1].object).toEqual({
        action: 'import_taken_back',
        importId,
        count: 500,
        deletedTcaseIds: created,
        revertedTcaseIds: [],
        restoredTcaseIds: [],
      });
      expect(await listCases(t, p.code)).toEqual([]);
    });

    it('names in its take-back only what it took back: not a case someone deleted or restored meanwhile', async () => {
      const p = await createProject(t);
      const header = 'Folder,Type,Name,Legacy ID,Parameter Values';
      const sets = (...roles: string[]) =>
        `"${JSON.stringify(roles.map((role) => ({ values: { role } }))).replaceAll('"', '""')}"`;
      const template = (...roles: string[]) => `Auth,template,Log in as \${role},T-1,${sets(...roles)}`;
      const logOut = (title: string) => `Auth,,${title},S-1,`;
      await importFile(
        t,
        p.code,
        Buffer.from(`${header}\r\n${template('admin', 'guest')}\r\n${logOut('Log out')}\r\n`),
      );
      const guest = (await listCases(t, p.code)).find((c) => c.title === 'Log in as guest')!;
      const standalone = (await listCases(t, p.code)).find((c) => c.title === 'Log out')!;
      await createWebhook(t, { endpoint: `${h.receiver.url}/restored`, eventTypes: ['tcases_edited'] });
      // The first chunk drops guest's filled case and renames "Log out"; the second fails. Before the take-back
      // reverts and restores, guest is back and "Log out" is deleted.
      const bulk = Array.from({ length: 600 }, (_, i) => `Bulk,,Case ${i},G-${i},`);
      const file = Buffer.from(
        [header, template('admin'), logOut('Sign out'), ...bulk].join('\r\n') + '\r\n',
      );
      await importFailingAtChunk(t, p.code, file, 2, async (trx, call) => {
        // The take-back's first step (deleting what the import created), before it reverts and restores.
        if (call !== 3) return;
        await trx.updateTable('tcases').set({ deleted_at: null }).where('id', '=', guest.id).execute();
        await trx
          .updateTable('tcases')
          .set({ deleted_at: new Date().toISOString() })
          .where('id', '=', standalone.id)
          .execute();
      });
      await h.drain();
      const back = received().find((b) => b.object.action === 'import_taken_back');
      // 498 bulk cases deleted; the template's content did not change (only its filled set), "Log out" is gone.
      expect(back.object).toMatchObject({ count: 498, revertedTcaseIds: [], restoredTcaseIds: [] });
      expect(back.object.deletedTcaseIds).toHaveLength(498);
      expect((await listCases(t, p.code)).map((c) => c.title).sort()).toEqual([
        'Log in as ${role}',
        'Log in as admin',
        'Log in as guest',
      ]);
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
