import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { StatusesTable } from '../../db/schema.js';

export const listStatusRows = (db: Db, tenantId: string) =>
  db.selectFrom('statuses').selectAll().where('tenant_id', '=', tenantId).execute();

export const upsertStatus = (db: Db, row: Insertable<StatusesTable>) =>
  db
    .insertInto('statuses')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'id']).doUpdateSet({
        name: row.name,
        color: row.color,
        is_active: row.is_active,
        updated_at: row.updated_at,
      }),
    )
    .execute();

/**
 * Results of the tenant per status among `ids`, in one read. No index leads with the status (a result's writes
 * stay cheaper without one), so this reads the tenant's results: an admin's question, asked when the statuses
 * page opens, not on a hot path (docs/api-decisions.md#custom-status-usage).
 */
export const countResultsByStatus = (db: Db, tenantId: string, ids: readonly string[]) =>
  db
    .selectFrom('results')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('status', 'in', ids)
    .groupBy('status')
    .execute();
