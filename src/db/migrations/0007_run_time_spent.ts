import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// A run's timeSpent is the sum of its results' timeTaken in milliseconds: a run of 50,000 one-minute cases
// passes 2^31 ms, so PostgreSQL needs a bigint (SQLite's INTEGER is 64-bit already).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    // Rewrites `runs` under an exclusive lock: a moment for thousands of runs.
    await db.schema
      .alterTable('runs')
      .alterColumn('time_spent', (c) => c.setDataType('bigint'))
      .execute();
  }
  // Runs that have results already: their timeSpent was never kept before this migration.
  await sql`update runs set time_spent = (select sum(r.time_taken) from results r where r.run_id = runs.id)
    where exists (select 1 from results r where r.run_id = runs.id and r.time_taken is not null)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await db.schema
      .alterTable('runs')
      .alterColumn('time_spent', (c) => c.setDataType('integer'))
      .execute();
  }
}
