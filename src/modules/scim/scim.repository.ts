import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ScimGroupsTable, ScimUsersTable } from '../../db/tables/scim.js';

// ---- people as the identity provider knows them ----

export const findScimUser = (db: Db, tenantId: string, userId: number) =>
  db
    .selectFrom('scim_users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

export const findScimUserByName = (db: Db, tenantId: string, userNameNorm: string) =>
  db
    .selectFrom('scim_users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_name_norm', '=', userNameNorm)
    .executeTakeFirst();

export const listScimUsers = (db: Db, tenantId: string) =>
  db.selectFrom('scim_users').selectAll().where('tenant_id', '=', tenantId).execute();

export const insertScimUser = (db: Db, row: Insertable<ScimUsersTable>) =>
  db.insertInto('scim_users').values(row).execute();

export const updateScimUser = (
  db: Db,
  tenantId: string,
  userId: number,
  values: Updateable<ScimUsersTable>,
) =>
  db
    .updateTable('scim_users')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .execute();

// ---- groups ----

export const insertGroup = (db: Db, row: Insertable<ScimGroupsTable>) =>
  db.insertInto('scim_groups').values(row).execute();

export const findGroup = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('scim_groups')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const listGroups = (db: Db, tenantId: string) =>
  db.selectFrom('scim_groups').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').execute();

export const updateGroup = (db: Db, tenantId: string, id: string, values: Updateable<ScimGroupsTable>) =>
  db.updateTable('scim_groups').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();

export const deleteGroup = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('scim_groups').where('tenant_id', '=', tenantId).where('id', '=', id).execute();

/** The members of the given groups (all of a tenant's groups when listing). */
export const listMembers = (db: Db, groupIds: string[]) =>
  groupIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('scim_group_members')
        .select(['group_id', 'user_id'])
        .where('group_id', 'in', groupIds)
        .orderBy('user_id')
        .execute();

export const addMembers = (db: Db, groupId: string, userIds: number[]) =>
  userIds.length === 0
    ? Promise.resolve()
    : db
        .insertInto('scim_group_members')
        .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
        .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
        .execute();

export const removeMembers = (db: Db, groupId: string, userIds: number[]) =>
  userIds.length === 0
    ? Promise.resolve()
    : db
        .deleteFrom('scim_group_members')
        .where('group_id', '=', groupId)
        .where('user_id', 'in', userIds)
        .execute();

/** Takes a person out of every group (DELETE /Users/{id}): the groups they were in. */
export async function removeFromAllGroups(db: Db, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('scim_group_members')
    .select('group_id')
    .where('user_id', '=', userId)
    .execute();
  await db.deleteFrom('scim_group_members').where('user_id', '=', userId).execute();
  return rows.map((r) => r.group_id);
}

/** The (lower-cased) names of the groups each of these people is in. */
export const groupNamesOf = (db: Db, tenantId: string, userIds: number[]) =>
  userIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('scim_group_members as m')
        .innerJoin('scim_groups as g', 'g.id', 'm.group_id')
        .select(['m.user_id', 'g.display_name_norm'])
        .where('g.tenant_id', '=', tenantId)
        .where('m.user_id', 'in', userIds)
        .execute();
