import type { Kysely } from 'kysely';
import { withIdColumn } from '../dialect.js';

// Idempotency-Key on the result endpoints: the first 2xx answer to a key, kept 24 hours, written in the same
// transaction as the results it answers for. Frozen once shipped: never edit a migration that has landed.

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('idempotency_keys'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    // Who sent it: `key:<apiKeyId>` or `user:<userId>` (a session), so two callers never share a key.
    .addColumn('caller', 'text', (c) => c.notNull())
    // Method and path as sent (e.g. `POST /api/public/v0/project/P/run/1/result/batch`, no query string).
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    // sha256 of the request body: the same key with another body is refused, not replayed.
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // The unique constraint decides between concurrent requests with one key: the second insert waits for the
    // first transaction (PostgreSQL) and then fails, and its results roll back with it.
    .addUniqueConstraint('idempotency_keys_uq', ['tenant_id', 'caller', 'route', 'idem_key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expiry_idx')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
