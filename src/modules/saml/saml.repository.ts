import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { SamlProvidersTable, SamlRequestsTable } from '../../db/tables/saml.js';

// ---- providers ----

export const insertProvider = (db: Db, row: Insertable<SamlProvidersTable>) =>
  db.insertInto('saml_providers').values(row).execute();

export const findProvider = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('saml_providers')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const listProviders = (db: Db, tenantId: string) =>
  db
    .selectFrom('saml_providers')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('name_norm')
    .orderBy('id')
    .execute();

export const listEnabledProviders = (db: Db, tenantId: string) =>
  db
    .selectFrom('saml_providers')
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
  values: Updateable<SamlProvidersTable>,
) =>
  db
    .updateTable('saml_providers')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();

export const deleteProvider = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('saml_providers').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

// ---- identities ----

export const findIdentity = (db: Db, tenantId: string, providerId: string, subject: string) =>
  db
    .selectFrom('saml_identities')
    .select(['user_id'])
    .where('tenant_id', '=', tenantId)
    .where('provider_id', '=', providerId)
    .where('subject', '=', subject)
    .executeTakeFirst();

/** Links the IdP's NameID to a user, or records another sign-in of the link. */
export const saveIdentity = (
  db: Db,
  row: { tenant_id: string; provider_id: string; subject: string; user_id: number; at: string },
) =>
  db
    .insertInto('saml_identities')
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

// ---- AuthnRequests under way ----

export const insertRequest = (db: Db, row: Insertable<SamlRequestsTable>) =>
  db.insertInto('saml_requests').values(row).execute();

export const findRequest = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('saml_requests')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Uses a request up: 0 rows when another answer took it first (single use). */
export const deleteRequest = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('saml_requests').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

export const deleteExpiredRequests = (db: Db, tenantId: string, before: string) =>
  db.deleteFrom('saml_requests').where('tenant_id', '=', tenantId).where('expires_at', '<', before).execute();

// ---- assertions seen ----

/** Remembers an assertion id; a unique violation means it was seen (a replay). */
export const insertAssertion = (
  db: Db,
  row: { provider_id: string; assertion_id: string; tenant_id: string; expires_at: string },
) => db.insertInto('saml_assertions').values(row).execute();

export const deleteExpiredAssertions = (db: Db, tenantId: string, before: string) =>
  db
    .deleteFrom('saml_assertions')
    .where('tenant_id', '=', tenantId)
    .where('expires_at', '<', before)
    .execute();
