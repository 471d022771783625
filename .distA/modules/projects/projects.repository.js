import { prepareQuery } from '../../db/prepared.js';
// Every project-scoped request starts here, so the lookup is prepared.
const projectByRef = prepareQuery((db, tenantId, codeNorm, ref) => db
    .selectFrom('projects')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('code_norm', '=', codeNorm), eb('id', '=', ref)])));
export const findProjectByRef = (db, tenantId, ref) => projectByRef.executeTakeFirst(db, tenantId, ref.toUpperCase(), ref);
export const listProjects = (db, tenantId, memberUserId) => {
    let q = db.selectFrom('projects as p').selectAll('p').where('p.tenant_id', '=', tenantId);
    if (memberUserId !== undefined) {
        q = q.where((eb) => eb.exists(eb
            .selectFrom('project_members as m')
            .select('m.user_id')
            .whereRef('m.project_id', '=', 'p.id')
            .where('m.user_id', '=', memberUserId)));
    }
    return q.orderBy('p.created_at').orderBy('p.code_norm').execute();
};
const membership = prepareQuery((db, projectId, userId) => db
    .selectFrom('project_members')
    .select('user_id')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId));
export const isMember = async (db, projectId, userId) => (await membership.executeTakeFirst(db, projectId, userId)) !== undefined;
export const insertProject = (db, row) => db.insertInto('projects').values(row).execute();
export const updateProject = (db, tenantId, id, values) => db
    .updateTable('projects')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
export const insertMember = (db, tenantId, projectId, userId, at) => db
    .insertInto('project_members')
    .values({ tenant_id: tenantId, project_id: projectId, user_id: userId, created_at: at })
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
    .execute();
export const findConflicting = (db, tenantId, codeNorm, title) => db
    .selectFrom('projects')
    .select(['id', 'code', 'title', 'code_norm'])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('code_norm', '=', codeNorm), eb('title', '=', title)]))
    .execute();
/** Hands out `count` consecutive test-case sequence numbers; the row lock keeps them unique across processes. */
export const allocateSeqs = async (db, projectId, count) => {
    const row = await db
        .updateTable('projects')
        .set((eb) => ({ next_tcase_seq: eb('next_tcase_seq', '+', count) }))
        .where('id', '=', projectId)
        .returning('next_tcase_seq')
        .executeTakeFirstOrThrow();
    return row.next_tcase_seq - count;
};
// ---- administration (archive, delete, members) ----
/** Deletes the project; every project table cascades from `projects` through its foreign keys. */
export const removeProject = (db, tenantId, id) => db.deleteFrom('projects').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
export const listMembers = (db, tenantId, projectId) => db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.email', 'u.role', 'm.created_at'])
    .where('m.tenant_id', '=', tenantId)
    .where('m.project_id', '=', projectId)
    .orderBy('u.id')
    .execute();
export const removeMember = (db, tenantId, projectId, userId) => db
    .deleteFrom('project_members')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
//# sourceMappingURL=projects.repository.js.map