import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { OAuthDeviceCodesTable, OAuthRefreshTokensTable } from '../../db/tables/oauth.js';

export const insertDeviceCode = (db: Db, row: Insertable<OAuthDeviceCodesTable>) =>
  db.insertInto('oauth_device_codes').values(row).execute();

/** Codes that ended more than `before` ago are of no use even for an `expired_token` answer. */
export const deleteDeviceCodesExpiredBefore = (db: Db, tenantId: string, before: string) =>
  db
    .deleteFrom('oauth_device_codes')
    .where('tenant_id', '=', tenantId)
    .where('expires_at', '<', before)
    .execute();

export const findDeviceCodeByDeviceHash = (db: Db, tenantId: string, hash: string) =>
  db
    .selectFrom('oauth_device_codes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('device_code_hash', '=', hash)
    .executeTakeFirst();

export const findDeviceCodeByUserHash = (db: Db, tenantId: string, hash: string) =>
  db
    .selectFrom('oauth_device_codes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_code_hash', '=', hash)
    .executeTakeFirst();

export const recordPoll = (db: Db, id: string, at: string, intervalSeconds: number) =>
  db
    .updateTable('oauth_device_codes')
    .set({ last_polled_at: at, interval_seconds: intervalSeconds })
    .where('id', '=', id)
    .execute();

/** Moves a code from one status to the next; 0 rows when another request moved it first (single use). */
export const moveDeviceCode = (
  db: Db,
  id: string,
  from: OAuthDeviceCodesTable['status'],
  set: { status: OAuthDeviceCodesTable['status']; user_id?: number; authorization_id?: string },
) =>
  db
    .updateTable('oauth_device_codes')
    .set(set)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();

export const insertRefreshToken = (db: Db, row: Insertable<OAuthRefreshTokensTable>) =>
  db.insertInto('oauth_refresh_tokens').values(row).execute();

export const findRefreshToken = (db: Db, tenantId: string, hash: string) =>
  db
    .selectFrom('oauth_refresh_tokens')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('token_hash', '=', hash)
    .executeTakeFirst();

/** Marks a refresh token used; 0 rows when it was used already (by a concurrent request too). */
export const useRefreshToken = (db: Db, id: string, at: string) =>
  db
    .updateTable('oauth_refresh_tokens')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();

/** Used tokens of a family that would have expired anyway: nothing is learnt from their reuse any more. */
export const deleteExpiredRefreshTokens = (db: Db, authorizationId: string, before: string) =>
  db
    .deleteFrom('oauth_refresh_tokens')
    .where('authorization_id', '=', authorizationId)
    .where('expires_at', '<', before)
    .execute();
