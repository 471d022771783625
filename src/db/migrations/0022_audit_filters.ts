import type { Kysely } from 'kysely';

// The audit log's filters: a page of events of some actions, or of one person, is read in id order
// through an index that starts with what is filtered, never by walking every event of the tenant. The time span
// needs none: it becomes an id range through audit_events_tenant_created_idx (0006), as D13's month start does.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('audit_events_tenant_action_idx')
    .on('audit_events')
    .columns(['tenant_id', 'action', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_tenant_user_idx')
    .on('audit_events')
    .columns(['tenant_id', 'user_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_events_tenant_user_idx').execute();
  await db.schema.dropIndex('audit_events_tenant_action_idx').execute();
}
