import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { IdempotencyKeysTable } from '../../db/tables/idempotency.js';

export const findRecord = (db: Db, tenantId: string, caller: string, route: string, key: string) =>
  db
    .selectFrom('idempotency_keys')
    .select(['id', 'request_hash', 'status_code', 'response_body', 'expires_at'])
    .where('tenant_id', '=', tenantId)
    .where('caller', '=', caller)
    .where('route', '=', route)
    .where('idem_key', '=', key)
    .executeTakeFirst();

export const insertRecords = async (db: Db, rows: Insertable<IdempotencyKeysTable>[]): Promise<void> => {
  if (rows.length > 0) await db.insertInto('idempotency_keys').values(rows).execute();
};

export const deleteRecord = (db: Db, tenantId: string, id: number) =>
  db.deleteFrom('idempotency_keys').where('tenant_id', '=', tenantId).where('id', '=', id).execute();

/** Deletes at most `limit` expired records (any tenant); answers how many went. */
export const removeExpired = async (db: Db, now: string, limit: number): Promise<number> => {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('id', 'in', (eb) =>
      eb.selectFrom('idempotency_keys').select('id').where('expires_at', '<=', now).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};
