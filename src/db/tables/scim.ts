/** Kysely table types of SCIM provisioning (migration 0036_scim_additive). */
export interface ScimUsersTable {
  /** The Casebook user this identity is (users.id); the SCIM resource's id is this number as text. */
  user_id: number;
  tenant_id: string;
  user_name: string;
  /** user_name lower-cased: unique per tenant. */
  user_name_norm: string;
  external_id: string | null;
  given_name: string | null;
  family_name: string | null;
  /** DELETE /Users/{id}: the person is deactivated and SCIM answers 404 for them. */
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScimGroupsTable {
  id: string;
  tenant_id: string;
  display_name: string;
  /** display_name lower-cased: unique per tenant. */
  display_name_norm: string;
  external_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScimGroupMembersTable {
  group_id: string;
  user_id: number;
}

export interface ScimTables {
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
}
