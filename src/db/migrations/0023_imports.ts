import type { Kysely } from 'kysely';
import { withIdColumn } from '../dialect.js';

// Test-case imports (extensions.md §7): one row per uploaded file, its options, its progress and its outcome, and
// the cases each import created, so that an import failing part-way can remove what it wrote. Frozen once shipped:
// never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('imports'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // queued | running | done | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    // JSON object: mapping, separator, folderId, dryRun, skipInvalid
    .addColumn('options', 'text', (c) => c.notNull())
    // The uploaded file in file storage until the job ends; null once removed.
    .addColumn('file_key', 'text')
    // The file storage backend holding it (files.storages.ts): the job may run on another machine, after the
    // storage setting changed.
    .addColumn('file_storage', 'text')
    // The attempt running it: a job run again after its lease expired takes over, and the old attempt's chunks
    // (which check the token in their own transaction) stop.
    .addColumn('run_token', 'text')
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON array of {row, field?, message}
    .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('imports_project_idx')
    .on('imports')
    .columns(['tenant_id', 'project_id', 'id'])
    .execute();
  await db.schema
    .createTable('import_created')
    .addColumn('import_id', 'integer', (c) => c.notNull().references('imports.id').onDelete('cascade'))
    .addColumn('tcase_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_created_pk', ['import_id', 'tcase_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_created').execute();
  await db.schema.dropTable('imports').execute();
}
