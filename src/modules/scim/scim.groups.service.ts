import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ScimGroupsTable } from '../../db/tables/scim.js';
import type { Actor } from '../../auth/actor.js';
import { roleRank, type Role } from '../../auth/roles.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { applyRole } from '../accounts/accounts.service.js';
import * as users from '../users/users.service.js';
import * as repo from './scim.repository.js';
import {
  GROUP_SCHEMA,
  invalidValue,
  listResponse,
  patchOperations,
  splitPath,
  uniqueness,
  userIdOf,
  valueFilter,
  type ListQuery,
  type PatchOperation,
} from './scim.protocol.js';
import { SCIM_DEFAULT_ROLE } from './scim.users.service.js';

/**
 * docs/api-decisions.md#scim-provisioning: a group named `casebook-<role>` gives its members that role (admin,
 * user, test-runner or viewer; never owner); a person's role is the highest of their mapped groups, or the default
 * role when they leave the last one. Applied when a mapped group's members, name or existence change.
 */
const MAPPED = /^casebook-(admin|user|test-runner|viewer)$/;
const roleOfGroup = (nameNorm: string): Role | undefined => MAPPED.exec(nameNorm)?.[1] as Role | undefined;

type GroupRow = Selectable<ScimGroupsTable>;
interface Member {
  value: string;
  display?: string;
}

export function groupResource(g: GroupRow, members: Member[] | undefined, base: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    displayName: g.display_name,
    ...(g.external_id ? { externalId: g.external_id } : {}),
    ...(members ? { members: members.map((m) => ({ ...m, $ref: `${base}/Users/${m.value}` })) } : {}),
    meta: {
      resourceType: 'Group',
      created: g.created_at,
      lastModified: g.updated_at,
      location: `${base}/Groups/${g.id}`,
    },
  };
}

async function membersOf(db: Db, tenantId: string, groupIds: string[]): Promise<Map<string, Member[]>> {
  const names = new Map((await users.listUsers(db, tenantId)).map((u) => [u.id, u.name]));
  const out = new Map<string, Member[]>(groupIds.map((id) => [id, []]));
  for (const m of await repo.listMembers(db, groupIds)) {
    out.get(m.group_id)?.push({ value: String(m.user_id), display: names.get(m.user_id) });
  }
  return out;
}

async function findGroup(db: Db, tenantId: string, id: string): Promise<GroupRow> {
  const g = await repo.findGroup(db, tenantId, id);
  if (!g) throw notFound(`Group ${id} not found`);
  return g;
}

export async function getScimGroup(db: Db, actor: Actor, id: string, base: string, withMembers = true) {
  const g = await findGroup(db, actor.tenantId, id);
  const members = withMembers ? (await membersOf(db, actor.tenantId, [g.id])).get(g.id) : undefined;
  return groupResource(g, members, base);
}

/** Groups filtered and paged; `excludedAttributes=members` (Entra ID) leaves the members out. */
export async function listScimGroups(
  db: Db,
  actor: Actor,
  query: ListQuery,
  base: string,
  withMembers: boolean,
) {
  const groups = await repo.listGroups(db, actor.tenantId);
  const members = withMembers
    ? await membersOf(
        db,
        actor.tenantId,
        groups.map((g) => g.id),
      )
    : undefined;
  return listResponse(
    groups.map((g) => groupResource(g, members?.get(g.id), base)),
    query,
  );
}

/** The people a list of `{value}` names: each one a person of the tenant SCIM knows (else 400 invalidValue). */
async function memberIds(db: Db, tenantId: string, value: unknown): Promise<number[]> {
  const list = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  const known = new Set((await users.listUsers(db, tenantId)).map((u) => u.id));
  return list.map((m) => {
    const v = (m as { value?: unknown })?.value;
    const id = userIdOf(v);
    if (id === undefined || !known.has(id))
      throw invalidValue(`member ${JSON.stringify(v)} is not a User of this service`);
    return id;
  });
}

const text = (value: unknown, name: string, required = false): string | null => {
  const v =
    typeof value === 'string' ? value.trim() : value === null || value === undefined ? null : undefined;
  if (v === undefined) throw invalidValue(`${name} must be a string`);
  if (required && !v) throw invalidValue(`${name} is required`);
  return v || null;
};

/** Each person's role from their mapped groups, for the people whose groups just changed (the owner keeps owner). */
async function applyRoles(trx: Db, actor: Actor, userIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(userIds)];
  const groups = await repo.groupNamesOf(trx, actor.tenantId, ids);
  for (const id of ids) {
    const user = await users.getUser(trx, actor.tenantId, id);
    if (user.role === 'owner') continue;
    const roles = groups.filter((g) => g.user_id === id).map((g) => roleOfGroup(g.display_name_norm));
    const role = roles
      .filter((r): r is Role => r !== undefined)
      .reduce<Role>((best, r) => (roleRank(r) > roleRank(best) ? r : best), SCIM_DEFAULT_ROLE);
    if (role === user.role) continue;
    await applyRole(trx, actor.tenantId, id, role);
    await recordAudit(trx, actor, 'scim.user_role_change', {
      userId: id,
      role,
      previous_role: user.role,
      apiKeyId: actor.apiKeyId,
    });
  }
}

interface GroupChange {
  id: string;
  displayName?: string;
  externalId?: string | null;
  add: number[];
  remove: number[];
  /** PUT, or replace of `members`: the members become exactly these. */
  set?: number[];
}

const onConflict = (displayName: string) => (err: unknown) => {
  if (err instanceof AppError && err.code === 'CONFLICT')
    throw uniqueness(`displayName ${displayName} is taken`);
  throw err;
};

/** Writes a change, applies mapped roles to everyone it touches, and audits `scim.group_update`. */
async function applyChange(db: Db, actor: Actor, g: GroupRow, change: GroupChange): Promise<void> {
  await db
    .transaction()
    .execute(async (trx) => {
      const before = (await repo.listMembers(trx, [g.id])).map((m) => m.user_id);
      const target = new Set(change.set ?? before);
      for (const id of change.add) target.add(id);
      for (const id of change.remove) target.delete(id);
      const added = [...target].filter((id) => !before.includes(id));
      const removed = before.filter((id) => !target.has(id));
      const displayName = change.displayName ?? g.display_name;
      const externalId = change.externalId === undefined ? g.external_id : change.externalId;
      const renamed = displayName !== g.display_name;
      if (renamed || externalId !== g.external_id) {
        await repo.updateGroup(trx, actor.tenantId, g.id, {
          display_name: displayName,
          display_name_norm: displayName.toLowerCase(),
          external_id: externalId,
          updated_at: nowIso(),
        });
      }
      await repo.addMembers(trx, g.id, added);
      await repo.removeMembers(trx, g.id, removed);
      const touched = renamed ? [...before, ...added] : [...added, ...removed];
      await applyRoles(trx, actor, touched);
      await recordAudit(trx, actor, 'scim.group_update', {
        groupId: g.id,
        displayName,
        ...(renamed ? { previous_displayName: g.display_name } : {}),
        ...(externalId ? { externalId } : {}),
        membersAdded: added,
        membersRemoved: removed,
        apiKeyId: actor.apiKeyId,
      });
    })
    .catch(onConflict(change.displayName ?? g.display_name));
}

/** POST /Groups: 409 uniqueness when the name is taken (in any letter case). Audited as `scim.group_create`. */
export async function createScimGroup(db: Db, actor: Actor, body: unknown, base: string) {
  const b = (body ?? {}) as Record<string, unknown>;
  const displayName = text(b.displayName, 'displayName', true)!;
  const externalId = text(b.externalId, 'externalId');
  const members = await memberIds(db, actor.tenantId, b.members);
  const id = newId(16);
  const now = nowIso();
  await db
    .transaction()
    .execute(async (trx) => {
      if (
        (await repo.listGroups(trx, actor.tenantId)).some(
          (g) => g.display_name_norm === displayName.toLowerCase(),
        )
      )
        throw uniqueness(`displayName ${displayName} is taken`);
      await repo.insertGroup(trx, {
        id,
        tenant_id: actor.tenantId,
        display_name: displayName,
        display_name_norm: displayName.toLowerCase(),
        external_id: externalId,
        created_at: now,
        updated_at: now,
      });
      await repo.addMembers(trx, id, members);
      await applyRoles(trx, actor, members);
      await recordAudit(trx, actor, 'scim.group_create', {
        groupId: id,
        displayName,
        ...(externalId ? { externalId } : {}),
        membersAdded: [...new Set(members)],
        apiKeyId: actor.apiKeyId,
      });
    })
    .catch(onConflict(displayName));
  return getScimGroup(db, actor, id, base);
}

/** PUT /Groups/{id}: name, externalId and members become the body's. */
export async function replaceScimGroup(db: Db, actor: Actor, id: string, body: unknown, base: string) {
  const g = await findGroup(db, actor.tenantId, id);
  const b = (body ?? {}) as Record<string, unknown>;
  await applyChange(db, actor, g, {
    id: g.id,
    displayName: text(b.displayName, 'displayName', true)!,
    externalId: text(b.externalId, 'externalId'),
    add: [],
    remove: [],
    set: await memberIds(db, actor.tenantId, b.members),
  });
  return getScimGroup(db, actor, id, base);
}

/** One PATCH operation on a group: members (add, remove by filter or by value, replace), displayName, externalId. */
async function patchOne(
  db: Db,
  tenantId: string,
  change: GroupChange,
  op: PatchOperation,
  path: string,
  value: unknown,
) {
  const p = splitPath(path);
  const attr = p.attribute.toLowerCase();
  if (attr === 'displayname') {
    if (op.op === 'remove') throw invalidValue('displayName is required: it can be replaced, not removed');
    change.displayName = text(value, 'displayName', true)!;
  } else if (attr === 'externalid') {
    change.externalId = op.op === 'remove' ? null : text(value, 'externalId');
  } else if (attr === 'members') {
    if (op.op === 'remove' && p.filter !== undefined) {
      const matches = valueFilter(p.filter);
      const current = (await repo.listMembers(db, [change.id])).map((m) => m.user_id);
      const all = [...new Set([...(change.set ?? current), ...change.add])];
      change.remove.push(...all.filter((uid) => matches({ value: String(uid) })));
    } else if (op.op === 'remove') {
      if (value === undefined) change.set = [];
      else change.remove.push(...(await memberIds(db, tenantId, value)));
    } else if (op.op === 'replace') {
      change.set = await memberIds(db, tenantId, value);
      change.add = [];
      change.remove = [];
    } else {
      const ids = await memberIds(db, tenantId, value);
      change.add.push(...ids);
      change.remove = change.remove.filter((id) => !ids.includes(id));
    }
  }
  // Other attributes are not kept: accepted and dropped.
}

/** PATCH /Groups/{id}: Okta's and Entra ID's forms (a value object without path renames: Okta). */
export async function patchScimGroup(db: Db, actor: Actor, id: string, body: unknown, base: string) {
  const ops = patchOperations(body);
  const g = await findGroup(db, actor.tenantId, id);
  const change: GroupChange = { id: g.id, add: [], remove: [] };
  for (const op of ops) {
    if (op.path !== undefined) {
      await patchOne(db, actor.tenantId, change, op, op.path, op.value);
      continue;
    }
    if (!op.value || typeof op.value !== 'object' || Array.isArray(op.value)) {
      throw invalidValue('an operation without a path has an object of attributes as its value');
    }
    for (const [key, value] of Object.entries(op.value)) {
      if (key !== 'id') await patchOne(db, actor.tenantId, change, op, key, value);
    }
  }
  await applyChange(db, actor, g, change);
  return getScimGroup(db, actor, id, base);
}

/** DELETE /Groups/{id}: its members' mapped roles are worked out again. Audited as `scim.group_delete`. */
export async function deleteScimGroup(db: Db, actor: Actor, id: string): Promise<void> {
  const g = await findGroup(db, actor.tenantId, id);
  await db.transaction().execute(async (trx) => {
    const members = (await repo.listMembers(trx, [g.id])).map((m) => m.user_id);
    await repo.deleteGroup(trx, actor.tenantId, g.id);
    await applyRoles(trx, actor, members);
    await recordAudit(trx, actor, 'scim.group_delete', {
      groupId: g.id,
      displayName: g.display_name,
      ...(g.external_id ? { externalId: g.external_id } : {}),
      apiKeyId: actor.apiKeyId,
    });
  });
}
