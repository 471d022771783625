import { withIdColumn } from '../dialect.js';
// Tables of the administration (integrations, invitations, password resets, two-factor).
// Frozen once shipped: never edit a migration that has landed; add a new one.
// Two blocks: integrations + audit (ADMIN-B) and accounts (ADMIN-A); each keeps to its own block.
export async function up(db) {
    const tenantRef = (c) => c.notNull().references('tenants.id').onDelete('cascade');
    // ---- integrations and audit (ADMIN-B) ----
    await db.schema
        .createTable('integrations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        // JSON of the non-secret settings (account, url, email, organizationKey, newUrl, viewUrl).
        .addColumn('config', 'text', (c) => c.notNull().defaultTo('{}'))
        // AES-256-GCM ciphertext of the tracker credential; never returned.
        .addColumn('token_enc', 'text')
        .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('integrations_tenant_name_uq', ['tenant_id', 'name'])
        .execute();
    // A project points at one integration of each type; linking another of that type replaces the link.
    await db.schema
        .createTable('integration_projects')
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        // JSON of the per-project settings (repo; projectId + projectName; teamId + teamName).
        .addColumn('config', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('integration_projects_pk', ['project_id', 'type'])
        .execute();
    await db.schema
        .createIndex('integration_projects_integration_idx')
        .on('integration_projects')
        .column('integration_id')
        .execute();
    // D13: "from the first event of the current month" is one index probe per tenant.
    await db.schema
        .createIndex('audit_events_tenant_created_idx')
        .on('audit_events')
        .columns(['tenant_id', 'created_at', 'id'])
        .execute();
    // ---- end integrations and audit (ADMIN-B) ----
    // ---- accounts and sign-in (ADMIN-A) ----
    const userRef = (c) => c.notNull().references('users.id').onDelete('cascade');
    // Invitations: one-time links; only the sha256 of the token is stored.
    await db.schema
        .createTable('invitations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_norm', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('invited_by', 'integer', userRef)
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('accepted_at', 'text')
        .addColumn('cancelled_at', 'text')
        .execute();
    await db.schema
        .createIndex('invitations_tenant_email_idx')
        .on('invitations')
        .columns(['tenant_id', 'email_norm'])
        .execute();
    // Password resets: one-time links; only the sha256 of the token is stored.
    await db.schema
        .createTable('password_resets')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('user_id', 'integer', userRef)
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
    await db.schema.createIndex('password_resets_user_idx').on('password_resets').column('user_id').execute();
    // Two-factor sign-in: the TOTP secret (encrypted) and, against replays, the last accepted time step.
    await db.schema
        .createTable('two_factor')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('secret_enc', 'text', (c) => c.notNull())
        // null while set-up is pending (the user has not yet shown they hold the secret).
        .addColumn('enabled_at', 'text')
        .addColumn('last_step', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    await withIdColumn(db, db.schema.createTable('recovery_codes'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('user_id', 'integer', userRef)
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
    await db.schema.createIndex('recovery_codes_user_idx').on('recovery_codes').column('user_id').execute();
    // Failed sign-ins, counted per e-mail and per address to throttle guessing (shared by all processes).
    await withIdColumn(db, db.schema.createTable('sign_in_failures'))
        .addColumn('tenant_id', 'text', tenantRef)
        .addColumn('email_norm', 'text', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    await db.schema
        .createIndex('sign_in_failures_email_idx')
        .on('sign_in_failures')
        .columns(['tenant_id', 'email_norm', 'created_at'])
        .execute();
    await db.schema
        .createIndex('sign_in_failures_ip_idx')
        .on('sign_in_failures')
        .columns(['tenant_id', 'ip', 'created_at'])
        .execute();
    await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();
    // ---- end accounts and sign-in (ADMIN-A) ----
}
export async function down(db) {
    // ---- accounts and sign-in (ADMIN-A) ----
    await db.schema.dropIndex('sessions_expires_idx').execute();
    for (const table of [
        'sign_in_failures',
        'recovery_codes',
        'two_factor',
        'password_resets',
        'invitations',
    ]) {
        await db.schema.dropTable(table).execute();
    }
    // ---- end accounts and sign-in (ADMIN-A) ----
    // ---- integrations and audit (ADMIN-B) ----
    await db.schema.dropIndex('audit_events_tenant_created_idx').execute();
    await db.schema.dropTable('integration_projects').execute();
    await db.schema.dropTable('integrations').execute();
    // ---- end integrations and audit (ADMIN-B) ----
}
//# sourceMappingURL=0006_admin.js.map