import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { addResult, createRun } from '../../../test/helpers/run-factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import { createWebhook, deliveryHarness } from '../../../test/helpers/webhook-harness.js';

/** The events of edits: run_updated (a run's own fields) and tcases_edited (one per bulk request). */
describeEachDb(
  'webhooks: edit events',
  (t) => {
    const h = deliveryHarness(t);
    let project: { id: string; code: string };
    beforeAll(async () => {
      project = await createProject(t);
    });
    const received = () => h.receiver.requests.map((r) => JSON.parse(r.body));

    it('sends run_updated naming the fields that changed, and nothing for results or an edit that changes nothing', async () => {
      await createWebhook(t, { endpoint: `${h.receiver.url}/runs`, eventTypes: ['run_updated'] });
      const tc = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [tc.id] });
      const milestone = (await t.post(`/project/${project.code}/milestone`, { title: `M ${Date.now()}` }))
        .body;
      const url = `/project/${project.code}/run/${run.id}`;
      expect((await t.patch(url, { title: 'Nightly, renamed', milestoneId: milestone.id })).status).toBe(200);
      await addResult(t, project, run.id, tc.id, 'passed');
      // The same values again: no update.
      expect((await t.patch(url, { title: 'Nightly, renamed' })).status).toBe(200);
      await h.drain();
      const got = received();
      expect(got.map((b) => b.event)).toEqual(['run_updated']);
      expect(got[0].project.id).toBe(project.id);
      expect(got[0].object).toMatchObject({
        id: run.id,
        title: 'Nightly, renamed',
        changed: ['title', 'milestoneId'],
        milestoneId: milestone.id,
      });
    });

    it('sends nothing for a run edit that is refused', async () => {
      await createWebhook(t, { endpoint: `${h.receiver.url}/refused`, eventTypes: ['run_updated'] });
      const run = await createRun(t, project);
      const res = await t.patch(`/project/${project.code}/run/${run.id}`, { milestoneId: 999_999 });
      expect(res.status).toBe(400);
      await h.drain();
      expect(received()).toEqual([]);
    });

    it('sends plan_updated for a plan edited, given runs and closed, with run_updated and run_closed for its runs', async () => {
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/plans`,
        eventTypes: ['plan_updated', 'run_updated', 'run_closed'],
      });
      const tc = await createTcase(t, project);
      const milestone = (await t.post(`/project/${project.code}/milestone`, { title: `P ${Date.now()}` }))
        .body;
      const runBody = (title: string) => ({ title, queryPlans: [{ tcaseIds: [tc.id] }] });
      const planId = (
        await t.post(`/project/${project.code}/plan`, { title: `Plan ${Date.now()}`, runs: [runBody('one')] })
      ).body.id;
      const url = `/project/${project.code}/plan/${planId}`;
      expect((await t.patch(url, { title: 'Moved plan', milestoneId: milestone.id })).status).toBe(200);
      const added = (await t.post(`${url}/run`, { runs: [runBody('two')] })).body.runIds[0];
      expect((await t.post(`${url}/close`)).status).toBe(200);
      await h.drain();
      const got = received().map((b) => [b.event, b.object]);
      const first = got[0]![1].id;
      expect(got).toEqual([
        // Its run follows the plan's milestone, in the edit's transaction.
        ['run_updated', expect.objectContaining({ changed: ['milestoneId'], milestoneId: milestone.id })],
        [
          'plan_updated',
          {
            id: planId,
            title: 'Moved plan',
            changed: ['title', 'milestoneId'],
            milestoneId: milestone.id,
            closed: false,
            runIds: [first],
          },
        ],
        [
          'plan_updated',
          expect.objectContaining({ changed: ['runs'], runIds: [first, added], closed: false }),
        ],
        ['run_closed', { id: first, title: 'one' }],
        ['run_closed', { id: added, title: 'two' }],
        ['plan_updated', expect.objectContaining({ changed: ['closed'], closed: true })],
      ]);
    });

    it('sends one tcases_edited per bulk move or tag request, with the cases that changed', async () => {
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/tcases`,
        eventTypes: ['tcases_edited', 'tcase_edited'],
      });
      const a = await createTcase(t, project, { title: 'A' });
      const b = await createTcase(t, project, { title: 'B' });
      const to = await createFolder(t, project, [`Moved ${Date.now()}`]);
      const move = await t.post(`/project/${project.code}/tcase/bulk/move`, {
        tcaseIds: [a.id, b.id],
        folderId: to,
      });
      expect(move.status, JSON.stringify(move.body)).toBe(200);
      const tag = await t.post(`/project/${project.code}/tcase/bulk/tags`, {
        tcaseIds: [a.id],
        addTags: ['smoke'],
      });
      expect(tag.status, JSON.stringify(tag.body)).toBe(200);
      // Moving them where they already are changes nothing: no event.
      await t.post(`/project/${project.code}/tcase/bulk/move`, { tcaseIds: [a.id, b.id], folderId: to });
      await h.drain();
      const got = received();
      expect(got.map((g) => g.event)).toEqual(['tcases_edited', 'tcases_edited']);
      expect(got[0].object).toEqual({ action: 'moved', count: 2, tcaseIds: [a.id, b.id], folderId: to });
      expect(got[1].object).toEqual({
        action: 'tagged',
        count: 1,
        tcaseIds: [a.id],
        addTags: ['smoke'],
        removeTags: [],
      });
    });

    it('writes no outbox row for an event no enabled webhook takes (its type, its project), and sends the ones taken', async () => {
      const tc = await createTcase(t, project);
      const run = await createRun(t, project, { tcaseIds: [tc.id] });
      const other = await createProject(t);
      const events = async () =>
        (await t.db.selectFrom('jobs').select('payload').where('kind', '=', 'webhook.event').execute()).map(
          (j) => JSON.parse(j.payload).type as string,
        );
      const before = (await events()).length;
      await createWebhook(t, { endpoint: `${h.receiver.url}/other-type`, eventTypes: ['run_closed'] });
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/other-project`,
        eventTypes: ['result_created'],
        allowAllProjects: false,
        projectIds: [other.id],
      });
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/disabled`,
        eventTypes: ['result_created'],
        enabled: false,
      });
      await addResult(t, project, run.id, tc.id, 'passed');
      expect((await events()).length).toBe(before);

      await createWebhook(t, { endpoint: `${h.receiver.url}/taken`, eventTypes: ['result_created'] });
      const id = await addResult(t, project, run.id, tc.id, 'failed');
      expect((await events()).slice(before)).toEqual(['result_created']);
      await h.drain();
      expect(received().map((b) => [b.event, b.object.id])).toEqual([['result_created', id]]);
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
