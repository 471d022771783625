import { buildApp } from './app.js';
import { firstStart, firstStartBanner } from './bootstrap.js';
import { createDb, describeDatabaseUrl } from './db/create-db.js';
import { migrateToLatest } from './db/migrator.js';
import { startAuditRetention } from './jobs/audit-retention.js';
/** Process entry for `serve`: config → db → migrate → first start → app → listen; closes cleanly on SIGTERM/SIGINT. */
export async function startServer(config, options = {}) {
    const db = createDb(config.databaseUrl);
    await migrateToLatest(db);
    const first = await firstStart(db, config);
    if (first)
        process.stdout.write(`${firstStartBanner(first, config.publicUrl)}\n`);
    const app = await buildApp({ config, db });
    const address = await app.listen({ port: config.port, host: config.host });
    app.log.info({ database: describeDatabaseUrl(config.databaseUrl), address }, 'casebook listening');
    const stopRetention = startAuditRetention(db, { retentionDays: config.auditRetentionDays, log: app.log });
    let closing;
    const close = () => (closing ??= (async () => {
        // Stop accepting connections, let in-flight requests finish, then release the database.
        await app.close();
        await stopRetention();
        await db.destroy();
    })());
    if (options.handleSignals !== false) {
        for (const signal of ['SIGTERM', 'SIGINT']) {
            process.once(signal, () => {
                app.log.info({ signal }, 'shutting down');
                const timer = setTimeout(() => process.exit(1), 10_000);
                timer.unref();
                close().then(() => process.exit(0), (err) => {
                    app.log.error({ err }, 'shutdown failed');
                    process.exit(1);
                });
            });
        }
    }
    return { app, db, address, close };
}
//# sourceMappingURL=main.js.map