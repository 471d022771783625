import type { Kysely } from 'kysely';
import { withIdColumn } from '../dialect.js';

// Throttles that hold across processes (docs/api-decisions.md#sign-in-throttle): counted attempts of other kinds
// than failed sign-ins (reset requests, device user-code lookups), and the addresses an account has signed in from.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  const tenantRef = (c: any) => c.notNull().references('tenants.id').onDelete('cascade');

  // One row per counted attempt; `bucket` names what is counted, e.g. `reset:ip:10.0.0.1`.
  await withIdColumn(db, db.schema.createTable('throttle_hits'))
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('throttle_hits_bucket_idx')
    .on('throttle_hits')
    .columns(['tenant_id', 'bucket', 'created_at'])
    .execute();

  // An address that completed a sign-in (password and second factor) to an account: it has proven itself, so
  // failures others cause on the account do not delay it.
  await withIdColumn(db, db.schema.createTable('sign_in_known_addresses'))
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('email_norm', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('last_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_known_addresses_key')
    .on('sign_in_known_addresses')
    .columns(['tenant_id', 'email_norm', 'ip'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sign_in_known_addresses').execute();
  await db.schema.dropTable('throttle_hits').execute();
}
