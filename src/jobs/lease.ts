import type { Db } from '../db/create-db.js';
import { LeaseLost, type JobLease, type JobLog } from '../outbox/handler.js';
import { extendLease, stillHeld, whileHeld, type ClaimedJob } from '../outbox/outbox.js';

/**
 * The runner's hold on one job while its handler runs: a heartbeat renews the lease every third of it, so a job
 * that outlasts the lease (an import checking a large file) is not claimed again while its runner is alive. A
 * renewal refused means another runner took the job (this process stalled past the lease): the lease is lost, and
 * the handler sees it at its next check or write.
 */
export class HeldLease implements JobLease {
  private lost = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private renewing = false;

  constructor(
    private readonly db: Db,
    private readonly job: ClaimedJob,
    private readonly o: { leaseMs: number; now: () => number; log?: JobLog },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.o.leaseMs / 3)));
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    if (this.lost || this.renewing) return;
    this.renewing = true;
    try {
      const until = this.o.now() + this.o.leaseMs;
      if (!(await extendLease(this.db, this.job.id, this.job.token, until))) this.lose();
    } catch (err) {
      // The database did not answer: the next beat tries again before the lease ends.
      this.o.log?.error({ err, job: this.job.id }, 'could not renew a job lease');
    } finally {
      this.renewing = false;
    }
  }

  private lose(): void {
    this.lost = true;
    this.stop();
  }

  held(): boolean {
    return !this.lost;
  }

  async check(): Promise<void> {
    if (!this.lost && !(await stillHeld(this.db, this.job.id, this.job.token))) this.lose();
    if (this.lost) throw new LeaseLost(this.job.id);
  }

  async write<T>(write: (trx: Db) => Promise<T>): Promise<T> {
    const done = this.lost ? undefined : await whileHeld(this.db, this.job.id, this.job.token, write);
    if (done) return done.value;
    this.lose();
    throw new LeaseLost(this.job.id);
  }
}

/** The lease of jobs run inside their claiming transaction: held to its end. */
export const heldByTransaction = (trx: Db): JobLease => ({
  held: () => true,
  check: async () => {},
  write: (write) => write(trx),
});
