import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { SavedViewsTable } from '../../db/tables/views.js';

const COLUMNS = [
  'v.id',
  'v.owner_id',
  'v.page',
  'v.name',
  'v.filters',
  'v.shared',
  'v.created_at',
  'v.updated_at',
  'u.name as owner_name',
] as const;

/**
 * The views of a project a person sees: their own and those shared with the project, with their owners' names
 * (joined from `users`: one statement, not one per view). By page, then name.
 */
export const listViews = (db: Db, tenantId: string, projectId: string, userId: number, page?: string) => {
  let q = db
    .selectFrom('saved_views as v')
    .innerJoin('users as u', 'u.id', 'v.owner_id')
    .select(COLUMNS)
    .where('v.tenant_id', '=', tenantId)
    .where('v.project_id', '=', projectId)
    .where((eb) => eb.or([eb('v.owner_id', '=', userId), eb('v.shared', '=', 1)]));
  if (page !== undefined) q = q.where('v.page', '=', page);
  return q.orderBy('v.page').orderBy('v.name_norm').orderBy('v.id').execute();
};

export const findView = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('saved_views as v')
    .innerJoin('users as u', 'u.id', 'v.owner_id')
    .select(COLUMNS)
    .where('v.tenant_id', '=', tenantId)
    .where('v.project_id', '=', projectId)
    .where('v.id', '=', id)
    .executeTakeFirst();

export const insertView = async (db: Db, row: Insertable<SavedViewsTable>) =>
  (await db.insertInto('saved_views').values(row).returning('id').executeTakeFirstOrThrow()).id;

export const updateView = (db: Db, tenantId: string, id: number, values: Updateable<SavedViewsTable>) =>
  db.updateTable('saved_views').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();

export const deleteView = (db: Db, tenantId: string, id: number) =>
  db.deleteFrom('saved_views').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
