/** Inserts the titles that do not exist yet; the unique constraint settles concurrent creators. */
export const insertMissingTitles = (db, tenantId, projectId, titles, at) => db
    .insertInto('tags')
    .values(titles.map((title) => ({ tenant_id: tenantId, project_id: projectId, title, created_at: at })))
    .onConflict((oc) => oc.columns(['project_id', 'title']).doNothing())
    .execute();
export const findByTitles = (db, tenantId, projectId, titles) => db
    .selectFrom('tags')
    .select(['id', 'title'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('title', 'in', titles)
    .execute();
export const findByIds = (db, tenantId, ids) => db
    .selectFrom('tags')
    .select(['id', 'title'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
/** The project's tags; with `withCount`, the number of live test cases whose latest version has each tag. */
export const listTags = (db, tenantId, projectId, o) => db
    .selectFrom('tags as t')
    .select(['t.id', 't.title'])
    .$if(o.withCount, (q) => q.select((eb) => eb
    .selectFrom('tcase_tags as tt')
    .innerJoin('tcases as c', 'c.id', 'tt.tcase_id')
    .select((e) => e.fn.countAll().as('n'))
    .whereRef('tt.tag_id', '=', 't.id')
    .where('tt.tenant_id', '=', tenantId)
    .where('c.deleted_at', 'is', null)
    .as('tcase_count')))
    .where('t.tenant_id', '=', tenantId)
    .where('t.project_id', '=', projectId)
    .orderBy(`t.${o.sortColumn}`, o.desc ? 'desc' : 'asc')
    .orderBy('t.id', o.desc ? 'desc' : 'asc')
    .execute();
//# sourceMappingURL=tags.repository.js.map