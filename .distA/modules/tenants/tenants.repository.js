export const findTenant = (db, id) => db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
export const findTenantByHost = (db, host) => db.selectFrom('tenants').selectAll().where('host', '=', host).executeTakeFirst();
export const listTenants = (db) => db.selectFrom('tenants').selectAll().orderBy('created_at').execute();
export const insertTenant = (db, row) => db.insertInto('tenants').values(row).execute();
export const updateTenant = (db, id, values) => db.updateTable('tenants').set(values).where('id', '=', id).executeTakeFirst();
//# sourceMappingURL=tenants.repository.js.map