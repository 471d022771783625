import type { Kysely } from 'kysely';

// OAuth 2.1 for MCP clients that sign people in: RFC 7591 dynamic client registration, the authorization code
// grant with PKCE, and the tenant's rule for which registered clients a person may approve. A sign-in it grants
// is an api_keys row of kind 'oauth' (like the device grant's 'device'), refreshed through oauth_refresh_tokens.
// Only adds: code of the version before runs on it unchanged. Only hashes of codes are stored.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  const tenantRef = (c: any) => c.notNull().references('tenants.id').onDelete('cascade');

  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON array of the exact redirect URIs it registered (https, or http on a loopback address).
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oauth_clients_tenant_idx')
    .on('oauth_clients')
    .columns(['tenant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('oauth_authorization_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    // The person who approved: the tokens act as them.
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    // RFC 8707: the resource the client named when it asked, if it named one.
    .addColumn('resource', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    // The sign-in (api_keys row) it was redeemed for: a second use of the code revokes it (RFC 9700 §4.5.3).
    .addColumn('authorization_id', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_authorization_codes_expiry_idx')
    .on('oauth_authorization_codes')
    .columns(['tenant_id', 'expires_at'])
    .execute();

  // The tenant's rule: null allowed_origins (or no row) lets people approve any registered client; a JSON array
  // of origins lets them approve only clients whose redirect URIs are all at one of those origins.
  await db.schema
    .createTable('oauth_client_policies')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('allowed_origins', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_client_policies').execute();
  await db.schema.dropTable('oauth_authorization_codes').execute();
  await db.schema.dropTable('oauth_clients').execute();
}
