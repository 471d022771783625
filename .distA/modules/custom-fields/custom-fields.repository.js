export const listFields = (db, tenantId) => db
    .selectFrom('custom_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('pos')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
export const findField = (db, tenantId, id) => db
    .selectFrom('custom_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
export const findBySystemName = (db, tenantId, systemName) => db
    .selectFrom('custom_fields')
    .select(['id'])
    .where('tenant_id', '=', tenantId)
    .where('system_name', '=', systemName)
    .executeTakeFirst();
export const nextPos = async (db, tenantId) => {
    const row = await db
        .selectFrom('custom_fields')
        .select((e) => e.fn.max('pos').as('max'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
    return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
};
export const insertField = (db, row) => db.insertInto('custom_fields').values(row).execute();
export const updateField = (db, tenantId, id, values) => db
    .updateTable('custom_fields')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
export const deleteField = (db, tenantId, id) => db.deleteFrom('custom_fields').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
//# sourceMappingURL=custom-fields.repository.js.map