import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/helpers/databases.js';
import { startReceiver, type Receiver } from '../../test/helpers/receiver.js';
import { firstStart } from '../bootstrap.js';
import { loadConfig, type Config } from '../config.js';
import { createDb, type Db } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrator.js';
import { enqueueEvents } from '../modules/webhooks/webhook-events.service.js';
import { createWebhook } from '../modules/webhooks/webhooks.service.js';
import { DEFAULT_TENANT_ID } from '../modules/tenants/tenants.service.js';
import { createContext } from '../context.js';
import { backoffMs, claimJobs, enqueueJobs, queueStats } from '../outbox/outbox.js';
import { createJobRunner } from './index.js';
import { JobRunner } from './runner.js';

describe('back-off', () => {
  it('doubles from 10 s up to an hour, with jitter between half and all of it', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, () => 1))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(backoffMs(30, () => 1)).toBe(3_600_000);
    expect(backoffMs(3, () => 0)).toBe(20_000);
    expect(backoffMs(3, () => 0.5)).toBe(30_000);
  });
});

for (const target of databaseTargets()) {
  describe(`a queue's jobs one after another [${target.name}]`, () => {
    let db: Db;
    let drop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      const created = await target.create();
      db = created.db;
      drop = created.drop;
      await migrateToLatest(db);
      const now = new Date().toISOString();
      await db
        .insertInto('tenants')
        .values({ id: 't1', name: 'T', features: '[]', created_at: now, updated_at: now })
        .execute();
    });
    afterAll(async () => {
      await drop();
    });

    // A job of a busy queue waits for the one in flight; when that one ends the runner must look again at
    // once, however the end falls against the runner's own look-ahead — not at its next slow poll.
    it('runs each next job of a queue as soon as the one before it ends, without waiting for the poll', async () => {
      const ran: number[] = [];
      const runner = new JobRunner(db, {
        pollMs: 600_000,
        handlers: {
          'test.step': {
            run: async (_db, jobs) => {
              ran.push((jobs[0].payload as { n: number }).n);
            },
          },
        },
      });
      const total = 40;
      await enqueueJobs(
        db,
        Array.from({ length: total }, (_, n) => ({
          tenantId: 't1',
          kind: 'test.step',
          queueKey: 'one-queue',
          payload: { n },
        })),
      );
      runner.start();
      const deadline = Date.now() + 30_000;
      while (ran.length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await runner.stop();
      expect(ran).toEqual(Array.from({ length: total }, (_, n) => n));
    }, 60_000);

    // The metrics count failed attempts per kind (webhook delivery failures among them) and read the queue.
    it('tells each failed attempt (retry, then failed once attempts are used up) and the queue shrinks to none', async () => {
      let clock = Date.now();
      const told: string[] = [];
      await enqueueJobs(db, [{ tenantId: 't1', kind: 'test.failing', payload: {}, maxAttempts: 2 }], clock);
      const waiting = await queueStats(db, ['test.failing']);
      expect(waiting).toEqual([{ kind: 'test.failing', depth: 1, oldestDueMs: expect.any(Number) }]);
      const runner = new JobRunner(db, {
        now: () => clock,
        handlers: {
          'test.failing': {
            run: async () => {
              throw new Error('receiver down');
            },
          },
        },
        onFailure: (kind, outcome) => told.push(`${kind} ${outcome}`),
      });
      await runner.drain();
      expect(told).toEqual(['test.failing retry']);
      clock += 3_600_000;
      await runner.drain();
      expect(told).toEqual(['test.failing retry', 'test.failing failed']);
      expect(await queueStats(db, ['test.failing'])).toEqual([
        { kind: 'test.failing', depth: 0, oldestDueMs: undefined },
      ]);
    });

    // A runner died holding the head of a queue (SIGKILL): its lease ends in a second. The next job of that queue
    // is already due but blocked behind it; the runner must wake when the lease ends, not at its slow poll.
    it("takes a dead runner's job again when its lease ends, then the rest of its queue, without waiting for the poll", async () => {
      const ran: number[] = [];
      await enqueueJobs(
        db,
        [0, 1, 2].map((n) => ({ tenantId: 't1', kind: 'test.lease', queueKey: 'leased', payload: { n } })),
      );
      const dead = await claimJobs(db, {
        token: 'dead-runner',
        nowMs: Date.now(),
        leaseMs: 1_000,
        limit: 1,
        kinds: ['test.lease'],
      });
      expect(dead.map((j) => (j.payload as { n: number }).n)).toEqual([0]);
      const runner = new JobRunner(db, {
        pollMs: 600_000,
        handlers: {
          'test.lease': { run: async (_db, jobs) => void ran.push((jobs[0].payload as { n: number }).n) },
        },
      });
      runner.start();
      const deadline = Date.now() + 30_000;
      while (ran.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await runner.stop();
      expect(ran).toEqual([0, 1, 2]);
      const rows = await db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('kind', '=', 'test.lease')
        .orderBy('id')
        .execute();
      expect(rows.map((r) => [r.status, Number(r.attempts)])).toEqual([
        ['done', 2],
        ['done', 1],
        ['done', 1],
      ]);
    }, 60_000);
  });
}

// Two runners on one database, each with its own connection pool on PostgreSQL (as two processes would have).
for (const target of databaseTargets()) {
  describe(`two runners on one database [${target.name}]`, () => {
    let url: string;
    let dbs: Db[] = [];
    let drop: () => Promise<void> = async () => {};
    let receiver: Receiver;
    let config: Config;
    beforeAll(async () => {
      if (target.name === 'sqlite') {
        // Two processes share a file, not an in-memory database.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-runner-'));
        url = `sqlite:${path.join(dir, 'jobs.db')}`;
        drop = async () => fs.rmSync(dir, { recursive: true, force: true });
      } else {
        const created = await target.create();
        url = created.url;
        drop = created.drop;
      }
      config = loadConfig({
        CASEBOOK_DATABASE_URL: url,
        CASEBOOK_LOG_LEVEL: 'silent',
        CASEBOOK_DATA_DIR: `/tmp/casebook-test-${process.pid}`,
        CASEBOOK_OWNER_EMAIL: 'owner@example.com',
        CASEBOOK_OWNER_PASSWORD: 'owner-password',
        CASEBOOK_SECRET_KEY: 'test-secret-key-0123456789',
        CASEBOOK_WEBHOOK_ALLOW_PRIVATE: 'true',
      });
      const first = createDb(url);
      await migrateToLatest(first);
      await firstStart(first, config);
      // PostgreSQL: a second pool, as a second process would have. SQLite: one handle, because better-sqlite3
      // waits for another connection's lock synchronously, stopping the event loop the holder needs to finish;
      // several processes on one file are shown by test/scale/webhooks.test.ts.
      dbs = target.name === 'postgres' ? [first, createDb(url)] : [first, first];
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      for (const db of new Set(dbs)) await db.destroy();
      await drop();
    });

    it('never send one delivery twice at a time, deliver every event to every webhook once, in event order per webhook', async () => {
      const actor = { tenantId: DEFAULT_TENANT_ID, userId: null, ip: '127.0.0.1', userAgent: 'test' };
      // One app per database handle, as each process has its own.
      const contexts = new Map([...new Set(dbs)].map((db) => [db, createContext(config, db)]));
      const settings = { secretKey: config.secretKey, guard: contexts.get(dbs[0])!.outboundGuard };
      const hooks: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { id } = await createWebhook(
          dbs[0],
          actor,
          { name: `hook ${i}`, endpoint: `${receiver.url}/h${i}`, eventTypes: ['run_created'] },
          settings,
        );
        hooks.push(id);
      }
      const inFlight = new Set<string>();
      let overlaps = 0;
      receiver.respond = async (req) => {
        const key = req.headers['x-casebook-delivery'] as string;
        if (inFlight.has(key)) overlaps++;
        inFlight.add(key);
        await new Promise((r) => setTimeout(r, 2));
        inFlight.delete(key);
        return { status: 200 };
      };
      const runners: JobRunner[] = dbs.map((db) =>
        createJobRunner(db, config, contexts.get(db)!, { concurrency: 4, pollMs: 200 }),
      );
      for (const r of runners) r.start();
      // Events are written by both "processes", in transactions of five, while the runners run.
      const order: number[] = [];
      for (let batch = 0; batch < 20; batch++) {
        const db = dbs[batch % 2];
        await db.transaction().execute(async (trx) => {
          const events = [];
          for (let i = 0; i < 5; i++) {
            const n = batch * 5 + i;
            order.push(n);
            events.push({
              tenantId: DEFAULT_TENANT_ID,
              projectId: 'p',
              type: 'run_created' as const,
              object: { n },
            });
          }
          await enqueueEvents(trx, events);
        });
      }
      const expected = order.length * hooks.length;
      const deadline = Date.now() + 60_000;
      while (receiver.requests.length < expected && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
      await Promise.all(runners.map((r) => r.stop()));

      expect(overlaps).toBe(0);
      expect(receiver.requests).toHaveLength(expected);
      const seen = new Set(receiver.requests.map((r) => `${r.url} ${r.headers['x-casebook-event-id']}`));
      expect(seen.size).toBe(expected);
      for (let i = 0; i < hooks.length; i++) {
        const got = receiver.requests
          .filter((r) => r.url === `/h${i}`)
          .map((r) => JSON.parse(r.body).object.n);
        expect(got).toEqual(order);
      }
      const left = await dbs[0]
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '<>', 'done')
        .executeTakeFirstOrThrow();
      expect(Number(left.n)).toBe(0);
    }, 90_000);
  });
}
