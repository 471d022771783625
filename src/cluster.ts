import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import { ConfigError, type Config } from './config.js';
import { prepareStart, startMessage, type PreparedStart } from './bootstrap.js';
import { createDb } from './db/create-db.js';
import { startServer } from './main.js';
import { withServerFlags } from './server-flags.js';
import { answerMetricsRequests } from './metrics/cluster.js';

/**
 * The number of workers when neither `--workers` nor CASEBOOK_WORKERS is given: one per core on PostgreSQL,
 * one on SQLite. better-sqlite3 is synchronous, so a SQLite worker waiting for another process's write lock
 * sleeps with its whole event loop (reads included); one process with a write queue in memory is faster for the
 * write-heavy loads Casebook sees. `--workers N` on SQLite is still correct (BEGIN IMMEDIATE + busy timeout)
 * and helps read-heavy use.
 */
export function defaultWorkers(databaseUrl: string): number {
  return databaseUrl.startsWith('sqlite:') ? 1 : os.availableParallelism();
}

/**
 * `casebook serve --workers N`: the primary migrates and bootstraps once (so the first-start banner is printed
 * once, when the first worker listens), then forks N workers that share the listening port (node:cluster). A
 * worker that dies after it served is replaced; one that dies before it ever listened (port taken, database
 * unreachable) stops the service with exit code 1 rather than being restarted in a loop. SIGTERM/SIGINT stop the
 * workers gracefully (each drains: main.ts); the primary exits 0 when every worker did. `/metrics` in any worker
 * answers the sum of all (metrics/cluster.ts). State lives only in the database, so workers need no coordination
 * beyond it.
 */
export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && config.databaseUrl === 'sqlite::memory:') {
    // Each process would get its own empty in-memory database.
    throw new ConfigError('--workers above 1 needs a database file or PostgreSQL, not sqlite::memory:');
  }
  if (config.workers <= 1 || cluster.isWorker) {
    await startServer(config);
    return;
  }
  // A stop while the primary prepares (no handler: node as a container's PID 1 would ignore it) ends the start
  // once that is done, or after 10 s; the handler stops the workers once there are some.
  let stopping = false;
  let stopAll = (_signal: NodeJS.Signals) => {
    stopping = true;
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stopAll('SIGTERM'));
  const db = createDb(config.databaseUrl);
  let prepared: PreparedStart;
  try {
    // The workers find the key file (or CASEBOOK_SECRET_KEY) and the check value this wrote, and print nothing.
    prepared = await prepareStart(db, config);
  } finally {
    await db.destroy();
  }
  // The banner once, when the first worker listens, or (credentials shown once) when none could.
  let announced = false;
  const announce = (listening: boolean) => {
    if (announced) return;
    announced = true;
    const message = startMessage(prepared, listening);
    if (message) process.stdout.write(`${message}\n`);
  };
  if (stopping) {
    announce(false);
    process.stderr.write(`${JSON.stringify({ msg: 'stopped before it listened' })}\n`);
    process.exit(0);
  }

  // Tracked here rather than read from cluster.workers: a worker leaves that map only once its IPC channel
  // has closed too, which may come after its 'exit' event.
  const alive = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  let failed = false;

  stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    if (alive.size === 0) process.exit(failed ? 1 : 0);
    for (const w of alive) w.process.kill(signal);
    // Each worker drains, then has 10 s to close.
    setTimeout(() => process.exit(1), (config.drainSeconds + 15) * 1000).unref();
  };

  cluster.setupPrimary({ execArgv: withServerFlags(process.execArgv) });
  if (config.metricsToken) answerMetricsRequests();
  const fork = () => {
    const worker = cluster.fork();
    alive.add(worker);
    worker.once('listening', () => {
      listened.add(worker);
      announce(true);
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    if (stopping) {
      if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGINT') failed = true;
      if (alive.size === 0) process.exit(failed ? 1 : 0);
      return;
    }
    if (!listened.has(worker)) {
      process.stderr.write(
        `${JSON.stringify({ error: `worker ${worker.process.pid} exited (${signal ?? code}) before it listened; stopping` })}\n`,
      );
      failed = true;
      announce(false);
      stopAll('SIGTERM');
      return;
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    fork();
  });
  for (let i = 0; i < config.workers; i++) fork();
}
