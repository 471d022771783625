import type { Kysely } from 'kysely';

// Plans and milestones after the fact: a milestone's description and due date (a calendar date,
// YYYY-MM-DD, or null), and a plan's closed state (closing a plan closes its open runs in the same transaction;
// a closed plan takes no more changes).
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('milestones')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('milestones').addColumn('due', 'text').execute();
  await db.schema.alterTable('plans').addColumn('closed_at', 'text').execute();
  await db.schema
    .alterTable('plans')
    .addColumn('closed_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('plans').dropColumn('closed_by').execute();
  await db.schema.alterTable('plans').dropColumn('closed_at').execute();
  await db.schema.alterTable('milestones').dropColumn('due').execute();
  await db.schema.alterTable('milestones').dropColumn('description').execute();
}
