import type { Kysely } from 'kysely';

// Reports (extensions.md §6) read through indexes bounded by `last`, never every row of a project's history:
// - the default `since` of a run report: the same-title run in the newest earlier plan, and the newest earlier
//   run with the same milestone and configuration;
// - the trend by day: a project's runs by creation time;
// - requirement coverage: a test case's newest run (run_tcases_tcase_idx has no run order).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('runs_project_title_plan_idx')
    .on('runs')
    .columns(['project_id', 'title', 'plan_id'])
    .execute();
  await db.schema
    .createIndex('runs_project_milestone_config_idx')
    .on('runs')
    .columns(['project_id', 'milestone_id', 'configuration_id', 'id'])
    .execute();
  await db.schema
    .createIndex('runs_project_created_idx')
    .on('runs')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('run_tcases_tcase_run_idx')
    .on('run_tcases')
    .columns(['tcase_id', 'run_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('run_tcases_tcase_run_idx').execute();
  await db.schema.dropIndex('runs_project_created_idx').execute();
  await db.schema.dropIndex('runs_project_milestone_config_idx').execute();
  await db.schema.dropIndex('runs_project_title_plan_idx').execute();
}
