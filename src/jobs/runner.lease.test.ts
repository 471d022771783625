import { expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../test/helpers/test-app.js';
import { LeaseLost, type JobHandler } from '../outbox/handler.js';
import { claimJobs, enqueueJobs, EXHAUSTED } from '../outbox/outbox.js';
import { JobRunner } from './runner.js';

/*
 * Fencing: a job runs once at a time (the runner renews the lease of what it holds, and an attempt another runner
 * took over stops without writing), at most its max_attempts, and one tenant's jobs do not hold every slot.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

const jobRow = (t: TestEnv, kind: string) =>
  t.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'locked_by', 'last_error'])
    .where('kind', '=', kind)
    .executeTakeFirstOrThrow();

/**
 * Claims the job for `token` as a second runner would once the lease expired: one whose clock is past the lease's
 * end. In one step, so that the first runner's own poll cannot claim the expired job back in between (it did once,
 * under load, when the test first moved the lease into the past and then claimed).
 */
async function takeOver(t: TestEnv, kind: string, token: string) {
  const [job] = await claimJobs(t.db, {
    token,
    nowMs: Date.now() + 120_000,
    leaseMs: 60_000,
    limit: 1,
    kinds: [kind],
  });
  expect(job).toBeDefined();
}

describeEachDb('job leases', (t) => {
  it('runs a job that outlasts its lease once, with two runners polling: the heartbeat keeps the lease', async () => {
    let runs = 0;
    const handlers: Record<string, JobHandler> = {
      'test.slow': {
        run: async () => {
          runs++;
          // Three leases long; the lease is renewed every third of it, so a busy machine's pauses of up to about
          // two thirds of a lease (650 ms) do not let the other runner take it.
          await sleep(3_000);
        },
      },
    };
    await enqueueJobs(t.db, [{ tenantId: t.tenantId, kind: 'test.slow', payload: {}, maxAttempts: 5 }]);
    const runners = [1, 2].map(() => new JobRunner(t.db, { handlers, leaseMs: 1_000, pollMs: 50 }));
    for (const r of runners) r.start();
    await until(async () => (await jobRow(t, 'test.slow')).status === 'done');
    await Promise.all(runners.map((r) => r.stop()));
    expect(runs).toBe(1);
    expect(await jobRow(t, 'test.slow')).toMatchObject({ status: 'done', attempts: 1, last_error: null });
  });

  it('stops a handler whose job another runner took over: its fenced write is refused, and nothing is retried', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let started = false;
    let outcome = '';
    const told: string[] = [];
    const runner = new JobRunner(t.db, {
      leaseMs: 60_000,
      onFailure: (kind, o) => told.push(`${kind} ${o}`),
      handlers: {
        'test.fenced': {
          run: async (db, [job], ctx) => {
            started = true;
            await gate;
            try {
              await ctx
                .lease(job)
                .write((trx) =>
                  trx
                    .updateTable('tenants')
                    .set({ name: 'written by the first' })
                    .where('id', '=', t.tenantId)
                    .execute(),
                );
              outcome = 'written';
            } catch (err) {
              outcome = err instanceof LeaseLost ? 'lease lost' : String(err);
              throw err;
            }
          },
        },
      },
    });
    const nameBefore = (
      await t.db.selectFrom('tenants').select('name').where('id', '=', t.tenantId).executeTakeFirstOrThrow()
    ).name;
    await enqueueJobs(t.db, [{ tenantId: t.tenantId, kind: 'test.fenced', payload: {}, maxAttempts: 5 }]);
    runner.start();
    await until(() => started);
    await takeOver(t, 'test.fenced', 'second-runner');
    open();
    await until(() => outcome !== '');
    await runner.stop();
    expect(outcome).toBe('lease lost');
    const tenant = await t.db
      .selectFrom('tenants')
      .select('name')
      .where('id', '=', t.tenantId)
      .executeTakeFirstOrThrow();
    expect(tenant.name).toBe(nameBefore);
    // The second runner's claim stands: not completed, retried or failed by the first.
    expect(await jobRow(t, 'test.fenced')).toMatchObject({
      status: 'running',
      attempts: 2,
      locked_by: 'second-runner',
      last_error: null,
    });
    expect(told).toEqual([]);
  });

  it('tells a handler at its next heartbeat that another runner took its job, and leaves that claim alone', async () => {
    let started = false;
    let held: boolean | undefined;
    const runner = new JobRunner(t.db, {
      leaseMs: 300,
      handlers: {
        'test.beat': {
          run: async (_db, [job], ctx) => {
            started = true;
            const deadline = Date.now() + 5_000;
            while (ctx.lease(job).held() && Date.now() < deadline) await sleep(10);
            held = ctx.lease(job).held();
          },
        },
      },
    });
    await enqueueJobs(t.db, [{ tenantId: t.tenantId, kind: 'test.beat', payload: {}, maxAttempts: 5 }]);
    runner.start();
    await until(() => started);
    await takeOver(t, 'test.beat', 'second-runner');
    await until(() => held !== undefined);
    await runner.stop();
    expect(held).toBe(false);
    expect(await jobRow(t, 'test.beat')).toMatchObject({ status: 'running', locked_by: 'second-runner' });
  });

  it('never claims a job past its max_attempts: one whose lease expired on its last attempt fails, and its module is told', async () => {
    let clock = Date.now();
    await enqueueJobs(
      t.db,
      [{ tenantId: t.tenantId, kind: 'test.dying', payload: { n: 7 }, maxAttempts: 2 }],
      clock,
    );
    // Two runners died holding it.
    for (const token of ['dead-1', 'dead-2']) {
      const claimed = await claimJobs(t.db, {
        token,
        nowMs: clock,
        leaseMs: 1_000,
        limit: 1,
        kinds: ['test.dying'],
      });
      expect(claimed).toHaveLength(1);
      clock += 2_000;
    }
    let runs = 0;
    const exhausted: unknown[] = [];
    const told: string[] = [];
    const runner = new JobRunner(t.db, {
      now: () => clock,
      onFailure: (kind, o) => told.push(`${kind} ${o}`),
      handlers: {
        'test.dying': {
          run: async () => void runs++,
          exhausted: async (trx, job) => {
            const row = await trx
              .selectFrom('jobs')
              .select('status')
              .where('id', '=', job.id)
              .executeTakeFirstOrThrow();
            exhausted.push({ payload: job.payload, attempt: job.attempt, status: row.status });
          },
        },
      },
    });
    expect(await runner.drain()).toBe(0);
    clock += 3_600_000;
    await runner.drain();
    expect(runs).toBe(0);
    expect(await jobRow(t, 'test.dying')).toMatchObject({
      status: 'failed',
      attempts: 2,
      locked_by: null,
      last_error: EXHAUSTED,
    });
    expect(exhausted).toEqual([{ payload: { n: 7 }, attempt: 2, status: 'failed' }]);
    expect(told).toEqual(['test.dying failed']);
  });

  it("starts another tenant's job while one tenant's slow jobs wait, and never gives one tenant every slot", async () => {
    const now = new Date().toISOString();
    await t.db
      .insertInto('tenants')
      .values({ id: 'other-tenant', name: 'Other', features: '[]', created_at: now, updated_at: now })
      .execute();
    const starts: string[] = [];
    const running = new Map<string, number>();
    let most = 0;
    const runner = new JobRunner(t.db, {
      concurrency: 2,
      pollMs: 50,
      handlers: {
        'test.fair': {
          run: async (_db, [job]) => {
            starts.push(job.tenantId);
            running.set(job.tenantId, (running.get(job.tenantId) ?? 0) + 1);
            most = Math.max(most, running.get(t.tenantId) ?? 0);
            await sleep(150);
            running.set(job.tenantId, running.get(job.tenantId)! - 1);
          },
        },
      },
    });
    await enqueueJobs(
      t.db,
      Array.from({ length: 5 }, () => ({ tenantId: t.tenantId, kind: 'test.fair', payload: {} })),
    );
    await enqueueJobs(t.db, [{ tenantId: 'other-tenant', kind: 'test.fair', payload: {} }]);
    runner.start();
    await until(() => starts.length === 6 && [...running.values()].every((n) => n === 0));
    await runner.stop();
    expect(starts.indexOf('other-tenant')).toBeLessThan(2);
    expect(most).toBe(1);
  });
});
