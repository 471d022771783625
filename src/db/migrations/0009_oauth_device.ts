import type { Kysely } from 'kysely';

// `qasphere auth login`: the OAuth 2.0 device authorisation grant (RFC 8628).
// An approved sign-in is a row of api_keys (kind 'device'): its access token is `<tenant>.<keyId>.<secret>`
// like any key, so authentication reads it with the statement it already runs. Only hashes are stored.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('key'))
    .execute();
  // The OAuth client a device sign-in was granted to (e.g. `qas-cli`); null for keys.
  await db.schema.alterTable('api_keys').addColumn('client_id', 'text').execute();

  const tenantRef = (c: any) => c.notNull().references('tenants.id').onDelete('cascade');

  await db.schema
    .createTable('oauth_device_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('device_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_code_hash', 'text', (c) => c.notNull())
    // pending → approved | denied; approved → redeemed (tokens issued once).
    .addColumn('status', 'text', (c) => c.notNull())
    // Who approved or denied it.
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('last_polled_at', 'text')
    .addColumn('authorization_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('oauth_device_codes_user_code_uq', ['tenant_id', 'user_code_hash'])
    .execute();
  await db.schema
    .createIndex('oauth_device_codes_expiry_idx')
    .on('oauth_device_codes')
    .columns(['tenant_id', 'expires_at'])
    .execute();

  // Refresh tokens of a device sign-in (its "family"): each is used once; a second use revokes the sign-in.
  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('authorization_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_refresh_tokens_authorization_idx')
    .on('oauth_refresh_tokens')
    .column('authorization_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_refresh_tokens').execute();
  await db.schema.dropTable('oauth_device_codes').execute();
  await db.schema.alterTable('api_keys').dropColumn('client_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('kind').execute();
}
