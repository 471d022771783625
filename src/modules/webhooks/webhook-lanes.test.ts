import { beforeAll, expect, it } from 'vitest';
import { createJobRunner } from '../../jobs/index.js';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { createTcase } from '../../../test/helpers/tcase-factories.js';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.js';
import { createWebhook, deliveryHarness } from '../../../test/helpers/webhook-harness.js';
import { RESULT_LANES } from './webhook-delivery.job.js';

/*
 * Deliveries keep up with a busy run: a webhook's result events go out side by side (at most its lanes at once),
 * its run events one at a time in the order they happened, and a receiver that does not answer holds up only
 * its own webhook.
 */

async function until(done: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeEachDb(
  'webhooks: delivery lanes',
  (t) => {
    const h = deliveryHarness(t);
    let project: { id: string; code: string };
    let tcaseId: string;
    beforeAll(async () => {
      project = await createProject(t);
      tcaseId = (await createTcase(t, project)).id;
    });
    const batch = (runId: number) =>
      t.post(`/project/${project.code}/run/${runId}/result/batch`, {
        items: [{ tcaseId, status: 'passed' }],
      });

    it("sends a webhook's result events side by side, never more than its lanes at once, and its run events one at a time in order", async () => {
      let inFlight = { results: 0, runs: 0 };
      const most = { results: 0, runs: 0 };
      h.receiver.respond = async (req) => {
        const kind = JSON.parse(req.body).event === 'results_created' ? 'results' : 'runs';
        inFlight = { ...inFlight, [kind]: inFlight[kind] + 1 };
        most[kind] = Math.max(most[kind], inFlight[kind]);
        await new Promise((r) => setTimeout(r, 30));
        inFlight = { ...inFlight, [kind]: inFlight[kind] - 1 };
        return { status: 200 };
      };
      await createWebhook(t, {
        endpoint: `${h.receiver.url}/busy`,
        eventTypes: ['results_created', 'run_updated'],
      });
      const run = await createRun(t, project, { tcaseIds: [tcaseId] });
      const titles = Array.from({ length: 5 }, (_, i) => `Renamed ${i}`);
      for (const [i, title] of titles.entries()) {
        expect((await batch(run.id)).status).toBe(201);
        expect((await batch(run.id)).status).toBe(201);
        expect((await batch(run.id)).status).toBe(201);
        expect((await batch(run.id)).status).toBe(201);
        expect((await t.patch(`/project/${project.code}/run/${run.id}`, { title })).status, String(i)).toBe(
          200,
        );
      }
      await h.drain();
      const bodies = h.receiver.requests.map((r) => JSON.parse(r.body));
      expect(bodies.filter((b) => b.event === 'results_created')).toHaveLength(20);
      expect(bodies.filter((b) => b.event === 'run_updated').map((b) => b.object.title)).toEqual(titles);
      expect(most.results).toBeGreaterThan(1);
      expect(most.results).toBeLessThanOrEqual(RESULT_LANES);
      expect(most.runs).toBe(1);
    });

    it("delivers other webhooks' events while one receiver does not answer, and that one's when it does", async () => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const stuck: Receiver = await startReceiver();
      stuck.respond = async () => {
        await released;
        return { status: 200 };
      };
      try {
        await createWebhook(t, { endpoint: `${stuck.url}/stuck`, eventTypes: ['results_created'] });
        await createWebhook(t, { endpoint: `${h.receiver.url}/healthy`, eventTypes: ['results_created'] });
        const run = await createRun(t, project, { tcaseIds: [tcaseId] });
        for (let i = 0; i < 20; i++) expect((await batch(run.id)).status).toBe(201);
        const runner = createJobRunner(t.db, t.config, t.app.ctx, { concurrency: 4, pollMs: 100 });
        runner.start();
        try {
          await until(() => h.receiver.requests.length === 20);
          // The stuck receiver holds its lanes' first deliveries, no more.
          expect(stuck.requests.length).toBeGreaterThan(0);
          expect(stuck.requests.length).toBeLessThanOrEqual(RESULT_LANES);
          release();
          await until(() => stuck.requests.length === 20);
        } finally {
          release();
          await runner.stop();
        }
      } finally {
        await stuck.close();
      }
    });
  },
  { env: { CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
