import type { Kysely } from 'kysely';

// Failure triage (docs/api-decisions.md#failure-triage): `failure_signatures.version`, the SIGNATURE_VERSION of
// src/lib/failure-signature.ts that signed a row. Rows stored before it are version 1; the backfill re-signs rows
// of older versions, so a changed normaliser does not split one problem into its old and its new signature.
// Only adds a column with a default: older code keeps running beside it (…_additive, src/db/migrator.ts).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('failure_signatures')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('failure_signatures').dropColumn('version').execute();
}
