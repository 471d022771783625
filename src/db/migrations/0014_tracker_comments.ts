import type { Kysely } from 'kysely';

// Issue-tracker comment-back (D24): the outcome of the comment a result link with `meta.id` on a tracker
// integration posts, written by the job that posts it (src/jobs/tracker-comment.ts). Null on every other link.
// Frozen once shipped: never edit a migration that has landed.

const COLUMNS = ['comment_status', 'comment_id', 'comment_error', 'comment_at'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // pending | posted | failed
  for (const column of COLUMNS)
    await db.schema.alterTable('result_links').addColumn(column, 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('result_links').dropColumn(column).execute();
}
