import type { Kysely } from 'kysely';

// The run page's changes poll: a counter bumped in the transaction that moves cases in or out of an open run
// (tcase/add|remove, D17 propagation), so a page on any process sees that its list must be reloaded.
// Frozen once shipped: never edit a migration that has landed.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('runs')
    .addColumn('membership_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('membership_version').execute();
}
