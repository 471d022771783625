import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ApiKeysTable } from '../../db/schema.js';
import { prepareQuery } from '../../db/prepared.js';

export const insertKey = (db: Db, row: Insertable<ApiKeysTable>) =>
  db.insertInto('api_keys').values(row).execute();

/** The key, its user and its tenant in one indexed lookup: this runs on every request (so it is prepared). */
const keyForAuth = prepareQuery((db: Db, keyId: string) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select([
      'k.id',
      'k.tenant_id',
      'k.user_id',
      'k.name',
      'k.secret_hash',
      'k.expires_at',
      'k.revoked_at',
      'u.role',
      'u.deactivated_at',
      't.suspended_at',
    ])
    .where('k.id', '=', keyId),
);
export const findKeyForAuth = (db: Db, keyId: string) => keyForAuth.executeTakeFirst(db, keyId);

export const listKeys = (db: Db, tenantId: string, userId?: number) => {
  let q = db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select([
      'k.id',
      'k.name',
      'k.user_id',
      'u.email',
      'k.created_at',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
    ])
    .where('k.tenant_id', '=', tenantId);
  if (userId !== undefined) q = q.where('k.user_id', '=', userId);
  return q.orderBy('k.created_at').execute();
};

export const revokeKey = (db: Db, tenantId: string, keyId: string, at: string) =>
  db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

export const findKey = (db: Db, tenantId: string, keyId: string) =>
  db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .executeTakeFirst();
