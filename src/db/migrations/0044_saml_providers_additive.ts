import type { Kysely } from 'kysely';

// SAML 2.0 sign-in (issue 44), Casebook as the service provider: the identity providers a tenant's admins configure
// (the IdP's signing certificate pinned: public, nothing sealed), the identities of people who signed in through one
// (the IdP's NameID), the AuthnRequests under way (their ID, which the answer's InResponseTo must name, used once)
// and the assertion ids seen, kept until the assertion expires (a replayed assertion is refused). Only adds tables,
// so code of the version before runs on it unchanged (`_additive`). Frozen once shipped.

export async function up(db: Kysely<any>): Promise<void> {
  const tenantRef = (c: any) => c.notNull().references('tenants.id').onDelete('cascade');
  const providerRef = (c: any) => c.notNull().references('saml_providers.id').onDelete('cascade');

  await db.schema
    .createTable('saml_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('name', 'text', (c) => c.notNull())
    // Lower-cased: one name per tenant in any letter case (the sign-in page could not tell them apart).
    .addColumn('name_norm', 'text', (c) => c.notNull())
    .addColumn('idp_entity_id', 'text', (c) => c.notNull())
    // The IdP's single sign-on address (HTTP-Redirect binding).
    .addColumn('sso_url', 'text', (c) => c.notNull())
    // PEM of the IdP's signing certificate: the only key an assertion's signature is checked with.
    .addColumn('idp_cert', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    // 1: answers no AuthnRequest of ours asked for (IdP-initiated) are taken; 0 (default): refused.
    .addColumn('allow_idp_initiated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('just_in_time', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('default_role', 'text', (c) => c.notNull().defaultTo('test-runner'))
    // Attribute names: the e-mail (else the NameID when it is an e-mail address), the display name, the groups.
    .addColumn('email_attribute', 'text', (c) => c.notNull().defaultTo('email'))
    .addColumn('name_attribute', 'text', (c) => c.notNull().defaultTo('name'))
    .addColumn('groups_attribute', 'text', (c) => c.notNull().defaultTo('groups'))
    // JSON [{group, role}], first match wins; JSON [{group, projectIds}], every match adds its projects.
    .addColumn('role_rules', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('project_rules', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('saml_providers_name_uq')
    .on('saml_providers')
    .columns(['tenant_id', 'name_norm'])
    .unique()
    .execute();

  await db.schema
    .createTable('saml_identities')
    .addColumn('provider_id', 'text', providerRef)
    // The assertion's NameID: the person at that IdP.
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_identities_pk', ['provider_id', 'subject'])
    .execute();
  await db.schema
    .createIndex('saml_identities_user_idx')
    .on('saml_identities')
    .columns(['tenant_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('saml_requests')
    // The AuthnRequest's ID: the answer's InResponseTo names it; used once.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('provider_id', 'text', providerRef)
    // sha256 of the browser's cookie value: the answer must come to the browser that asked.
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('saml_requests_expiry_idx')
    .on('saml_requests')
    .columns(['tenant_id', 'expires_at'])
    .execute();

  await db.schema
    .createTable('saml_assertions')
    .addColumn('provider_id', 'text', providerRef)
    // The assertion's ID attribute, kept until the assertion expires: seen twice is a replay.
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_assertions_pk', ['provider_id', 'assertion_id'])
    .execute();
  await db.schema
    .createIndex('saml_assertions_expiry_idx')
    .on('saml_assertions')
    .columns(['tenant_id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saml_assertions').execute();
  await db.schema.dropTable('saml_requests').execute();
  await db.schema.dropTable('saml_identities').execute();
  await db.schema.dropTable('saml_providers').execute();
}
