export const listMilestones = (db, tenantId, projectId, archived) => {
    let q = db
        .selectFrom('milestones')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId);
    if (archived === true)
        q = q.where('archived_at', 'is not', null);
    if (archived === false)
        q = q.where('archived_at', 'is', null);
    return q.orderBy('id').execute();
};
export const findMilestone = (db, tenantId, projectId, id) => db
    .selectFrom('milestones')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
export const insertMilestone = (db, row) => db.insertInto('milestones').values(row).returning('id').executeTakeFirstOrThrow();
/** Updates only when the archived state is the expected one, so concurrent toggles cannot both win. */
export const updateMilestoneArchived = (db, tenantId, id, expectArchived, values) => db
    .updateTable('milestones')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('archived_at', expectArchived ? 'is not' : 'is', null)
    .executeTakeFirst();
//# sourceMappingURL=milestones.repository.js.map