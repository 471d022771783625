import type { Kysely } from 'kysely';

// "Test sign-in" of an OpenID Connect provider (issue 44; docs/api-decisions.md#openid-connect-sign-in): a sign-in
// under way may be an admin's test (`oidc_sign_ins.test_user_id`, the admin who started it; null for a real sign-in),
// whose callback opens no session and makes or changes no account; its outcome (the claims received, the role and
// projects they map to, or the refusal in words) is kept on the provider (`oidc_providers.last_test`, JSON) for the
// administration page. And the tenant's `password_sign_in`: `everyone` (the default: as before) or `owners`, where
// people sign in through an identity provider and only the owner keeps a password (break-glass). Only adds nullable
// or defaulted columns: older code keeps running beside it (…_additive,
// src/db/migrator.ts). Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('oidc_sign_ins')
    .addColumn('test_user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .execute();
  await db.schema.alterTable('oidc_providers').addColumn('last_test', 'text').execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('password_sign_in', 'text', (c) => c.notNull().defaultTo('everyone'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').dropColumn('password_sign_in').execute();
  await db.schema.alterTable('oidc_providers').dropColumn('last_test').execute();
  await db.schema.alterTable('oidc_sign_ins').dropColumn('test_user_id').execute();
}
