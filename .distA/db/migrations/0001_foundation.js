import { bigIdColumn, withIdColumn } from '../dialect.js';
// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db) {
    await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('host', 'text', (c) => c.unique())
        .addColumn('suspended_at', 'text')
        .addColumn('features', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    await withIdColumn(db, db.schema.createTable('users'))
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_norm', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('avatar', 'text')
        .addColumn('deactivated_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('users_tenant_email_uq', ['tenant_id', 'email_norm'])
        .execute();
    await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text')
        .addColumn('revoked_at', 'text')
        .addColumn('last_used_at', 'text')
        .execute();
    await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute();
    await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
    await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('code', 'text', (c) => c.notNull())
        .addColumn('code_norm', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('overview_title', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('overview_description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('links', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('next_tcase_seq', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('archived_at', 'text')
        .addUniqueConstraint('projects_tenant_code_uq', ['tenant_id', 'code_norm'])
        .addUniqueConstraint('projects_tenant_title_uq', ['tenant_id', 'title'])
        .execute();
    await db.schema
        .createTable('project_members')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('project_members_pk', ['project_id', 'user_id'])
        .execute();
    await db.schema.createIndex('project_members_user_idx').on('project_members').column('user_id').execute();
    await withIdColumn(db, db.schema.createTable('folders'))
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('pos', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('folders_sibling_title_uq', ['project_id', 'parent_id', 'title'])
        .execute();
    await db.schema
        .createIndex('folders_parent_pos_idx')
        .on('folders')
        .columns(['project_id', 'parent_id', 'pos'])
        .execute();
    await db.schema
        .createTable('audit_events')
        .addColumn('id', bigIdColumn(db), (c) => bigIdColumn(db) === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('meta', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema
        .createIndex('audit_events_tenant_id_idx')
        .on('audit_events')
        .columns(['tenant_id', 'id'])
        .execute();
    await db.schema.createIndex('audit_events_created_idx').on('audit_events').column('created_at').execute();
}
export async function down(db) {
    for (const table of [
        'audit_events',
        'folders',
        'project_members',
        'projects',
        'sessions',
        'api_keys',
        'users',
        'tenants',
    ]) {
        await db.schema.dropTable(table).execute();
    }
}
//# sourceMappingURL=0001_foundation.js.map