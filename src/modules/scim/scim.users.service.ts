import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ScimUsersTable } from '../../db/tables/scim.js';
import type { Actor } from '../../auth/actor.js';
import type { Role } from '../../auth/roles.js';
import { AppError, forbidden, notFound } from '../../errors.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { applyUserActive } from '../accounts/accounts.service.js';
import * as users from '../users/users.service.js';
import * as repo from './scim.repository.js';
import {
  invalidValue,
  listResponse,
  ScimError,
  patchOperations,
  uniqueness,
  userIdOf,
  USER_SCHEMA,
  type ListQuery,
} from './scim.protocol.js';
import { applyPatch, draftFromBody, emailOf, nameOf, type UserDraft } from './scim.user-draft.js';

/** docs/api-decisions.md#scim-provisioning: the role of a person SCIM creates, until a mapped group gives another. */
export const SCIM_DEFAULT_ROLE: Role = 'test-runner';

type ScimRow = Selectable<ScimUsersTable>;

/** The SCIM User resource of a Casebook user (userName is their e-mail until a provider names them). */
export function userResource(user: users.User, row: ScimRow | undefined, base: string) {
  const userName = row?.user_name ?? user.email;
  return {
    schemas: [USER_SCHEMA],
    id: String(user.id),
    ...(row?.external_id ? { externalId: row.external_id } : {}),
    userName,
    name: {
      formatted: user.name,
      ...(row?.given_name ? { givenName: row.given_name } : {}),
      ...(row?.family_name ? { familyName: row.family_name } : {}),
    },
    displayName: user.name,
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.active,
    meta: {
      resourceType: 'User',
      ...(row ? { created: row.created_at, lastModified: row.updated_at } : {}),
      location: `${base}/Users/${user.id}`,
    },
  };
}

/** D25: the contract's SCIM events carry exactly userName, apiKeyId and externalId (when set). */
const meta = (actor: Actor, d: { userName: string; externalId: string | null }) => ({
  userName: d.userName,
  apiKeyId: actor.apiKeyId,
  ...(d.externalId ? { externalId: d.externalId } : {}),
});

function draftOf(user: users.User, row: ScimRow | undefined): UserDraft {
  return {
    userName: row?.user_name ?? user.email,
    externalId: row?.external_id ?? null,
    givenName: row?.given_name ?? null,
    familyName: row?.family_name ?? null,
    formatted: user.name,
    displayName: user.name,
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.active,
  };
}

const idOf = (id: string): number => {
  const n = userIdOf(id);
  if (n === undefined) throw notFound(`User ${id} not found`);
  return n;
};

/** The person behind a SCIM id, unless SCIM deleted them (then 404, RFC 7644 §3.6). */
async function findPerson(db: Db, tenantId: string, id: string) {
  const userId = idOf(id);
  const user = await users.getUser(db, tenantId, userId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND') throw notFound(`User ${id} not found`);
    throw err;
  });
  const row = await repo.findScimUser(db, tenantId, userId);
  if (row?.deleted_at) throw notFound(`User ${id} not found`);
  return { user, row };
}

export async function getScimUser(db: Db, actor: Actor, id: string, base: string) {
  const { user, row } = await findPerson(db, actor.tenantId, id);
  return userResource(user, row, base);
}

/** Every person of the tenant SCIM may see (those it deleted are gone), filtered and paged. */
export async function listScimUsers(db: Db, actor: Actor, query: ListQuery, base: string) {
  const rows = new Map((await repo.listScimUsers(db, actor.tenantId)).map((r) => [r.user_id, r]));
  const all = (await users.listUsers(db, actor.tenantId))
    .filter((u) => !rows.get(u.id)?.deleted_at)
    .map((u) => userResource(u, rows.get(u.id), base));
  return listResponse(all, query);
}

function checkEmail(d: UserDraft): string {
  const email = emailOf(d);
  if (!users.isEmailAddress(email)) {
    throw invalidValue(`"${email}" is not an e-mail address: send emails, or an e-mail address as userName`);
  }
  return email;
}

const conflicts = (err: unknown, what: string): never => {
  if (err instanceof ScimError) throw err;
  if (err instanceof AppError && err.code === 'CONFLICT') throw uniqueness(`${what} is taken`);
  throw err;
};

/**
 * POST /Users: a new person with the default role and no password (they sign in through the identity provider),
 * or, for a userName SCIM deleted before, that person back. 409 uniqueness when the userName or e-mail is taken.
 */
export async function createScimUser(db: Db, actor: Actor, body: unknown, base: string) {
  const d = draftFromBody(body);
  const email = checkEmail(d);
  const now = nowIso();
  const norm = d.userName.toLowerCase();
  const userId = await db
    .transaction()
    .execute(async (trx) => {
      const earlier = await repo.findScimUserByName(trx, actor.tenantId, norm);
      if (earlier && !earlier.deleted_at) throw uniqueness(`userName ${d.userName} is taken`);
      if (earlier) {
        await repo.updateScimUser(trx, actor.tenantId, earlier.user_id, { deleted_at: null });
        await save(trx, actor, earlier.user_id, d);
        return earlier.user_id;
      }
      const user = await users
        .createUser(trx, actor.tenantId, { email, name: nameOf(d), role: SCIM_DEFAULT_ROLE })
        .catch((err: unknown) => conflicts(err, `e-mail ${email}`));
      await repo.insertScimUser(trx, {
        user_id: user.id,
        tenant_id: actor.tenantId,
        user_name: d.userName,
        user_name_norm: norm,
        external_id: d.externalId,
        given_name: d.givenName,
        family_name: d.familyName,
        deleted_at: null,
        created_at: now,
        updated_at: now,
      });
      await recordAudit(trx, actor, 'scim.user_create', meta(actor, d));
      if (!d.active) {
        await applyUserActive(trx, actor.tenantId, user.id, false);
        await recordAudit(trx, actor, 'scim.user_deactivate', meta(actor, d));
      }
      return user.id;
    })
    .catch((err: unknown) => conflicts(err, `userName ${d.userName}`));
  return getScimUser(db, actor, String(userId), base);
}

/**
 * Writes a draft over the person: e-mail, name, the SCIM identity, then activity, each audited. The owner is
 * never deactivated nor given another e-mail through SCIM (the break-glass account stays the owner's).
 */
async function save(trx: Db, actor: Actor, userId: number, d: UserDraft): Promise<void> {
  const user = await users.getUser(trx, actor.tenantId, userId);
  const row = await repo.findScimUser(trx, actor.tenantId, userId);
  const email = checkEmail(d);
  if (user.role === 'owner' && (!d.active || email.toLowerCase() !== user.email.toLowerCase())) {
    throw forbidden(
      'the owner is never deactivated or given another e-mail through SCIM: the owner changes it signed in',
    );
  }
  const before = draftOf(user, row);
  let changed = false;
  if (email !== user.email) {
    await users
      .setEmail(trx, actor.tenantId, userId, email)
      .catch((e: unknown) => conflicts(e, `e-mail ${email}`));
    changed = true;
  }
  const name = nameOf(d);
  if (name !== user.name) {
    await users.setName(trx, actor.tenantId, userId, name);
    changed = true;
  }
  const identity = {
    user_name: d.userName,
    user_name_norm: d.userName.toLowerCase(),
    external_id: d.externalId,
    given_name: d.givenName,
    family_name: d.familyName,
    updated_at: nowIso(),
  };
  if (row) {
    const same =
      row.user_name === d.userName &&
      row.external_id === d.externalId &&
      row.given_name === d.givenName &&
      row.family_name === d.familyName;
    if (!same) await repo.updateScimUser(trx, actor.tenantId, userId, identity);
    changed ||= !same;
  } else {
    // A person made before provisioning (invited, or the owner) whom the provider now manages.
    await repo.insertScimUser(trx, {
      ...identity,
      user_id: userId,
      tenant_id: actor.tenantId,
      deleted_at: null,
      created_at: identity.updated_at,
    });
    changed ||= before.userName !== d.userName || d.externalId !== null;
  }
  if (changed) await recordAudit(trx, actor, 'scim.user_update', meta(actor, d));
  if (d.active !== user.active) {
    await applyUserActive(trx, actor.tenantId, userId, d.active);
    await recordAudit(trx, actor, d.active ? 'scim.user_reactivate' : 'scim.user_deactivate', meta(actor, d));
  }
}

async function update(db: Db, actor: Actor, id: string, base: string, next: (d: UserDraft) => UserDraft) {
  const { user, row } = await findPerson(db, actor.tenantId, id);
  const d = next(draftOf(user, row));
  await db
    .transaction()
    .execute((trx) => save(trx, actor, user.id, d))
    .catch((err: unknown) => conflicts(err, `userName ${d.userName}`));
  return getScimUser(db, actor, id, base);
}

/** PUT /Users/{id}: the body replaces the person's attributes (a missing `active` keeps it). */
export const replaceScimUser = (db: Db, actor: Actor, id: string, body: unknown, base: string) =>
  update(db, actor, id, base, (d) => draftFromBody(body, d.active));

/** PATCH /Users/{id}: RFC 7644 §3.5.2 with Okta's and Entra ID's forms (`active: false` deactivates). */
export const patchScimUser = (db: Db, actor: Actor, id: string, body: unknown, base: string) => {
  const ops = patchOperations(body);
  return update(db, actor, id, base, (d) => applyPatch(d, ops));
};

/**
 * DELETE /Users/{id}: Casebook keeps the person (their cases and results keep their author) but deactivates them,
 * takes them out of every group and forgets them for SCIM (404 from now on). Audited as `scim.user_deactivate`
 * (when they were active) and `scim.user_delete`.
 */
export async function deleteScimUser(db: Db, actor: Actor, id: string): Promise<void> {
  const { user, row } = await findPerson(db, actor.tenantId, id);
  if (user.role === 'owner') throw forbidden('the owner is never deleted through SCIM');
  const d = draftOf(user, row);
  await db.transaction().execute(async (trx) => {
    const now = nowIso();
    if (row) await repo.updateScimUser(trx, actor.tenantId, user.id, { deleted_at: now, updated_at: now });
    else
      await repo.insertScimUser(trx, {
        user_id: user.id,
        tenant_id: actor.tenantId,
        user_name: d.userName,
        user_name_norm: d.userName.toLowerCase(),
        external_id: null,
        given_name: null,
        family_name: null,
        deleted_at: now,
        created_at: now,
        updated_at: now,
      });
    await repo.removeFromAllGroups(trx, user.id);
    if (user.active) {
      await applyUserActive(trx, actor.tenantId, user.id, false);
      await recordAudit(trx, actor, 'scim.user_deactivate', meta(actor, d));
    }
    await recordAudit(trx, actor, 'scim.user_delete', meta(actor, d));
  });
}
