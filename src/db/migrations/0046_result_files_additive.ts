import type { Kysely } from 'kysely';

// Attachments on results (extensions.md §8, docs/api-decisions.md#attachments-on-results): `result_files` lists
// the files a result names, in order (the primary key: a result's files by position); file_id is indexed so the
// cleanup of pending uploads asks "does any result name it?" by one probe, run_id so an archive or a purge takes
// a run's rows without the results. `files.purpose` is what an upload was for: 'result' (POST /file?purpose=result,
// pending until a result names it and removed when still pending after 24 hours) or NULL (every other upload,
// never removed by that rule); its index serves the cleanup's scan of old pending uploads.
// Only adds a table, a nullable column and indexes: older code keeps running beside them (…_additive).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('files').addColumn('purpose', 'text').execute();
  await db.schema
    .createIndex('files_purpose_created_idx')
    .on('files')
    .columns(['purpose', 'created_at'])
    .execute();
  await db.schema
    .createTable('result_files')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('result_id', 'integer', (c) => c.notNull().references('results.id').onDelete('cascade'))
    .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('result_files_pk', ['result_id', 'position'])
    .execute();
  await db.schema.createIndex('result_files_file_idx').on('result_files').column('file_id').execute();
  await db.schema.createIndex('result_files_run_idx').on('result_files').column('run_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('result_files').execute();
  await db.schema.dropIndex('files_purpose_created_idx').execute();
  await db.schema.alterTable('files').dropColumn('purpose').execute();
}
