import { purgeExpiredAuditEvents } from '../modules/audit/audit.service.js';
/** One pass of the D25 retention: deletes events older than the retention in bounded batches. */
export async function runAuditRetention(db, options) {
    const deleted = await purgeExpiredAuditEvents(db, options.retentionDays, { batchSize: options.batchSize });
    if (deleted > 0)
        options.log?.info({ deleted, retentionDays: options.retentionDays }, 'expired audit events removed');
    return deleted;
}
/**
 * Starts the retention job on an interval (first pass right away); returns a function that stops it and
 * waits for a pass in progress. Does nothing when retention is 0 (keep for ever). Several processes may
 * run it side by side: deleting expired rows twice is harmless.
 */
export function startAuditRetention(db, options) {
    if (options.retentionDays <= 0)
        return async () => { };
    let running = Promise.resolve();
    let stopped = false;
    let busy = false;
    const tick = () => {
        // A pass still deleting a large backlog is left to finish rather than doubled.
        if (stopped || busy)
            return;
        busy = true;
        running = runAuditRetention(db, options)
            .catch((err) => options.log?.error({ err }, 'audit retention pass failed'))
            .finally(() => {
            busy = false;
        });
    };
    const timer = setInterval(tick, options.intervalMs ?? 3_600_000);
    timer.unref();
    tick();
    return async () => {
        stopped = true;
        clearInterval(timer);
        await running;
    };
}
//# sourceMappingURL=audit-retention.js.map