import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { prepareStart } from './bootstrap.js';
import type { Config } from './config.js';
import { createDb, describeDatabaseUrl, type Db } from './db/create-db.js';
import { startJobs } from './jobs/index.js';

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  address: string;
  close: () => Promise<void>;
}

/** Process entry for `serve`: config → db → migrate → secret key → first start → app → listen; closes cleanly on SIGTERM/SIGINT. */
export async function startServer(
  given: Config,
  options: { handleSignals?: boolean } = {},
): Promise<RunningServer> {
  const db = createDb(given.databaseUrl);
  let config: Config;
  try {
    config = await prepareStart(db, given);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const app = await buildApp({ config, db });
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info({ database: describeDatabaseUrl(config.databaseUrl), address }, 'casebook listening');
  // Job kinds and retention passes (audit events, Idempotency-Key records, finished jobs and deliveries).
  const stopJobs = startJobs(db, config, app.ctx, app.log);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting connections, let in-flight requests finish, then release the database.
      await app.close();
      await stopJobs();
      await db.destroy();
    })());

  if (options.handleSignals !== false) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        app.log.info({ signal }, 'shutting down');
        const timer = setTimeout(() => process.exit(1), 10_000);
        timer.unref();
        close().then(
          () => process.exit(0),
          (err) => {
            app.log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  }
  return { app, db, address, close };
}
