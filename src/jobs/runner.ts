import { randomUUID } from 'node:crypto';
import type { Db } from '../db/create-db.js';
import {
  LeaseLost,
  type JobContext,
  type JobHandler,
  type JobLease,
  type JobLog,
} from '../outbox/handler.js';
import {
  backoffMs,
  claimJobs,
  completeJobs,
  failJob,
  nextDueAt,
  retryJob,
  type ClaimedJob,
} from '../outbox/outbox.js';
import { listenPg } from '../outbox/pg-listen.js';
import { heldByTransaction, HeldLease } from './lease.js';
import type { JobWakers } from '../outbox/wakers.js';

export interface JobRunnerOptions {
  handlers: Record<string, JobHandler>;
  /** The app's wakers (AppContext.jobWakers): its enqueues wake this runner at once. */
  wakers?: JobWakers;
  /**
   * Jobs of non-batch kinds in flight at once. A tenant running half of them (in every runner) gets more only
   * when no other tenant's job is due, and never this runner's last free slot.
   */
  concurrency?: number;
  /** How long a claim lasts without renewal (the runner renews it while the job runs); a dead runner's job runs again after it. */
  leaseMs?: number;
  /** Slow fallback poll (NOTIFY or a local enqueue wakes the runner sooner). */
  pollMs?: number;
  /** PostgreSQL URL to LISTEN on for new jobs. */
  listenUrl?: string;
  now?: () => number;
  random?: () => number;
  log?: JobLog;
  /** Told of every failed attempt (the metrics count them): `retry` when it is tried again, `failed` when not. */
  onFailure?: (kind: string, outcome: 'retry' | 'failed') => void;
}

/**
 * The job runner: claims due jobs from the outbox (src/outbox/outbox.ts) and runs their handlers.
 * Any number of runners, in any number of processes, may share one database: a claim is exclusive while its
 * lease lasts, and the runner renews the lease while the job runs, so a job runs again only when its runner died
 * or stalled past the lease (at least once; at most its max_attempts).
 */
export class JobRunner {
  private readonly o: Required<Omit<JobRunnerOptions, 'listenUrl' | 'log' | 'wakers' | 'onFailure'>> &
    JobRunnerOptions;
  private readonly batchKinds: string[];
  private readonly singleKinds: string[];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly batchesInFlight = new Map<string, number>();
  private stopped = true;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private cleanup: (() => Promise<void> | void)[] = [];

  constructor(
    private readonly db: Db,
    options: JobRunnerOptions,
  ) {
    this.o = {
      concurrency: 8,
      leaseMs: 60_000,
      pollMs: 5_000,
      now: Date.now,
      random: Math.random,
      ...options,
    };
    this.batchKinds = Object.keys(options.handlers).filter((k) => options.handlers[k].batch);
    this.singleKinds = Object.keys(options.handlers).filter((k) => !options.handlers[k].batch);
  }

  /** Starts claiming in the background. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.o.wakers) this.cleanup.push(this.o.wakers.onEnqueue(() => this.wake()));
    if (this.o.listenUrl) {
      this.cleanup.push(
        listenPg(this.o.listenUrl, 'casebook_jobs', () => this.wake(), {
          onError: (err) => this.o.log?.error({ err }, 'job notifications lost; listening again'),
        }),
      );
    }
    this.loopDone = this.loop();
  }

  /** Stops claiming and waits for the jobs in flight (SIGTERM): nothing is left half-done but by a lease. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wake();
    await this.loopDone;
    await Promise.allSettled([...this.inFlight]);
    for (const c of this.cleanup.splice(0)) await c();
  }

  wake(): void {
    this.woken = true;
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }

  /**
   * Runs due jobs until none is left (tests, with an injected clock): answers how many ran. Jobs whose retry is
   * due later wait for the clock.
   */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.step();
      await Promise.allSettled([...this.inFlight]);
      if (n === 0) return total;
      total += n;
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let n = 0;
      try {
        n = await this.step();
      } catch (err) {
        this.o.log?.error({ err }, 'job claim failed');
      }
      if (this.stopped) break;
      if (n > 0 && this.inFlight.size < this.o.concurrency) continue;
      // Nothing announces a retry falling due or a dead runner's lease ending: wake for the earliest of them.
      let waitMs = this.o.pollMs;
      try {
        // Only what falls due later counts: a job already due was not claimed because its queue is busy, and the
        // job in flight wakes us when it ends (here) or the poll does (elsewhere). Looking again at once would
        // spin on claims that find nothing; letting it hide a later lease end would wait for the slow poll.
        const now = this.o.now();
        const due = await nextDueAt(this.db, [...this.batchKinds, ...this.singleKinds], now);
        if (due !== undefined) waitMs = Math.min(waitMs, due - now + 5);
      } catch (err) {
        this.o.log?.error({ err }, 'job look-ahead failed');
      }
      await this.sleep(waitMs);
    }
  }

  // A wake while the loop is busy (claiming, reading what is due next) is kept in `woken` and ends the next sleep
  // at once; a sleep ended by its timer leaves nothing behind that could swallow a later wake.
  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.woken = false;
        resolve();
      };
    });
  }

  /** One claim of each sort of kind; answers how many jobs were claimed. */
  private async step(): Promise<number> {
    const token = randomUUID();
    let claimed = 0;
    for (const kind of this.batchKinds) {
      const handler = this.o.handlers[kind];
      const claim = {
        token,
        nowMs: this.o.now(),
        leaseMs: this.o.leaseMs,
        limit: handler.batch!,
        kinds: [kind],
        exhausted: this.exhausted,
      };
      if (handler.inClaim) {
        try {
          const done = await claimJobs(this.db, {
            ...claim,
            serialKey: `jobs:${kind}`,
            within: async (trx, jobs) => {
              const finished = new Set<number>();
              const lease = heldByTransaction(trx);
              if (jobs.length > 0)
                await handler.run(
                  trx,
                  jobs,
                  this.context(finished, () => lease),
                );
              const rest = jobs.filter((j) => !finished.has(j.id));
              if (rest.length > 0)
                await completeJobs(
                  trx,
                  rest.map((j) => j.id),
                  token,
                  this.o.now(),
                );
            },
          });
          claimed += done.length;
          continue;
        } catch (err) {
          this.o.log?.error({ err, kind }, 'jobs failed in their claim; running them one claim at a time');
        }
      }
      if (handler.inClaim) {
        // Its claim failed in the transaction: run the batch here, still in order, before claiming more.
        const jobs = await claimJobs(this.db, claim);
        claimed += jobs.length;
        if (jobs.length > 0) await this.execute(handler, jobs);
        continue;
      }
      // Other batches (webhook deliveries) wait on the network: each runs in flight in one of the slots, so a
      // slow receiver holds up neither the claims nor the other kinds, and a kind's batches never take more than
      // half the slots. A tenant past half a batch running gets more only when no other tenant's job is due.
      const running = this.batchesInFlight.get(kind) ?? 0;
      if (
        this.inFlight.size >= this.o.concurrency ||
        running >= Math.max(1, Math.floor(this.o.concurrency / 2))
      )
        continue;
      const jobs = await claimJobs(this.db, {
        ...claim,
        tenantShare: Math.max(1, Math.ceil(handler.batch! / 2)),
        beyondShareUpTo: handler.batch!,
      });
      claimed += jobs.length;
      if (jobs.length === 0) continue;
      this.batchesInFlight.set(kind, running + 1);
      this.track(
        this.execute(handler, jobs).finally(() =>
          this.batchesInFlight.set(kind, (this.batchesInFlight.get(kind) ?? 1) - 1),
        ),
      );
    }
    const free = this.o.concurrency - this.inFlight.size;
    if (free > 0 && this.singleKinds.length > 0) {
      const jobs = await claimJobs(this.db, {
        token,
        nowMs: this.o.now(),
        leaseMs: this.o.leaseMs,
        limit: free,
        kinds: this.singleKinds,
        exhausted: this.exhausted,
        tenantShare: Math.max(1, Math.ceil(this.o.concurrency / 2)),
        beyondShareUpTo: free - (this.o.concurrency > 1 ? 1 : 0),
      });
      claimed += jobs.length;
      for (const job of jobs) this.track(this.execute(this.o.handlers[job.kind], [job]));
    }
    return claimed;
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    // A finished job frees a slot and may be the head of a queue whose next job is due: look again. Through
    // wake(), which also counts when the loop is not asleep yet (a job ending while the loop reads what is
    // due next would otherwise be missed until the slow poll: 30 s on PostgreSQL).
    void p.finally(() => {
      this.inFlight.delete(p);
      this.wake();
    });
  }

  /** Jobs a claim failed because their lease expired on their last attempt: their modules end what they track. */
  private readonly exhausted = async (trx: Db, jobs: ClaimedJob[]): Promise<void> => {
    for (const job of jobs) {
      this.o.log?.error({ job: job.id, kind: job.kind }, 'job failed: its lease expired on its last attempt');
      this.o.onFailure?.(job.kind, 'failed');
      await this.o.handlers[job.kind]?.exhausted?.(trx, job);
    }
  };

  private context(finished: Set<number>, lease: (job: ClaimedJob) => JobLease): JobContext {
    const nextAttemptAt = (job: ClaimedJob, delayMs?: number) =>
      job.attempt >= job.maxAttempts
        ? undefined
        : this.o.now() + (delayMs ?? backoffMs(job.attempt, this.o.random));
    return {
      now: this.o.now,
      lease,
      nextAttemptAt,
      complete: async (trx, jobs) => {
        for (const j of jobs) finished.add(j.id);
        return completeJobs(
          trx,
          jobs.map((j) => j.id),
          jobs[0]?.token ?? '',
          this.o.now(),
        );
      },
      retry: async (trx, job, error, delayMs) => {
        finished.add(job.id);
        const nextAt = nextAttemptAt(job, delayMs);
        this.o.onFailure?.(job.kind, nextAt === undefined ? 'failed' : 'retry');
        if (nextAt === undefined)
          return { held: await failJob(trx, job.id, job.token, error, this.o.now()), final: true };
        return { held: await retryJob(trx, job.id, job.token, nextAt, error), final: false, nextAt };
      },
      fail: async (trx, job, error) => {
        finished.add(job.id);
        this.o.onFailure?.(job.kind, 'failed');
        return failJob(trx, job.id, job.token, error, this.o.now());
      },
    };
  }

  private async execute(handler: JobHandler, jobs: ClaimedJob[]): Promise<void> {
    const finished = new Set<number>();
    const leases = new Map(
      jobs.map((j) => [
        j.id,
        new HeldLease(this.db, j, { leaseMs: this.o.leaseMs, now: this.o.now, log: this.o.log }),
      ]),
    );
    for (const l of leases.values()) l.start();
    const ctx = this.context(finished, (job) => leases.get(job.id)!);
    // A job taken over by another runner is that runner's now: this one neither completes nor retries it.
    const ours = (j: ClaimedJob) => !finished.has(j.id) && leases.get(j.id)!.held();
    try {
      await handler.run(this.db, jobs, ctx);
      const rest = jobs.filter(ours);
      if (rest.length > 0)
        await completeJobs(
          this.db,
          rest.map((j) => j.id),
          rest[0].token,
          this.o.now(),
        );
    } catch (err) {
      if (err instanceof LeaseLost)
        this.o.log?.info({ job: err.jobId }, 'job taken over by another runner; stopped');
      else this.o.log?.error({ err, jobs: jobs.map((j) => j.id) }, 'job failed');
      for (const job of jobs.filter(ours)) {
        if (err instanceof LeaseLost && err.jobId === job.id) continue;
        try {
          await ctx.retry(this.db, job, err instanceof Error ? err.message : String(err));
        } catch (e) {
          // The lease will expire and the job run again.
          this.o.log?.error({ err: e, job: job.id }, 'could not reschedule a failed job');
        }
      }
    } finally {
      for (const l of leases.values()) l.stop();
    }
  }
}
