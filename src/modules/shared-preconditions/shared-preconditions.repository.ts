import type { Db } from '../../db/create-db.js';
import type { SharedItemKind } from '../shared-items/shared-items.repository.js';

/** Heads and usage of shared preconditions are queried by shared-items.repository.ts. */
export const SHARED_PRECONDITION_KIND: SharedItemKind = {
  headTable: 'shared_preconditions',
  usageTable: 'tcase_shared_preconditions',
  usageColumn: 'shared_precondition_id',
  label: 'shared precondition',
};

/** These shared preconditions at these versions (callers pick the exact pairs they asked for). */
export const findVersions = (db: Db, tenantId: string, ids: number[], versions: number[]) =>
  db
    .selectFrom('shared_precondition_versions')
    .select(['shared_precondition_id', 'version', 'title', 'text', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('shared_precondition_id', 'in', ids)
    .where('version', 'in', versions)
    .execute();

export const insertVersion = (
  db: Db,
  row: {
    tenant_id: string;
    shared_precondition_id: number;
    version: number;
    title: string;
    text: string;
    created_at: string;
  },
) => db.insertInto('shared_precondition_versions').values(row).execute();
