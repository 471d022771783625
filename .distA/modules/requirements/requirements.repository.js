/** Inserts the requirements that do not exist yet; the unique (project, text, url) constraint settles races. */
export const insertMissing = (db, rows) => db
    .insertInto('requirements')
    .values(rows)
    .onConflict((oc) => oc.columns(['project_id', 'text', 'url']).doNothing())
    .execute();
export const findByTexts = (db, tenantId, projectId, texts) => db
    .selectFrom('requirements')
    .select(['id', 'text', 'url'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('text', 'in', texts)
    .execute();
export const findByIds = (db, tenantId, ids) => db
    .selectFrom('requirements')
    .select(['id', 'text', 'url'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
/** The project's requirements; with `withCount`, the live test cases whose latest version links each one. */
export const listRequirements = (db, tenantId, projectId, o) => db
    .selectFrom('requirements as r')
    .select(['r.id', 'r.text', 'r.url'])
    .$if(o.withCount, (q) => q.select((eb) => eb
    .selectFrom('tcase_requirements as tr')
    .innerJoin('tcases as c', 'c.id', 'tr.tcase_id')
    .select((e) => e.fn.countAll().as('n'))
    .whereRef('tr.requirement_id', '=', 'r.id')
    .where('tr.tenant_id', '=', tenantId)
    .where('c.deleted_at', 'is', null)
    .as('tcase_count')))
    .where('r.tenant_id', '=', tenantId)
    .where('r.project_id', '=', projectId)
    .orderBy(`r.${o.sortColumn}`, o.desc ? 'desc' : 'asc')
    .orderBy('r.created_at', o.desc ? 'desc' : 'asc')
    .orderBy('r.id', o.desc ? 'desc' : 'asc')
    .execute();
//# sourceMappingURL=requirements.repository.js.map