import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { firstStart, firstStartBanner } from './bootstrap.js';
import type { Config } from './config.js';
import { createDb, describeDatabaseUrl, type Db } from './db/create-db.js';
import { migrateToLatest } from './db/migrator.js';
import { startAuditRetention } from './jobs/audit-retention.js';
import { startJobs } from './jobs/index.js';
import { startIdempotencyRetention } from './jobs/idempotency-retention.js';

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  address: string;
  close: () => Promise<void>;
}

/** Process entry for `serve`: config → db → migrate → first start → app → listen; closes cleanly on SIGTERM/SIGINT. */
export async function startServer(
  config: Config,
  options: { handleSignals?: boolean } = {},
): Promise<RunningServer> {
  const db = createDb(config.databaseUrl);
  await migrateToLatest(db);
  const first = await firstStart(db, config);
  if (first) process.stdout.write(`${firstStartBanner(first, config.publicUrl)}\n`);
  const app = await buildApp({ config, db });
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info({ database: describeDatabaseUrl(config.databaseUrl), address }, 'casebook listening');
  const stopRetention = startAuditRetention(db, { retentionDays: config.auditRetentionDays, log: app.log });
  const stopJobs = startJobs(db, config, app.log);
  const stopIdempotencyRetention = startIdempotencyRetention(db, { log: app.log });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting connections, let in-flight requests finish, then release the database.
      await app.close();
      await stopRetention();
      await stopJobs();
      await stopIdempotencyRetention();
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
