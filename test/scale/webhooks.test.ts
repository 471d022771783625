import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/databases.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  POSTGRES_SKIP_NOTE,
  client,
  createScaleDatabase,
  killLeftovers,
  ok,
  resultBatch,
  seedRun,
  waitUntil,
  startServer,
  type ScaleDatabase,
} from './servers.js';

/**
 * A server killed (SIGKILL) in the middle of a webhook delivery. After a restart on the same database
 * the delivery is sent again once its lease has expired, with the same event id and delivery id, and every
 * event arrives; nothing else is sent twice. The receiver listens on 127.0.0.1 (private addresses allowed).
 */

const BATCHES = 6;
/** The delivery of this batch's event is the one in flight when the server dies. */
const KILL_AT = 3;

// The server processes inherit the environment (servers.ts spawnServer).
process.env.CASEBOOK_WEBHOOK_ALLOW_PRIVATE = 'true';
process.env.CASEBOOK_JOB_LEASE_SECONDS = '11';
process.env.CASEBOOK_SECRET_KEY = 'scale-test-secret-key-0123';

for (const target of ['sqlite', 'postgres'] as const) {
  const title = `a server killed (SIGKILL) mid-delivery on ${target === 'sqlite' ? 'SQLite (a file)' : 'PostgreSQL'}`;
  const skip = target === 'postgres' && !POSTGRES_URL;
  const note = POSTGRES_SKIP_NOTE;

  (skip ? describe.skip : describe)(skip ? `${title} (${note})` : title, () => {
    let database: ScaleDatabase | undefined;
    let receiver: Receiver | undefined;

    afterAll(async () => {
      killLeftovers();
      await receiver?.close();
      await database?.drop();
    }, 60_000);

    it('sends the interrupted delivery again after a restart, with the same event id, and every event arrives', async () => {
      database = await createScaleDatabase(target);
      receiver = await startReceiver();
      let release: (() => void) | undefined;
      let hung: Promise<void> | undefined;
      let answered = 0;
      receiver.respond = () => {
        if (receiver!.requests.length === KILL_AT && !hung) {
          // Never answered while the server lives: it dies with the request in flight.
          hung = new Promise<void>((resolve) => (release = resolve));
          return hung.then(() => ({ status: 200 }));
        }
        answered++;
        return { status: 200 };
      };

      const first = await startServer({ databaseUrl: database.url, dataDir: database.dataDir });
      const key = first.bannerKey();
      expect(key, first.output()).toBeDefined();
      const api = client(first.url, key!);
      const { code, tcaseIds, runId } = await seedRun(api, 'WHK', 20, 'Hooks');
      const hook = ok(
        await api.post('/webhook', {
          name: 'CI',
          endpoint: `${receiver.url}/hook`,
          secret: 'scale-hook-secret',
          eventTypes: ['results_created'],
        }),
        'create webhook',
      ) as { id: string };
      for (let i = 0; i < BATCHES; i++) {
        ok(
          await api.post(`/project/${code}/run/${runId}/result/batch`, resultBatch(tcaseIds, 5, `b${i}`, i)),
          'batch',
        );
      }
      await waitUntil(() => hung !== undefined, 'the delivery to hang', 30_000, first.output);
      // Result deliveries go out side by side: the others are answered and recorded while one hangs.
      let recorded = 0;
      for (const deadline = Date.now() + 30_000; recorded < BATCHES - 1 && Date.now() < deadline;) {
        const page = ok(await api.get(`/webhook/${hook.id}/delivery`), 'deliveries') as {
          deliveries: { status: string }[];
        };
        recorded = page.deliveries.filter((d) => d.status === 'succeeded').length;
        if (recorded < BATCHES - 1) await new Promise((r) => setTimeout(r, 100));
      }
      expect(recorded, first.output()).toBe(BATCHES - 1);
      await first.kill();
      release!();

      const second = await startServer({ databaseUrl: database.url, dataDir: database.dataDir });
      await waitUntil(() => receiver!.requests.length >= BATCHES + 1, 'every event', 60_000, second.output);
      await new Promise((r) => setTimeout(r, 500));
      expect(await second.stop()).toBe(0);

      const requests = receiver.requests;
      expect(requests).toHaveLength(BATCHES + 1);
      const eventIds = requests.map((r) => r.headers['x-casebook-event-id'] as string);
      expect(new Set(eventIds).size).toBe(BATCHES);
      const interrupted = requests[KILL_AT - 1];
      const again = requests.filter(
        (r) => r.headers['x-casebook-event-id'] === interrupted.headers['x-casebook-event-id'],
      );
      expect(again).toHaveLength(2);
      expect(again[1].headers['x-casebook-delivery']).toBe(interrupted.headers['x-casebook-delivery']);
      expect(again[1].body).toBe(interrupted.body);
      // Sent again only after the lease (11 s) ran out.
      expect(again[1].at - interrupted.at).toBeGreaterThanOrEqual(10_000);
      // One results_created per batch request, each with its five results.
      expect(requests.every((r) => JSON.parse(r.body).object.count === 5)).toBe(true);
      expect(answered).toBe(BATCHES);
    }, 180_000);
  });
}

describe('webhooks with serve --workers 2 on SQLite (a file)', () => {
  let database: ScaleDatabase | undefined;
  let receiver: Receiver | undefined;
  afterAll(async () => {
    killLeftovers();
    await receiver?.close();
    await database?.drop();
  }, 60_000);

  it('delivers every event once, never one delivery twice at a time, while two processes claim jobs from one file', async () => {
    database = await createScaleDatabase('sqlite');
    receiver = await startReceiver();
    const inFlight = new Set<string>();
    let overlaps = 0;
    receiver.respond = async (req) => {
      const id = req.headers['x-casebook-delivery'] as string;
      if (inFlight.has(id)) overlaps++;
      inFlight.add(id);
      await new Promise((r) => setTimeout(r, 5));
      inFlight.delete(id);
      return { status: 200 };
    };
    const server = await startServer({ databaseUrl: database.url, dataDir: database.dataDir, workers: 2 });
    const key = server.bannerKey();
    expect(key, server.output()).toBeDefined();
    const api = client(server.url, key!);
    const { code, tcaseIds, runId } = await seedRun(api, 'WKR', 20, 'Workers');
    ok(
      await api.post('/webhook', {
        name: 'W',
        endpoint: `${receiver.url}/w`,
        eventTypes: ['results_created'],
      }),
      'create webhook',
    );
    const ids: number[][] = [];
    // Sequential requests, spread by the cluster over both workers. Result events need no order (they go out
    // over the webhook's lanes, docs/api-decisions.md "Delivery order"): each arrives once, whole.
    for (let i = 0; i < 30; i++) {
      const body = ok(
        await api.post(`/project/${code}/run/${runId}/result/batch`, resultBatch(tcaseIds, 3, `w${i}`, i)),
        'batch',
      );
      ids.push(body.ids);
    }
    const deadline = Date.now() + 60_000;
    while (receiver.requests.length < ids.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_500)); // nothing more arrives
    expect(await server.stop()).toBe(0);
    expect(overlaps).toBe(0);
    const joined = (x: number[]) => x.join(',');
    expect(
      receiver.requests
        .map((r) => joined(JSON.parse(r.body).object.results.map((x: { id: number }) => x.id)))
        .sort(),
    ).toEqual(ids.map(joined).sort());
    expect(new Set(receiver.requests.map((r) => r.headers['x-casebook-event-id'])).size).toBe(ids.length);
  }, 180_000);
});
