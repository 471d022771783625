import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { MilestonesTable } from '../../db/schema.js';

export const listMilestones = (db: Db, tenantId: string, projectId: string, archived?: boolean) => {
  let q = db
    .selectFrom('milestones')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId);
  if (archived === true) q = q.where('archived_at', 'is not', null);
  if (archived === false) q = q.where('archived_at', 'is', null);
  return q.orderBy('id').execute();
};

export const findMilestone = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('milestones')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();

export const insertMilestone = (db: Db, row: Insertable<MilestonesTable>) =>
  db.insertInto('milestones').values(row).returning('id').executeTakeFirstOrThrow();

/** Updates only when the archived state is the expected one, so concurrent toggles cannot both win. */
export const updateMilestoneArchived = (
  db: Db,
  tenantId: string,
  id: number,
  expectArchived: boolean,
  values: Updateable<MilestonesTable>,
) =>
  db
    .updateTable('milestones')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('archived_at', expectArchived ? 'is not' : 'is', null)
    .executeTakeFirst();

/** Writes a milestone's details (title, description, due date). */
export const updateMilestone = (
  db: Db,
  tenantId: string,
  id: number,
  values: Pick<Updateable<MilestonesTable>, 'title' | 'description' | 'due' | 'updated_at'>,
) =>
  db
    .updateTable('milestones')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
