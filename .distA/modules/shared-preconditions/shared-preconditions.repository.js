const HEAD_COLUMNS = [
    'id',
    'project_id',
    'title',
    'version',
    'created_at',
    'updated_at',
    'deleted_at',
];
export const findHead = (db, tenantId, id) => db
    .selectFrom('shared_preconditions')
    .select(HEAD_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
export const findHeads = (db, tenantId, ids) => db
    .selectFrom('shared_preconditions')
    .select(HEAD_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
export const findLiveByTitle = (db, tenantId, projectId, title) => db
    .selectFrom('shared_preconditions')
    .select(['id'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('title', '=', title)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
/** Live shared preconditions of a project; with `withCount`, the live test cases whose latest version uses each. */
export const listLiveHeads = (db, tenantId, projectId, o) => db
    .selectFrom('shared_preconditions as s')
    .select(['s.id', 's.project_id', 's.title', 's.version', 's.created_at', 's.updated_at', 's.deleted_at'])
    .$if(o.withCount, (q) => q.select((eb) => eb
    .selectFrom('tcase_shared_preconditions as tp')
    .innerJoin('tcases as c', 'c.id', 'tp.tcase_id')
    .select((e) => e.fn.countAll().as('n'))
    .whereRef('tp.shared_precondition_id', '=', 's.id')
    .where('tp.tenant_id', '=', tenantId)
    .where('c.deleted_at', 'is', null)
    .as('tcase_count')))
    .where('s.tenant_id', '=', tenantId)
    .where('s.project_id', '=', projectId)
    .where('s.deleted_at', 'is', null)
    .orderBy(`s.${o.sortColumn}`, o.desc ? 'desc' : 'asc')
    .orderBy('s.id', o.desc ? 'desc' : 'asc')
    .execute();
/** These shared preconditions at these versions (callers pick the exact pairs they asked for). */
export const findVersions = (db, tenantId, ids, versions) => db
    .selectFrom('shared_precondition_versions')
    .select(['shared_precondition_id', 'version', 'title', 'text', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('shared_precondition_id', 'in', ids)
    .where('version', 'in', versions)
    .execute();
export const countUsingTcases = async (db, tenantId, id) => {
    const row = await db
        .selectFrom('tcase_shared_preconditions as tp')
        .innerJoin('tcases as c', 'c.id', 'tp.tcase_id')
        .select((e) => e.fn.countAll().as('n'))
        .where('tp.tenant_id', '=', tenantId)
        .where('tp.shared_precondition_id', '=', id)
        .where('c.deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
    return Number(row.n);
};
export const insertHead = async (db, row) => {
    const inserted = await db
        .insertInto('shared_preconditions')
        .values(row)
        .returning('id')
        .executeTakeFirstOrThrow();
    return inserted.id;
};
export const insertVersion = (db, row) => db.insertInto('shared_precondition_versions').values(row).execute();
/** Moves the head to a new version only if nobody else did first; returns whether it did. */
export const advanceHead = async (db, tenantId, id, fromVersion, values) => {
    const res = await db
        .updateTable('shared_preconditions')
        .set(values)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('version', '=', fromVersion)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
};
export const markDeleted = (db, tenantId, id, at) => db
    .updateTable('shared_preconditions')
    .set({ deleted_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
//# sourceMappingURL=shared-preconditions.repository.js.map