import type { Kysely } from 'kysely';

// SCIM 2.0 provisioning (issue 44): the identity provider's view of a person (its userName and externalId beside
// the Casebook user) and its groups with their members. Only adds tables, so older code runs on it (`_additive`).
// api_keys.kind gains the value 'scim' (a text column: nothing to change). Frozen once shipped.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scim_users')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('user_name', 'text', (c) => c.notNull())
    // Lower-cased: userName is unique per tenant regardless of case (RFC 7643 §4.1, caseExact false).
    .addColumn('user_name_norm', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    // name.givenName and name.familyName as the provider sent them (the user's name is what they make up).
    .addColumn('given_name', 'text')
    .addColumn('family_name', 'text')
    // Set by DELETE /Users/{id}: the person stays (deactivated, their work keeps its author) but SCIM no longer
    // knows them (404); a later POST with the same userName brings them back.
    .addColumn('deleted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scim_users_user_name_uq')
    .on('scim_users')
    .columns(['tenant_id', 'user_name_norm'])
    .unique()
    .execute();

  await db.schema
    .createTable('scim_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('display_name_norm', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scim_groups_display_name_uq')
    .on('scim_groups')
    .columns(['tenant_id', 'display_name_norm'])
    .unique()
    .execute();

  await db.schema
    .createTable('scim_group_members')
    .addColumn('group_id', 'text', (c) => c.notNull().references('scim_groups.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('scim_group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('scim_group_members_user_idx')
    .on('scim_group_members')
    .column('user_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scim_group_members').execute();
  await db.schema.dropTable('scim_groups').execute();
  await db.schema.dropTable('scim_users').execute();
}
