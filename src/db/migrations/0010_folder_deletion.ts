import type { Kysely } from 'kysely';

// Deleted folders are kept as tombstones: soft-deleted test cases (whose results runs keep, D17) still point at
// their folder through a foreign key. Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('folders').addColumn('deleted_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('folders').dropColumn('deleted_at').execute();
}
