import type { Kysely } from 'kysely';

// Per-step results (extensions.md §8): a result's outcome of each step of the case version it was recorded
// against, at most one row per step (the primary key). Read by result (a case's results, the run report's latest
// results), so the key leads with result_id; run_id lets an archive or a purge take a run's rows without the
// results. Only adds a table: older code keeps running beside it (…_additive, src/db/migrator.ts).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('result_steps')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('result_id', 'integer', (c) => c.notNull().references('results.id').onDelete('cascade'))
    .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('step_id', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('result_steps_pk', ['result_id', 'position'])
    .execute();
  await db.schema.createIndex('result_steps_run_idx').on('result_steps').column('run_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('result_steps').execute();
}
