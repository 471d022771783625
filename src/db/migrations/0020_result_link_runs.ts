import { sql, type Kysely } from 'kysely';

// The defects report (extensions.md §6) reads the links of the project's last N runs. A link knew its run only
// through its result, so every plan had to join all results or all links of the history (PostgreSQL hashed both
// tables whole). Each link now carries its run, written with it in the result's transaction, and is read by run.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  // Nullable in the DDL (SQLite cannot add a NOT NULL column without a default); every row is filled below and
  // every writer sets it (the table type requires it).
  await db.schema.alterTable('result_links').addColumn('run_id', 'integer').execute();
  await sql`update result_links set run_id = (select r.run_id from results r where r.id = result_links.result_id)`.execute(
    db,
  );
  await db.schema.createIndex('result_links_run_idx').on('result_links').column('run_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('result_links_run_idx').execute();
  await db.schema.alterTable('result_links').dropColumn('run_id').execute();
}
