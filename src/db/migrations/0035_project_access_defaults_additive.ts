import type { Kysely } from 'kysely';

// Project access that matches how teams work: an invitation names the projects it grants (or all of them), a
// person may join every project, those made later too (TestRail's global role), and a tenant may make that the
// default for new members. Additive: older code ignores the columns (their defaults grant nothing new).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invitations').addColumn('project_ids', 'text').execute();
  await db.schema
    .alterTable('invitations')
    .addColumn('all_projects', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('joins_new_projects', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('members_join_all_projects', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tenants').dropColumn('members_join_all_projects').execute();
  await db.schema.alterTable('users').dropColumn('joins_new_projects').execute();
  await db.schema.alterTable('invitations').dropColumn('all_projects').execute();
  await db.schema.alterTable('invitations').dropColumn('project_ids').execute();
}
