import { withIdColumn } from '../dialect.js';
// Tables of the runs, run test cases, results, run logs, test plans.
// Frozen once shipped: never edit a migration that has landed; add a new one.
export async function up(db) {
    const tenantRef = (c) => c.notNull().references('tenants.id').onDelete('cascade');
    const projectRef = (c) => c.notNull().references('projects.id').onDelete('cascade');
    await withIdColumn(db, db.schema.createTable('plans'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
        // D20: milestone_id or 0, so "unique within its milestone or among plans without one" is one unique index.
        .addColumn('milestone_key', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('plans_title_uq', ['project_id', 'milestone_key', 'title'])
        .execute();
    await withIdColumn(db, db.schema.createTable('runs'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('plan_id', 'integer', (c) => c.references('plans.id').onDelete('cascade'))
        // D10: plan_id or 0, so title uniqueness (per project outside plans, per plan inside) is one unique index.
        .addColumn('plan_key', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
        .addColumn('assignment_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('configuration_id', 'text', (c) => c.references('configurations.id').onDelete('set null'))
        .addColumn('is_automated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('time_spent', 'integer')
        .addColumn('query_plans', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('closed_at', 'text')
        .addColumn('closed_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('cnt_open', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_passed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_failed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_blocked', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_skipped', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_custom1', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_custom2', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_custom3', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cnt_custom4', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('runs_title_uq', ['project_id', 'plan_key', 'title'])
        .execute();
    await db.schema.createIndex('runs_project_idx').on('runs').columns(['project_id', 'id']).execute();
    // Propagation (D17) looks up the open live runs of a project on every test-case write; without this it
    // reads every run row, including the long query_plans of large static runs stored before closed_at.
    await db.schema
        .createIndex('runs_project_type_open_idx')
        .on('runs')
        .columns(['project_id', 'type', 'closed_at'])
        .execute();
    await db.schema.createIndex('runs_plan_idx').on('runs').column('plan_id').execute();
    await db.schema.createIndex('runs_milestone_idx').on('runs').column('milestone_id').execute();
    // A rowid table on purpose (not storedByPrimaryKey): its rows lie in the order cases were added to the run,
    // so a batch of results for neighbouring cases rewrites a few pages, where a table kept in tcase_id order
    // (random ids) rewrites two hundred per batch of 500 (measured: WAL frames per batch 120 vs 250).
    await db.schema
        .createTable('run_tcases')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
        .addColumn('is_automated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('version', 'integer')
        .addColumn('in_run', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('frozen_folder_id', 'integer')
        .addColumn('frozen_pos', 'integer')
        .addColumn('latest_result_id', 'integer')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('run_tcases_pk', ['run_id', 'tcase_id'])
        .execute();
    // Propagation (D17) finds the runs holding a changed test case.
    await db.schema.createIndex('run_tcases_tcase_idx').on('run_tcases').column('tcase_id').execute();
    await withIdColumn(db, db.schema.createTable('results'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('tcase_version', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('time_taken', 'integer')
        .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('api_key_id', 'text')
        .addColumn('internal', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema
        .createIndex('results_run_tcase_idx')
        .on('results')
        .columns(['run_id', 'tcase_id', 'id'])
        .execute();
    await withIdColumn(db, db.schema.createTable('result_links'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('result_id', 'integer', (c) => c.notNull().references('results.id').onDelete('cascade'))
        .addColumn('integration_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('meta', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
    await db.schema.createIndex('result_links_result_idx').on('result_links').column('result_id').execute();
    await db.schema
        .createTable('run_logs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('run_id', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'))
        .addColumn('comment', 'text', (c) => c.notNull())
        .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema
        .createIndex('run_logs_run_created_idx')
        .on('run_logs')
        .columns(['run_id', 'created_at'])
        .execute();
}
export async function down(db) {
    for (const table of ['run_logs', 'result_links', 'results', 'run_tcases', 'runs', 'plans']) {
        await db.schema.dropTable(table).execute();
    }
}
//# sourceMappingURL=0005_execution.js.map