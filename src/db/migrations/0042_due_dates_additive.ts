import type { Kysely } from 'kysely';

// Due dates (extensions.md §8, docs/api-decisions.md#due-dates): `runs.due_at` and `run_tcases.due_at`, a calendar
// day YYYY-MM-DD or NULL (none). "Overdue" is computed from them when read, never stored. "My work" finds a
// person's cases by run_tcases_assignee_idx (0028), so no index is added.
// Only adds columns: older code keeps running beside them (…_additive, src/db/migrator.ts).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('due_at', 'text').execute();
  await db.schema.alterTable('run_tcases').addColumn('due_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('run_tcases').dropColumn('due_at').execute();
  await db.schema.alterTable('runs').dropColumn('due_at').execute();
}
