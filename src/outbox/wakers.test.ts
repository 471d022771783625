import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets, type TestDatabase } from '../../test/helpers/databases.js';
import { loadConfig } from '../config.js';
import { createContext } from '../context.js';
import { migrateToLatest } from '../db/migrator.js';
import { JobRunner } from '../jobs/runner.js';
import { enqueueJobs } from './outbox.js';

const config = loadConfig({
  CASEBOOK_LOG_LEVEL: 'silent',
  CASEBOOK_DATA_DIR: `/tmp/casebook-test-${process.pid}`,
  CASEBOOK_SECRET_KEY: 'test-secret-key-0123456789',
});
const job = { tenantId: 't1', kind: 'test.wake', payload: {} };

for (const target of databaseTargets()) {
  describe(`job wakers: two apps in one process [${target.name}]`, () => {
    let one: TestDatabase;
    let two: TestDatabase;
    beforeAll(async () => {
      [one, two] = [await target.create(), await target.create()];
      const now = new Date().toISOString();
      for (const { db } of [one, two]) {
        await migrateToLatest(db);
        await db
          .insertInto('tenants')
          .values({ id: 't1', name: 'T', features: '[]', created_at: now, updated_at: now })
          .execute();
      }
    });
    afterAll(async () => {
      await one?.drop();
      await two?.drop();
    });

    it("wakes only the runners of the app whose database the job is written to, not another app's", async () => {
      const a = createContext(config, one.db);
      const b = createContext(config, two.db);
      const woken = { a: 0, b: 0 };
      a.jobWakers.onEnqueue(() => woken.a++);
      b.jobWakers.onEnqueue(() => woken.b++);
      await one.db.transaction().execute((trx) => enqueueJobs(trx, [job]));
      expect(woken).toEqual({ a: 1, b: 0 });
      await enqueueJobs(two.db, [job]);
      expect(woken).toEqual({ a: 1, b: 1 });
    });

    it("runs a job enqueued in its app's transaction at once, without waiting for the poll", async () => {
      await one.db.deleteFrom('jobs').execute();
      const ctx = createContext(config, one.db);
      let ran!: () => void;
      const done = new Promise<void>((resolve) => (ran = resolve));
      const runner = new JobRunner(one.db, {
        wakers: ctx.jobWakers,
        pollMs: 600_000,
        handlers: { 'test.wake': { run: async () => ran() } },
      });
      runner.start();
      try {
        // The first look finds nothing and the runner sleeps for the poll; only the wake can end that sleep.
        await new Promise((r) => setTimeout(r, 200));
        await one.db.transaction().execute((trx) => enqueueJobs(trx, [job]));
        const timeout = new Promise<'poll'>((r) => setTimeout(() => r('poll'), 10_000));
        expect(await Promise.race([done.then(() => 'woken'), timeout])).toBe('woken');
      } finally {
        await runner.stop();
      }
    });
  });
}
