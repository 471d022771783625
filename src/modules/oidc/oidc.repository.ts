import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { OidcProvidersTable, OidcSignInsTable } from '../../db/tables/oidc.js';

// ---- providers ----

export const insertProvider = (db: Db, row: Insertable<OidcProvidersTable>) =>
  db.insertInto('oidc_providers').values(row).execute();

export const findProvider = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('oidc_providers')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const listProviders = (db: Db, tenantId: string) =>
  db
    .selectFrom('oidc_providers')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('name_norm')
    .orderBy('id')
    .execute();

export const listEnabledProviders = (db: Db, tenantId: string) =>
  db
    .selectFrom('oidc_providers')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', 1)
    .orderBy('name_norm')
    .orderBy('id')
    .execute();

export const updateProvider = (
  db: Db,
  tenantId: string,
  id: string,
  values: Updateable<OidcProvidersTable>,
) =>
  db
    .updateTable('oidc_providers')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();

export const deleteProvider = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('oidc_providers').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

// ---- identities ----

export const findIdentity = (db: Db, tenantId: string, providerId: string, subject: string) =>
  db
    .selectFrom('oidc_identities')
    .select(['user_id'])
    .where('tenant_id', '=', tenantId)
    .where('provider_id', '=', providerId)
    .where('subject', '=', subject)
    .executeTakeFirst();

/** Links the provider's subject to a user, or records another sign-in of the link. */
export const saveIdentity = (
  db: Db,
  row: { tenant_id: string; provider_id: string; subject: string; user_id: number; at: string },
) =>
  db
    .insertInto('oidc_identities')
    .values({
      tenant_id: row.tenant_id,
      provider_id: row.provider_id,
      subject: row.subject,
      user_id: row.user_id,
      created_at: row.at,
      last_sign_in_at: row.at,
    })
    .onConflict((oc) => oc.columns(['provider_id', 'subject']).doUpdateSet({ last_sign_in_at: row.at }))
    .execute();

// ---- sign-ins under way ----

export const insertSignIn = (db: Db, row: Insertable<OidcSignInsTable>) =>
  db.insertInto('oidc_sign_ins').values(row).execute();

export const findSignIn = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('oidc_sign_ins')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Uses a sign-in up: 0 rows when another request took it first (single use). */
export const deleteSignIn = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('oidc_sign_ins').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

export const deleteExpiredSignIns = (db: Db, tenantId: string, before: string) =>
  db.deleteFrom('oidc_sign_ins').where('tenant_id', '=', tenantId).where('expires_at', '<', before).execute();
