import type { Kysely } from 'kysely';

// OpenID Connect sign-in (issue 44): the identity providers a tenant's admins configure, the identities of people
// who signed in through one (the provider's `sub`, so a changed e-mail at the provider still finds the person), and
// the sign-ins under way (state, nonce and PKCE verifier kept server-side, used once, minutes long). Only adds
// tables, so code of the version before runs on it unchanged (`_additive`). Frozen once shipped.

export async function up(db: Kysely<any>): Promise<void> {
  const tenantRef = (c: any) => c.notNull().references('tenants.id').onDelete('cascade');

  await db.schema
    .createTable('oidc_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('name', 'text', (c) => c.notNull())
    // Lower-cased: one name per tenant in any letter case (the sign-in page could not tell them apart).
    .addColumn('name_norm', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    // Sealed with the secret key (src/lib/secret-box.ts, purpose casebook:oidc-client-secrets:v1); never answered.
    .addColumn('client_secret_enc', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    // 1: a person the tenant does not know yet gets an account at their first sign-in; 0: only people already there.
    .addColumn('just_in_time', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('default_role', 'text', (c) => c.notNull().defaultTo('test-runner'))
    // JSON: extra scopes asked beside `openid email profile` (e.g. `groups`).
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('name_claim', 'text', (c) => c.notNull().defaultTo('name'))
    .addColumn('groups_claim', 'text', (c) => c.notNull().defaultTo('groups'))
    // JSON [{group, role}], first match wins; JSON [{group, projectIds}], every match adds its projects.
    .addColumn('role_rules', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('project_rules', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oidc_providers_name_uq')
    .on('oidc_providers')
    .columns(['tenant_id', 'name_norm'])
    .unique()
    .execute();

  await db.schema
    .createTable('oidc_identities')
    .addColumn('provider_id', 'text', (c) => c.notNull().references('oidc_providers.id').onDelete('cascade'))
    // The provider's `sub` claim: stable for the person at that provider (an e-mail may change).
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oidc_identities_pk', ['provider_id', 'subject'])
    .execute();
  await db.schema
    .createIndex('oidc_identities_user_idx')
    .on('oidc_identities')
    .columns(['tenant_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('oidc_sign_ins')
    // sha256 of the `state` sent to the provider: the callback finds its sign-in by it, and uses it once.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('provider_id', 'text', (c) => c.notNull().references('oidc_providers.id').onDelete('cascade'))
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oidc_sign_ins_expiry_idx')
    .on('oidc_sign_ins')
    .columns(['tenant_id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_sign_ins').execute();
  await db.schema.dropTable('oidc_identities').execute();
  await db.schema.dropTable('oidc_providers').execute();
}
