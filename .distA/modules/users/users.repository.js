export const findUser = (db, tenantId, id) => db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
export const findUserByEmail = (db, tenantId, email) => db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('email_norm', '=', email.toLowerCase())
    .executeTakeFirst();
export const listUsers = (db, tenantId) => db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute();
export const countUsers = async (db, tenantId) => Number((await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow()).n);
export const insertUser = (db, row) => db.insertInto('users').values(row).returning('id').executeTakeFirstOrThrow();
export const updateUser = (db, tenantId, id, values) => db
    .updateTable('users')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
//# sourceMappingURL=users.repository.js.map