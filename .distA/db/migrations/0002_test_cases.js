import { storedByPrimaryKey, withIdColumn } from '../dialect.js';
// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db) {
    const tenantRef = (c) => c.notNull().references('tenants.id').onDelete('cascade');
    const projectRef = (c) => c.notNull().references('projects.id').onDelete('cascade');
    await withIdColumn(db, db.schema.createTable('tags'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('tags_project_title_uq', ['project_id', 'title'])
        .execute();
    await withIdColumn(db, db.schema.createTable('milestones'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('archived_at', 'text')
        .execute();
    await db.schema.createIndex('milestones_project_idx').on('milestones').column('project_id').execute();
    await db.schema
        .createTable('configurations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema
        .createIndex('configurations_project_idx')
        .on('configurations')
        .column('project_id')
        .execute();
    // Stored by its text key on SQLite: run lists, results and their foreign-key checks look cases up by id
    // (measured: a 10,000-case run list 38 ms instead of 47, batches of results 8 % faster).
    await storedByPrimaryKey(db, db.schema.createTable('tcases'))
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('legacy_id', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('folder_id', 'integer', (c) => c.notNull().references('folders.id'))
        .addColumn('pos', 'integer', (c) => c.notNull())
        .addColumn('is_draft', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('template_id', 'text', (c) => c.references('tcases.id'))
        .addColumn('version', 'integer', (c) => c.notNull())
        // Title and priority of the latest version, mirrored so lists filter, sort and count on this table alone.
        .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('priority', 'text', (c) => c.notNull().defaultTo('medium'))
        .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .addUniqueConstraint('tcases_project_seq_uq', ['project_id', 'seq'])
        .execute();
    await db.schema
        .createIndex('tcases_folder_pos_idx')
        .on('tcases')
        .columns(['project_id', 'folder_id', 'pos'])
        .execute();
    await db.schema.createIndex('tcases_template_idx').on('tcases').column('template_id').execute();
    await db.schema.createIndex('tcases_title_idx').on('tcases').columns(['project_id', 'title']).execute();
    await db.schema
        .createIndex('tcases_legacy_idx')
        .on('tcases')
        .columns(['project_id', 'legacy_id'])
        .execute();
    await withIdColumn(db, db.schema.createTable('tcase_versions'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('priority', 'text', (c) => c.notNull())
        .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('is_empty', 'integer', (c) => c.notNull())
        .addColumn('precondition', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('steps', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('tag_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('requirement_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('links', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('file_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('template_data', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('tcase_versions_uq', ['tcase_id', 'version'])
        .execute();
    // What a run list shows of a case's version, without reading the (large) version row.
    await db.schema
        .createIndex('tcase_versions_list_idx')
        .on('tcase_versions')
        .columns(['tcase_id', 'version', 'title', 'priority', 'is_empty'])
        .execute();
    await db.schema
        .createTable('tcase_tags')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('tcase_tags_pk', ['tcase_id', 'tag_id'])
        .execute();
    await db.schema.createIndex('tcase_tags_tag_idx').on('tcase_tags').column('tag_id').execute();
    // Standalone steps and preconditions: immutable rows, shared by every version that shows the same text (D15).
    await withIdColumn(db, db.schema.createTable('steps'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('expected', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema.createIndex('steps_tcase_idx').on('steps').column('tcase_id').execute();
    await withIdColumn(db, db.schema.createTable('preconditions'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', projectRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('text', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema.createIndex('preconditions_tcase_idx').on('preconditions').column('tcase_id').execute();
    // Links of the latest version of each live test case, for filters and usage counts (kept in the writing
    // transaction). The referenced tables come in 0003, so these carry no foreign key to them.
    await db.schema
        .createTable('tcase_requirements')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('requirement_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tcase_requirements_pk', ['tcase_id', 'requirement_id'])
        .execute();
    await db.schema
        .createIndex('tcase_requirements_req_idx')
        .on('tcase_requirements')
        .column('requirement_id')
        .execute();
    await db.schema
        .createTable('tcase_shared_steps')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('shared_step_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('tcase_shared_steps_pk', ['tcase_id', 'shared_step_id'])
        .execute();
    await db.schema
        .createIndex('tcase_shared_steps_step_idx')
        .on('tcase_shared_steps')
        .column('shared_step_id')
        .execute();
    await db.schema
        .createTable('tcase_shared_preconditions')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('shared_precondition_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('tcase_shared_preconditions_pk', ['tcase_id', 'shared_precondition_id'])
        .execute();
    await db.schema
        .createIndex('tcase_shared_preconditions_idx')
        .on('tcase_shared_preconditions')
        .column('shared_precondition_id')
        .execute();
    await db.schema
        .createTable('custom_fields')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('system_name', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('options', 'text')
        .addColumn('default_value', 'text')
        .addColumn('pos', 'integer', (c) => c.notNull())
        .addColumn('allow_all_projects', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('allowed_project_ids', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('custom_fields_system_name_uq', ['tenant_id', 'system_name'])
        .execute();
    await db.schema
        .createTable('tcase_custom_values')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('tcase_id', 'text', (c) => c.notNull().references('tcases.id').onDelete('cascade'))
        .addColumn('field_id', 'text', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
        .addColumn('value', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tcase_custom_values_pk', ['tcase_id', 'field_id'])
        .execute();
    await db.schema
        .createIndex('tcase_custom_values_field_idx')
        .on('tcase_custom_values')
        .columns(['field_id', 'value'])
        .execute();
    await db.schema
        .createTable('statuses')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('color', 'text', (c) => c.notNull())
        .addColumn('is_active', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('statuses_pk', ['tenant_id', 'id'])
        .execute();
}
export async function down(db) {
    for (const table of [
        'statuses',
        'tcase_custom_values',
        'custom_fields',
        'tcase_shared_preconditions',
        'tcase_shared_steps',
        'tcase_requirements',
        'preconditions',
        'steps',
        'tcase_tags',
        'tcase_versions',
        'tcases',
        'configurations',
        'milestones',
        'tags',
    ]) {
        await db.schema.dropTable(table).execute();
    }
}
//# sourceMappingURL=0002_test_cases.js.map