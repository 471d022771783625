import type { QueryExecutorProvider } from 'kysely';
import { handleKey } from '../db/connection.js';

/**
 * The job runners of one app that a local enqueue wakes at once (other processes learn of new jobs by NOTIFY or
 * their poll). Each app has its own (AppContext.jobWakers), so two apps in one process (tests build several) do
 * not wake each other's runners; apps on one database do, since either's runner may claim the job.
 */
export class JobWakers {
  private readonly wakers = new Set<() => void>();

  /** Calls `wake` on every enqueue into this app's database; answers a function that stops it. */
  onEnqueue(wake: () => void): () => void {
    this.wakers.add(wake);
    return () => this.wakers.delete(wake);
  }

  wake(): void {
    for (const wake of this.wakers) wake();
  }
}

// An enqueue is handed only the transaction it writes in (results, runs, test cases… pass nothing else), so the
// app's wakers are found through the database handle, which every one of its transactions shares.
const byDatabase = new WeakMap<object, Set<JobWakers>>();

/** Enqueues into `db` wake these (createContext binds its app's wakers to the app's database). */
export function bindJobWakers(db: QueryExecutorProvider, wakers: JobWakers): void {
  const key = handleKey(db);
  const bound = byDatabase.get(key) ?? new Set<JobWakers>();
  bound.add(wakers);
  byDatabase.set(key, bound);
}

/**
 * Wakes the runners of the apps on `trx`'s database. They claim after the enqueuing transaction anyway: a claim
 * waits for it on SQLite's one connection, and PostgreSQL's NOTIFY arrives at commit.
 */
export function wakeJobRunners(trx: QueryExecutorProvider): void {
  for (const wakers of byDatabase.get(handleKey(trx)) ?? []) wakers.wake();
}
