import type { Kysely } from 'kysely';

// What an import wrote besides the cases it created (0023's import_created), so that one failing part-way removes
// it all: the folders it created and the version each case it changed had before. And the warnings of an import
// (what a row held that the import could not keep, such as QA Sphere's attached files), beside its errors.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_folders')
    .addColumn('import_id', 'integer', (c) => c.notNull().references('imports.id').onDelete('cascade'))
    .addColumn('folder_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_folders_pk', ['import_id', 'folder_id'])
    .execute();
  await db.schema
    .createTable('import_versions')
    .addColumn('import_id', 'integer', (c) => c.notNull().references('imports.id').onDelete('cascade'))
    .addColumn('tcase_id', 'text', (c) => c.notNull())
    // The case's version before the import changed it.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_versions_pk', ['import_id', 'tcase_id'])
    .execute();
  // JSON array of {row, field?, message}
  await db.schema
    .alterTable('imports')
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('imports').dropColumn('warnings').execute();
  await db.schema.dropTable('import_versions').execute();
  await db.schema.dropTable('import_folders').execute();
}
