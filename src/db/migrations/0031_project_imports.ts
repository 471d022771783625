import type { Kysely } from 'kysely';
import { withIdColumn } from '../dialect.js';

// Project imports from a Casebook archive (extensions.md §7, POST /import/project): one row per uploaded archive,
// the code it creates, its progress and outcome, and the project it wrote so far (a failure or a retried attempt
// removes it). Not `imports`: that table's rows belong to an existing project.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('project_imports'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    // queued | running | done | failed
    .addColumn('status', 'text', (c) => c.notNull())
    // The code the project is created with (the archive's, or the one asked for); null: the archive's, read by the job.
    .addColumn('code', 'text')
    .addColumn('file_key', 'text')
    .addColumn('file_storage', 'text')
    // The project written so far; set in the transaction that creates it.
    .addColumn('project_id', 'text')
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('project_imports').execute();
}
