import type { Kysely } from 'kysely';

// Run test case assignees: who is to run a case in a run, nobody when null. A person who is removed keeps
// nothing assigned (set null). The index serves the run page's "mine" and "unassigned" filters (assignee, run)
// and the foreign key's own lookups when a user row goes.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('run_tcases')
    .addColumn('assignee_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await db.schema
    .createIndex('run_tcases_assignee_idx')
    .on('run_tcases')
    .columns(['assignee_id', 'run_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('run_tcases_assignee_idx').execute();
  await db.schema.alterTable('run_tcases').dropColumn('assignee_id').execute();
}
