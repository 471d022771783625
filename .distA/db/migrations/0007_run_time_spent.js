import { dialectOf } from '../dialect.js';
// A run's timeSpent is the sum of its results' timeTaken in milliseconds: a run of 50,000 one-minute cases
// passes 2^31 ms, so PostgreSQL needs a bigint (SQLite's INTEGER is 64-bit already).
// Frozen once shipped: never edit a migration that has landed; add a new one.
export async function up(db) {
    if (dialectOf(db) === 'postgres') {
        await db.schema
            .alterTable('runs')
            .alterColumn('time_spent', (c) => c.setDataType('bigint'))
            .execute();
    }
}
export async function down(db) {
    if (dialectOf(db) === 'postgres') {
        await db.schema
            .alterTable('runs')
            .alterColumn('time_spent', (c) => c.setDataType('integer'))
            .execute();
    }
}
//# sourceMappingURL=0007_run_time_spent.js.map