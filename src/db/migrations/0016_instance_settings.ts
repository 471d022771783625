import type { Kysely } from 'kysely';

// The service's own settings, one row each, not a tenant's: the check value sealed with the secret key (so a
// process started with another key refuses to start instead of failing to open credentials later), and the
// row /readyz writes to see whether the database takes writes again after a full disk.
// Frozen once shipped: never edit a migration that has landed.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('instance_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_settings').execute();
}
