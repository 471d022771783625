import { sql } from 'kysely';
import { withIdColumn } from '../dialect.js';
// Tables of the test-case repository's shared resources: requirements, shared steps (with sub-steps)
// and shared preconditions, both versioned.
// Frozen once shipped: never edit a migration that has landed; add a new one.
export async function up(db) {
    const tenantRef = (c) => c.notNull().references('tenants.id').onDelete('cascade');
    const projectRef = (c) => c.notNull().references('projects.id').onDelete('cascade');
    // Same text and url in a project = the same requirement; the constraint makes create-on-demand race-free.
    await db.schema
        .createTable('requirements')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('requirements_project_text_url_uq', ['project_id', 'text', 'url'])
        .execute();
    // The head row of a shared step carries its latest title and version; history lives in the versions.
    await withIdColumn(db, db.schema.createTable('shared_steps'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
    // Titles are unique among the project's live shared steps (a deleted one frees its title).
    await db.schema
        .createIndex('shared_steps_live_title_uq')
        .on('shared_steps')
        .columns(['project_id', 'title'])
        .unique()
        .where(sql.ref('deleted_at'), 'is', null)
        .execute();
    await withIdColumn(db, db.schema.createTable('shared_step_versions'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('shared_step_id', 'integer', (c) => c.notNull().references('shared_steps.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('shared_step_versions_uq', ['shared_step_id', 'version'])
        .execute();
    // Sub-steps belong to one version of their shared step: a new version gets new rows (and ids).
    await withIdColumn(db, db.schema.createTable('shared_sub_steps'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('shared_step_id', 'integer', (c) => c.notNull().references('shared_steps.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('pos', 'integer', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('expected', 'text', (c) => c.notNull().defaultTo(''))
        .addUniqueConstraint('shared_sub_steps_pos_uq', ['shared_step_id', 'version', 'pos'])
        .execute();
    await withIdColumn(db, db.schema.createTable('shared_preconditions'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
    await db.schema
        .createIndex('shared_preconditions_live_title_uq')
        .on('shared_preconditions')
        .columns(['project_id', 'title'])
        .unique()
        .where(sql.ref('deleted_at'), 'is', null)
        .execute();
    await withIdColumn(db, db.schema.createTable('shared_precondition_versions'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('shared_precondition_id', 'integer', (c) => c.notNull().references('shared_preconditions.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('shared_precondition_versions_uq', ['shared_precondition_id', 'version'])
        .execute();
}
export async function down(db) {
    for (const table of [
        'shared_precondition_versions',
        'shared_preconditions',
        'shared_sub_steps',
        'shared_step_versions',
        'shared_steps',
        'requirements',
    ]) {
        await db.schema.dropTable(table).execute();
    }
}
//# sourceMappingURL=0003_repository.js.map