import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { prepareStart, startMessage, type PreparedStart } from './bootstrap.js';
import type { Config } from './config.js';
import { createDb, describeDatabaseUrl, type Db } from './db/create-db.js';
import { startJobs } from './jobs/index.js';

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  address: string;
  /** Closes after `drainSeconds` of draining (none unless given: tests and the CLI close at once). */
  close: (drainSeconds?: number) => Promise<void>;
}

/**
 * Process entry for `serve`: config → db → migrate → secret key → first start → app → listen → banner. On SIGTERM/SIGINT it
 * drains (CASEBOOK_DRAIN_SECONDS: not ready, still serving), then closes cleanly and exits 0.
 */
export async function startServer(
  given: Config,
  options: { handleSignals?: boolean } = {},
): Promise<RunningServer> {
  // The handlers go in first: node as a container's PID 1 ignores a signal nobody handles, so a stop that came
  // while it still starts would wait for `podman stop`'s SIGKILL. Until it listens, a stop ends the start at its
  // next step (a first start's credentials are still shown, once) and exits 0; after, it drains (stop below).
  const signals = options.handleSignals === false ? [] : (['SIGTERM', 'SIGINT'] as const);
  let stop: ((signal: NodeJS.Signals) => void) | undefined = undefined;
  let stoppedEarly: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop) return stop(signal);
    stoppedEarly = signal;
    // A step that never ends (a database that does not answer) does not hold the stop either.
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  for (const signal of signals) process.once(signal, onSignal);
  // A start that failed leaves no handler behind (its caller may try again, or a test go on).
  const unhandle = () => signals.forEach((signal) => process.off(signal, onSignal));
  const db = createDb(given.databaseUrl);
  let prepared: PreparedStart;
  try {
    prepared = await prepareStart(db, given);
  } catch (err) {
    unhandle();
    await db.destroy();
    throw err;
  }
  const { config } = prepared;
  const say = (listening: boolean) => {
    const message = startMessage(prepared, listening);
    if (message) process.stdout.write(`${message}\n`);
  };
  let app: FastifyInstance | undefined;
  let address: string;
  try {
    if (!stoppedEarly) app = await buildApp({ config, db, clusterWorker: cluster.isWorker });
    if (stoppedEarly || !app) {
      say(false);
      await app?.close();
      await db.destroy();
      process.stderr.write(
        `${JSON.stringify({ signal: stoppedEarly, msg: 'stopped before it listened' })}\n`,
      );
      process.exit(0);
    }
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Port taken, address not available: a first start's credentials are still shown, once.
    unhandle();
    say(false);
    await app?.close();
    await db.destroy();
    throw err;
  }
  // "Ready" only now that it answers; before the "listening" line, so whoever waits for that line has it too.
  say(true);
  app.log.info({ database: describeDatabaseUrl(config.databaseUrl), address }, 'casebook listening');
  // Job kinds and retention passes (audit events, Idempotency-Key records, finished jobs and deliveries).
  const stopJobs = startJobs(db, config, app.ctx, app.log);

  let closing: Promise<void> | undefined;
  const close = (drainSeconds = 0) =>
    (closing ??= (async () => {
      // Not ready at once, so the balancer stops sending here; requests that still come are served meanwhile,
      // each on a connection that ends with its answer. Idle kept-alive connections stay open until the drain
      // ends: closing one could cross a request the balancer sends on it at that moment, which it cannot resend
      // (a POST). A balancer whose idle timeout is shorter than the drain has closed them itself by then.
      app.drain.draining = true;
      if (drainSeconds > 0) {
        app.log.info({ seconds: drainSeconds }, 'draining: /readyz answers 503, requests are still served');
        await new Promise((resolve) => setTimeout(resolve, drainSeconds * 1000));
      }
      app.log.info('closing: no new connections, finishing requests in flight');
      // Stop accepting connections, let in-flight requests finish, then release the database.
      await app.close();
      await stopJobs();
      await db.destroy();
      app.log.info('closed');
    })());

  stop = (signal) => {
    app.log.info({ signal }, 'shutting down');
    // The drain, then 10 s for requests in flight and jobs to finish.
    const timer = setTimeout(() => process.exit(1), (config.drainSeconds + 10) * 1000);
    timer.unref();
    close(config.drainSeconds).then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // A stop while it listened but had not said so yet: no one was sent here, so no drain.
  if (stoppedEarly) {
    app.log.info({ signal: stoppedEarly }, 'shutting down');
    close(0).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  }
  return { app, db, address, close };
}
