import type { Kysely } from 'kysely';

// The reconciliation of an import (extensions.md §7a): per kind (folders, cases, steps, customValues, requirements,
// links, files) what the file held and what the import created, changed and left out, as one JSON object.
// Additive (a column with a default): an older version reads the table as before.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('imports')
    .addColumn('reconciliation', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('imports').dropColumn('reconciliation').execute();
}
