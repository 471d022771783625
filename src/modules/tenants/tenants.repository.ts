import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { TenantsTable } from '../../db/schema.js';

export type TenantRow = Selectable<TenantsTable>;

export const findTenant = (db: Db, id: string) =>
  db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();

export const findTenantByHost = (db: Db, host: string) =>
  db.selectFrom('tenants').selectAll().where('host', '=', host).executeTakeFirst();

export const listTenants = (db: Db) => db.selectFrom('tenants').selectAll().orderBy('created_at').execute();

export const insertTenant = (db: Db, row: Insertable<TenantsTable>) =>
  db.insertInto('tenants').values(row).execute();

export const updateTenant = (db: Db, id: string, values: Updateable<TenantsTable>) =>
  db.updateTable('tenants').set(values).where('id', '=', id).executeTakeFirst();
