import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { UsersTable } from '../../db/schema.js';

export const findUser = (db: Db, tenantId: string, id: number) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findUserByEmail = (db: Db, tenantId: string, email: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('email_norm', '=', email.toLowerCase())
    .executeTakeFirst();

/** Writes the tenant's row, which holds its lock (both databases) until the transaction ends. */
export const lockTenant = (db: Db, tenantId: string, now: string) =>
  db.updateTable('tenants').set({ updated_at: now }).where('id', '=', tenantId).execute();

export const findOwner = (db: Db, tenantId: string) =>
  db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'owner')
    .executeTakeFirst();

export const listUsers = (db: Db, tenantId: string) =>
  db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute();

export const countUsers = async (db: Db, tenantId: string) =>
  Number(
    (
      await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow()
    ).n,
  );

export const insertUser = (db: Db, row: Insertable<UsersTable>) =>
  db.insertInto('users').values(row).returning('id').executeTakeFirstOrThrow();

export const updateUser = (db: Db, tenantId: string, id: number, values: Updateable<UsersTable>) =>
  db
    .updateTable('users')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
