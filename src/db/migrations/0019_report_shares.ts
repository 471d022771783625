import type { Kysely } from 'kysely';
import { withIdColumn } from '../dialect.js';

// Shared report links (extensions.md §6): an expiring, revocable read-only link to one report. Only the sha256 of
// the token is stored, so a leaked database opens no report. Frozen once shipped: never edit a migration that has
// landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('report_shares'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // run | plan | milestone | dashboard
    .addColumn('kind', 'text', (c) => c.notNull())
    // JSON object: the report's parameters (runId, planId, milestoneId, …)
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  // The project's list of links, newest first.
  await db.schema
    .createIndex('report_shares_project_idx')
    .on('report_shares')
    .columns(['tenant_id', 'project_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('report_shares').execute();
}
