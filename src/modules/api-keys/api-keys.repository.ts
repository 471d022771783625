import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ApiKeysTable, ProjectsTable } from '../../db/schema.js';
import { prepareQuery } from '../../db/prepared.js';

export const insertKey = (db: Db, row: Insertable<ApiKeysTable>) =>
  db.insertInto('api_keys').values(row).execute();

const KEY_COLUMNS = [
  'k.id',
  'k.tenant_id',
  'k.user_id',
  'k.name',
  'k.secret_hash',
  'k.expires_at',
  'k.revoked_at',
  'k.last_used_at',
  'k.kind',
  'u.role',
  'u.deactivated_at',
  't.suspended_at',
] as const;

const keyWithUserAndTenant = (db: Db) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select(KEY_COLUMNS);

/** The key, its user and its tenant in one indexed lookup: this runs on every request (so it is prepared). */
const keyForAuth = prepareQuery((db: Db, keyId: string) =>
  keyWithUserAndTenant(db).where('k.id', '=', keyId),
);
export const findKeyForAuth = (db: Db, keyId: string) => keyForAuth.executeTakeFirst(db, keyId);

/** Every column of a project, as `p_<column>` beside the key's (see keyForAuthWithProject); the type keeps it whole. */
const PROJECT_COLUMN_SET: Record<keyof ProjectsTable, true> = {
  id: true,
  tenant_id: true,
  code: true,
  code_norm: true,
  title: true,
  overview_title: true,
  overview_description: true,
  links: true,
  created_by: true,
  next_tcase_seq: true,
  created_at: true,
  updated_at: true,
  archived_at: true,
};
const PROJECT_COLUMNS = Object.keys(PROJECT_COLUMN_SET) as (keyof ProjectsTable)[];

/**
 * keyForAuth and, in the same statement, the project a project-scoped request names (code in any letter case,
 * or id; in the key's tenant) and whether the key's user is a member of it: most requests name a project, and
 * on PostgreSQL each statement is a round trip (bench "get one project": a third more requests per second).
 */
const keyForAuthWithProject = prepareQuery((db: Db, keyId: string, codeNorm: string, projectRef: string) =>
  keyWithUserAndTenant(db)
    .leftJoin('projects as p', (j) =>
      j
        .onRef('p.tenant_id', '=', 'k.tenant_id')
        .on((eb) => eb.or([eb('p.code_norm', '=', codeNorm), eb('p.id', '=', projectRef)])),
    )
    .select(PROJECT_COLUMNS.map((c) => sql.ref(`p.${c}`).as(`p_${c}`)))
    .select(
      sql<number>`case when exists (select 1 from project_members m where m.project_id = p.id and m.user_id = k.user_id) then 1 else 0 end`.as(
        'p_member',
      ),
    )
    .where('k.id', '=', keyId),
);

export type KeyRow = NonNullable<Awaited<ReturnType<typeof findKeyForAuth>>>;

/** The key as findKeyForAuth reads it, and the project the request names: undefined when there is no such project. */
export async function findKeyForAuthWithProject(
  db: Db,
  keyId: string,
  projectRef: string,
): Promise<{ key: KeyRow; project: Selectable<ProjectsTable> | undefined; member: boolean } | undefined> {
  const row = (await keyForAuthWithProject.executeTakeFirst(
    db,
    keyId,
    projectRef.toUpperCase(),
    projectRef,
  )) as (KeyRow & Record<string, unknown>) | undefined;
  if (!row) return undefined;
  const project =
    row.p_id === null
      ? undefined
      : (Object.fromEntries(PROJECT_COLUMNS.map((c) => [c, row[`p_${c}`]])) as Selectable<ProjectsTable>);
  return { key: row, project, member: Number(row.p_member) === 1 };
}

/**
 * Records a use of the key at `at`, unless one at or after `since` is recorded already: of several processes
 * (or requests) that see the same stale time, the first writes and the others change nothing.
 */
export const touchKeyLastUsed = (db: Db, keyId: string, at: string, since: string) =>
  db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', since)]))
    .executeTakeFirst();

export const listKeys = (db: Db, tenantId: string, userId?: number) => {
  let q = db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select([
      'k.id',
      'k.name',
      'k.user_id',
      'u.email',
      'k.created_at',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
      'k.kind',
      'k.client_id',
    ])
    .where('k.tenant_id', '=', tenantId);
  if (userId !== undefined) q = q.where('k.user_id', '=', userId);
  return q.orderBy('k.created_at').execute();
};

export const revokeKey = (db: Db, tenantId: string, keyId: string, at: string) =>
  db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

/** Revokes every live device and OAuth sign-in of a user (their refresh tokens die with them). */
export const revokeDeviceKeysOf = (db: Db, tenantId: string, userId: number, at: string) =>
  db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('kind', 'in', ['device', 'oauth'])
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

export const findKey = (db: Db, tenantId: string, keyId: string) =>
  db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .executeTakeFirst();

/** A device sign-in's token pair was refreshed: its access secret and expiry move on (the old secret stops). */
export const rotateKeySecret = (
  db: Db,
  tenantId: string,
  keyId: string,
  secretHash: string,
  expiresAt: string,
) =>
  db
    .updateTable('api_keys')
    .set({ secret_hash: secretHash, expires_at: expiresAt })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

/** A key with the state of its user, for the device sign-in's refresh. */
export const findKeyWithUser = (db: Db, tenantId: string, keyId: string) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select(['k.id', 'k.user_id', 'k.kind', 'k.client_id', 'k.revoked_at', 'u.deactivated_at'])
    .where('k.tenant_id', '=', tenantId)
    .where('k.id', '=', keyId)
    .executeTakeFirst();
