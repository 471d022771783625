import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { TcaseVersionsTable } from '../../../db/schema.js';
import { chunks } from '../../../lib/chunks.js';

/* `tcase_versions`: every version of a test case (D15), one row per version, added by each versioned change. */

export const listVersionNumbers = (db: Db, tenantId: string, tcaseId: string) =>
  db
    .selectFrom('tcase_versions')
    .select(['version'])
    .where('tenant_id', '=', tenantId)
    .where('tcase_id', '=', tcaseId)
    .orderBy('version')
    .execute();

/**
 * Every version of a case, newest first, with its author's name: joins `users` (a read kept for speed, one
 * statement instead of one per author; listed in docs/architecture.md). An author row that is gone leaves
 * the name null.
 */
export const listVersionHistory = (db: Db, tenantId: string, tcaseId: string) =>
  db
    .selectFrom('tcase_versions as v')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'v.author_id').on('u.tenant_id', '=', tenantId))
    .select([
      'v.version',
      'v.title',
      'v.author_id',
      'v.created_at',
      'u.name as author_name',
      // The content columns: what changed from one version to the next is told by comparing them.
      'v.priority',
      'v.comment',
      'v.is_empty',
      'v.precondition',
      'v.steps',
      'v.tag_ids',
      'v.requirement_ids',
      'v.links',
      'v.custom_fields',
      'v.file_ids',
      'v.template_data',
    ])
    .where('v.tenant_id', '=', tenantId)
    .where('v.tcase_id', '=', tcaseId)
    .orderBy('v.version', 'desc')
    .execute();

export const insertVersions = async (db: Db, rows: Insertable<TcaseVersionsTable>[]) => {
  for (const part of chunks(rows, 200)) await db.insertInto('tcase_versions').values(part).execute();
};
