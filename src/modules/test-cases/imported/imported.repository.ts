import type { Db } from '../../../db/create-db.js';
import { chunks } from '../../../lib/chunks.js';

/* The queries of imports and exports of test cases: matching legacy ids, and one folder's cases page by page. */

/** legacy id → the live case holding it (the lowest seq when several do) and its type, for the ids given. */
export async function findLiveByLegacyIds(
  db: Db,
  tenantId: string,
  projectId: string,
  legacyIds: string[],
): Promise<Map<string, { id: string; type: string }>> {
  const out = new Map<string, { id: string; type: string }>();
  for (const part of chunks([...new Set(legacyIds)])) {
    const rows = await db
      .selectFrom('tcases')
      .select(['id', 'legacy_id', 'type'])
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .where('legacy_id', 'in', part)
      .orderBy('seq', 'desc')
      .execute();
    // Descending: the lowest seq is set last and wins.
    for (const r of rows) out.set(r.legacy_id, { id: r.id, type: r.type });
  }
  return out;
}

/** Ids of a folder's live standalone and template cases after (pos, seq), by position: one page of an export. */
export async function listFolderPage(
  db: Db,
  tenantId: string,
  projectId: string,
  folderId: number,
  after: { pos: number; seq: number } | undefined,
  limit: number,
): Promise<{ id: string; pos: number; seq: number }[]> {
  let q = db
    .selectFrom('tcases')
    .select(['id', 'pos', 'seq'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('folder_id', '=', folderId)
    .where('deleted_at', 'is', null)
    .where('type', '!=', 'filled');
  if (after) {
    const { pos, seq } = after;
    q = q.where((eb) => eb.or([eb('pos', '>', pos), eb.and([eb('pos', '=', pos), eb('seq', '>', seq)])]));
  }
  return q.orderBy('pos').orderBy('seq').limit(limit).execute();
}

/** The most steps any live standalone or template case of the project has (an export's Step N columns). */
export async function maxStepCount(db: Db, tenantId: string, projectId: string): Promise<number> {
  let max = 0;
  let after = '';
  // Page by id over the steps column only: memory stays flat whatever the project's size.
  for (;;) {
    const rows = await db
      .selectFrom('tcases as t')
      .innerJoin('tcase_versions as v', (j) =>
        j.onRef('v.tcase_id', '=', 't.id').onRef('v.version', '=', 't.version'),
      )
      .select(['t.id', 'v.steps'])
      .where('t.tenant_id', '=', tenantId)
      .where('t.project_id', '=', projectId)
      .where('t.deleted_at', 'is', null)
      .where('t.type', '!=', 'filled')
      .where('t.id', '>', after)
      .orderBy('t.id')
      .limit(2000)
      .execute();
    for (const r of rows) max = Math.max(max, (JSON.parse(r.steps) as unknown[]).length);
    if (rows.length < 2000) return max;
    after = rows[rows.length - 1].id;
  }
}
