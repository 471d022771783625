import type { Db } from '../../../db/create-db.js';
import { chunks } from '../../../lib/chunks.js';

/* The queries of the lookups the runs module makes (lookups.service.ts): what cases are, in a few words. */

/** A few columns of test cases at their latest version, by id, in no particular order (lists that only name cases). */
export async function listSummariesByIds(
  db: Db,
  tenantId: string,
  ids: string[],
): Promise<{ id: string; seq: number; title: string; folder_id: number; priority: string }[]> {
  const out: { id: string; seq: number; title: string; folder_id: number; priority: string }[] = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await db
        .selectFrom('tcases as t')
        // title and priority: the mirrors of the latest version on tcases
        .select(['t.id', 't.seq', 't.title', 't.folder_id', 't.priority'])
        .where('t.tenant_id', '=', tenantId)
        .where('t.id', 'in', part)
        .execute()),
    );
  }
  return out;
}

/** Kind of the named test cases of a project, to explain why they cannot join a run. */
export const listTcaseKinds = async (db: Db, tenantId: string, projectId: string, ids: string[]) => {
  const out: { id: string; type: string; is_draft: number; deleted_at: string | null }[] = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await db
        .selectFrom('tcases')
        .select(['id', 'type', 'is_draft', 'deleted_at'])
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('id', 'in', part)
        .execute()),
    );
  }
  return out;
};
