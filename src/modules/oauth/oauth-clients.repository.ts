import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { OAuthAuthorizationCodesTable, OAuthClientsTable } from '../../db/tables/oauth.js';

// ---- registered clients (RFC 7591) ----

export const insertClient = (db: Db, row: Insertable<OAuthClientsTable>) =>
  db.insertInto('oauth_clients').values(row).execute();

export const findClient = (db: Db, tenantId: string, clientId: string) =>
  db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', clientId)
    .executeTakeFirst();

/** The tenant's clients, newest first, with how many live sign-ins each holds. */
export const listClients = (db: Db, tenantId: string, limit: number) =>
  db
    .selectFrom('oauth_clients as c')
    .select((eb) => [
      'c.id',
      'c.name',
      'c.redirect_uris',
      'c.created_at',
      eb
        .selectFrom('api_keys as k')
        .select((k) => k.fn.countAll<number>().as('n'))
        .whereRef('k.client_id', '=', 'c.id')
        .where('k.tenant_id', '=', tenantId)
        .where('k.kind', '=', 'oauth')
        .where('k.revoked_at', 'is', null)
        .as('live_sign_ins'),
    ])
    .where('c.tenant_id', '=', tenantId)
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id')
    .limit(limit)
    .execute();

// ---- the tenant's rule ----

export const findPolicy = (db: Db, tenantId: string) =>
  db
    .selectFrom('oauth_client_policies')
    .select(['allowed_origins', 'updated_at'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();

export const writePolicy = (db: Db, tenantId: string, allowedOrigins: string | null, at: string) =>
  db
    .insertInto('oauth_client_policies')
    .values({ tenant_id: tenantId, allowed_origins: allowedOrigins, updated_at: at })
    .onConflict((oc) =>
      oc.column('tenant_id').doUpdateSet({ allowed_origins: allowedOrigins, updated_at: at }),
    )
    .execute();

// ---- authorization codes ----

export const insertCode = (db: Db, row: Insertable<OAuthAuthorizationCodesTable>) =>
  db.insertInto('oauth_authorization_codes').values(row).execute();

export const findCode = (db: Db, tenantId: string, hash: string) =>
  db
    .selectFrom('oauth_authorization_codes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('code_hash', '=', hash)
    .executeTakeFirst();

/** Marks a code used by the sign-in it bought; 0 rows when another request used it first (single use). */
export const useCode = (db: Db, id: string, at: string, authorizationId: string) =>
  db
    .updateTable('oauth_authorization_codes')
    .set({ used_at: at, authorization_id: authorizationId })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();

/** Codes that ended before `before`: of no use any more, not even to spot a replay. */
export const deleteCodesExpiredBefore = (db: Db, tenantId: string, before: string) =>
  db
    .deleteFrom('oauth_authorization_codes')
    .where('tenant_id', '=', tenantId)
    .where('expires_at', '<', before)
    .execute();
