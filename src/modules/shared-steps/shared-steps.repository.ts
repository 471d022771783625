import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { SharedSubStepsTable } from '../../db/tables/repository.js';
import type { SharedItemKind } from '../shared-items/shared-items.repository.js';

/** Heads and usage of shared steps are queried by shared-items.repository.ts. */
export const SHARED_STEP_KIND: SharedItemKind = {
  headTable: 'shared_steps',
  usageTable: 'tcase_shared_steps',
  usageColumn: 'shared_step_id',
  label: 'shared step',
};

/** Titles of these shared steps at these versions (callers pick the exact pairs they asked for). */
export const findVersions = (db: Db, tenantId: string, ids: number[], versions: number[]) =>
  db
    .selectFrom('shared_step_versions')
    .select(['shared_step_id', 'version', 'title', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('shared_step_id', 'in', ids)
    .where('version', 'in', versions)
    .execute();

/** Sub-steps of these shared steps at these versions, in order (callers pick the exact pairs). */
export const findSubSteps = (db: Db, tenantId: string, ids: number[], versions: number[]) =>
  db
    .selectFrom('shared_sub_steps')
    .select(['id', 'shared_step_id', 'version', 'pos', 'description', 'expected'])
    .where('tenant_id', '=', tenantId)
    .where('shared_step_id', 'in', ids)
    .where('version', 'in', versions)
    .orderBy('shared_step_id')
    .orderBy('version')
    .orderBy('pos')
    .execute();

export const insertVersion = (
  db: Db,
  row: { tenant_id: string; shared_step_id: number; version: number; title: string; created_at: string },
) => db.insertInto('shared_step_versions').values(row).execute();

export const insertSubSteps = async (db: Db, rows: Insertable<SharedSubStepsTable>[]) => {
  if (rows.length > 0) await db.insertInto('shared_sub_steps').values(rows).execute();
};
