import type { Kysely } from 'kysely';
import { withIdColumn } from '../dialect.js';

// Saved views: a person's named set of a page's filters and sort, private or shared with the project.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('saved_views'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // repository | runs: the page whose address the filters are
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // The name lower-cased: "Smoke" and "smoke" are one name of a person's views of a page.
    .addColumn('name_norm', 'text', (c) => c.notNull())
    // JSON object: the page's address search parameters
    .addColumn('filters', 'text', (c) => c.notNull())
    // 0 private (its owner's only), 1 shared with everyone who reads the project
    .addColumn('shared', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One name per owner and page in a project (a clash is a 409); also the index of a project's views.
  await db.schema
    .createIndex('saved_views_name_uq')
    .on('saved_views')
    .columns(['tenant_id', 'project_id', 'owner_id', 'page', 'name_norm'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saved_views').execute();
}
