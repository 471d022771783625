import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { CustomFieldsTable } from '../../db/schema.js';

export const listFields = (db: Db, tenantId: string) =>
  db
    .selectFrom('custom_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('pos')
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findField = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('custom_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findBySystemName = (db: Db, tenantId: string, systemName: string) =>
  db
    .selectFrom('custom_fields')
    .select(['id'])
    .where('tenant_id', '=', tenantId)
    .where('system_name', '=', systemName)
    .executeTakeFirst();

export const nextPos = async (db: Db, tenantId: string): Promise<number> => {
  const row = await db
    .selectFrom('custom_fields')
    .select((e) => e.fn.max('pos').as('max'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
};

export const insertField = (db: Db, row: Insertable<CustomFieldsTable>) =>
  db.insertInto('custom_fields').values(row).execute();

export const updateField = (db: Db, tenantId: string, id: string, values: Updateable<CustomFieldsTable>) =>
  db
    .updateTable('custom_fields')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();

export const deleteField = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('custom_fields').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
