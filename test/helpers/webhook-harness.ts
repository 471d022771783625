import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createJobRunner } from '../../src/jobs/index.js';
import { startReceiver, type Receiver } from './receiver.js';
import type { TestEnv } from './test-app.js';

/** Everything a test needs to watch deliveries: a receiver on 127.0.0.1 and a runner on an injected clock. */
export function deliveryHarness(t: TestEnv) {
  const h = {
    receiver: undefined as unknown as Receiver,
    clock: Date.now(),
    runner: () =>
      createJobRunner(t.db, t.config, t.app.ctx, {
        now: () => h.clock,
        random: () => 1,
        concurrency: 4,
        leaseMs: 60_000,
      }),
    /** Runs what is due; the clock first catches up with real time (jobs are stamped with it). */
    drain: () => {
      if (h.clock < Date.now()) h.clock = Date.now();
      return h.runner().drain();
    },
  };
  beforeAll(async () => {
    h.receiver = await startReceiver();
  });
  afterAll(async () => h.receiver.close());
  beforeEach(async () => {
    await t.db.deleteFrom('jobs').execute();
    await t.db.deleteFrom('webhooks').execute();
    h.receiver.requests.length = 0;
    h.receiver.respond = () => ({ status: 200, body: 'ok' });
    h.clock = Date.now();
  });
  return h;
}

export async function createWebhook(t: TestEnv, body: Record<string, unknown>): Promise<string> {
  const res = await t.post('/webhook', {
    name: `hook ${Math.random()}`,
    eventTypes: ['run_created'],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

export const deliveries = async (t: TestEnv, webhookId: string) => {
  const res = await t.get(`/webhook/${webhookId}/delivery`);
  expect(res.status).toBe(200);
  return res.body.deliveries as any[];
};
