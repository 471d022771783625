export const insertFiles = (db, rows) => db.insertInto('files').values(rows).execute();
export const findFile = (db, tenantId, id) => db
    .selectFrom('files')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
/** Chunked: a list of test cases may reference thousands of files, beyond a statement's parameter limit. */
export async function listFilesByIds(db, tenantId, ids) {
    const rows = [];
    for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        rows.push(...(await db
            .selectFrom('files')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('id', 'in', chunk)
            .execute()));
    }
    return rows;
}
//# sourceMappingURL=files.repository.js.map