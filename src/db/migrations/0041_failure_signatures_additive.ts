import type { Kysely } from 'kysely';

// Failure triage (docs/api-decisions.md#failure-triage). `failure_signatures`: one row per failed or blocked result,
// its signature and label (src/lib/failure-signature.ts), written with the result; project, run, case and time are
// copied from the result so a run's groups read (run_id, signature) and a project's read (project_id, signature)
// without touching `results`. `known_failures`: a project's signatures someone marked as known, one row each.
// `result_links.linked_by` / `linked_at`: who added a link after its result was recorded (triage's "link this defect
// to all"); null for a link recorded with its result (its author and time are the result's).
// Only adds tables: older code keeps running beside them (…_additive, src/db/migrator.ts).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('failure_signatures')
    .addColumn('result_id', 'integer', (c) => c.primaryKey().references('results.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('tcase_id', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('failure_signatures_run_sig_idx')
    .on('failure_signatures')
    .columns(['run_id', 'signature'])
    .execute();
  await db.schema
    .createIndex('failure_signatures_project_sig_idx')
    .on('failure_signatures')
    .columns(['project_id', 'signature', 'run_id'])
    .execute();

  await db.schema
    .createTable('known_failures')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('run_id', 'integer', (c) => c.references('runs.id').onDelete('set null'))
    .addColumn('marked_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('marked_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('known_failures_pk', ['project_id', 'signature'])
    .execute();
  // No foreign key: SQLite cannot drop a column that has one (down), and a user is deactivated, never deleted.
  await db.schema.alterTable('result_links').addColumn('linked_by', 'integer').execute();
  await db.schema.alterTable('result_links').addColumn('linked_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('result_links').dropColumn('linked_at').execute();
  await db.schema.alterTable('result_links').dropColumn('linked_by').execute();
  await db.schema.dropTable('known_failures').execute();
  await db.schema.dropTable('failure_signatures').execute();
}
