import type { Kysely } from 'kysely';

// The deliveries page of a webhook: newest first by (created_at, id), the keyset cursor compares the
// pair, so the index holds both after webhook_id and a page is read from the cursor on at any depth. It covers
// what webhook_deliveries_webhook_idx (0013) served, which goes.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_page_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('webhook_deliveries_webhook_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at'])
    .execute();
  await db.schema.dropIndex('webhook_deliveries_page_idx').execute();
}
