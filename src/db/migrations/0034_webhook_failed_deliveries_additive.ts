import type { Kysely } from 'kysely';

// A webhook's deliveries of one status, newest first (the delivery log's "failed only"): read from the cursor on
// at any depth, as webhook_deliveries_page_idx (0027) reads them all. Additive: older code ignores it.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_status_page_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_status_page_idx').execute();
}
