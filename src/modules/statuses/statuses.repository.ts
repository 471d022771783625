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
