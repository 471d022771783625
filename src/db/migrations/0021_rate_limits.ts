import type { Kysely } from 'kysely';

// Rate-limit counters in the database (D14), so that every process and machine on one PostgreSQL counts a key's
// requests together. One row per bucket, reset when its window has ended; expired rows are removed by the job
// retention pass. SQLite (one machine) keeps counting in memory, but has the table too: the schema is the same.
// Numbered 0021: 0020 is taken by a migration written alongside. Frozen once shipped.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('bucket', 'text', (c) => c.primaryKey())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  // The retention pass finds the ended windows.
  await db.schema
    .createIndex('rate_limit_counters_expires_idx')
    .on('rate_limit_counters')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_counters').execute();
}
