import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { UsersTable } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { hashPassword, verifyPassword } from '../../lib/crypto.js';
import { newSecret } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { isRole, roleRank, ROLES, type Role } from '../../auth/roles.js';
import type { Actor } from '../../auth/actor.js';
import * as repo from './users.repository.js';

export interface User {
  id: number;
  email: string;
  name: string;
  role: Role;
  avatar: string | null;
  active: boolean;
}

export const toUser = (row: Selectable<UsersTable>): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role as Role,
  avatar: row.avatar,
  active: row.deactivated_at === null,
});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CreateUserInput {
  email: string;
  name: string;
  role: string;
  password?: string;
}

/** D3: exactly one owner per tenant, so `owner` is only given by the first start or a transfer. */
export async function createUser(
  db: Db,
  tenantId: string,
  input: CreateUserInput,
  allowOwner = false,
): Promise<User> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 255)
    throw badRequest(`"${input.email}" is not a valid e-mail address`, '/email');
  const name = input.name.trim();
  if (!name || name.length > 255) throw badRequest('name must be 1-255 characters', '/name');
  if (!isRole(input.role)) throw badRequest(`role must be one of ${ROLES.join(', ')}`, '/role');
  if (input.role === 'owner' && !allowOwner)
    throw badRequest('a tenant has exactly one owner; transfer ownership instead', '/role');
  if (input.password !== undefined && input.password.length < 8) {
    throw badRequest('password must be at least 8 characters', '/password');
  }
  const now = nowIso();
  try {
    const { id } = await repo.insertUser(db, {
      tenant_id: tenantId,
      email,
      email_norm: email.toLowerCase(),
      name,
      role: input.role,
      password_hash: input.password ? await hashPassword(input.password) : null,
      avatar: null,
      deactivated_at: null,
      created_at: now,
      updated_at: now,
    });
    return { id, email, name, role: input.role, avatar: null, active: true };
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`a user with e-mail ${email} exists`);
    throw err;
  }
}

/** Whether the user joins every project made from now on (an invitation to all projects). */
export async function setJoinsNewProjects(
  db: Db,
  tenantId: string,
  userId: number,
  on: boolean,
): Promise<void> {
  await repo.updateUser(db, tenantId, userId, { joins_new_projects: on ? 1 : 0 });
}

/**
 * D3: the owner of a tenant that has none yet (one made by `tenant create`); once there is an owner, ownership
 * only moves by a transfer. The tenant's row is written first, which locks it on both databases, so two
 * commands at once cannot both find no owner.
 */
export async function createFirstOwner(
  db: Db,
  tenantId: string,
  input: Omit<CreateUserInput, 'role'>,
): Promise<User> {
  const work = async (trx: Db) => {
    await repo.lockTenant(trx, tenantId, nowIso());
    if (await repo.findOwner(trx, tenantId))
      throw badRequest('a tenant has exactly one owner; transfer ownership instead', '/role');
    return createUser(trx, tenantId, { ...input, role: 'owner' }, true);
  };
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

export async function getUser(db: Db, tenantId: string, id: number): Promise<User> {
  const row = await repo.findUser(db, tenantId, id);
  if (!row) throw notFound(`user ${id} not found`);
  return toUser(row);
}

export async function getUserByEmail(db: Db, tenantId: string, email: string): Promise<User> {
  const row = await repo.findUserByEmail(db, tenantId, email);
  if (!row) throw notFound(`user ${email} not found`);
  return toUser(row);
}

export const listUsers = async (db: Db, tenantId: string): Promise<User[]> =>
  (await repo.listUsers(db, tenantId)).map(toUser);

export const countUsers = (db: Db, tenantId: string): Promise<number> => repo.countUsers(db, tenantId);

// ---- account changes (ADMIN-A): the rules about who may do them live in modules/accounts ----

/** A scrypt hash of a random password: verifying against it costs as much as a real check. */
let dummyHash: Promise<string> | undefined;

/**
 * The user whose e-mail and password match, deactivated or not (the caller decides), else undefined.
 * An unknown e-mail costs one password check too, so timing does not tell which e-mails exist.
 */
export async function checkCredentials(
  db: Db,
  tenantId: string,
  email: string,
  password: string,
): Promise<User | undefined> {
  const row = await repo.findUserByEmail(db, tenantId, email.trim());
  if (!row || !row.password_hash) {
    dummyHash ??= hashPassword(newSecret(16));
    await verifyPassword(password, await dummyHash);
    return undefined;
  }
  return (await verifyPassword(password, row.password_hash)) ? toUser(row) : undefined;
}

/** True when `password` is the user's current password. */
export async function checkPassword(
  db: Db,
  tenantId: string,
  userId: number,
  password: string,
): Promise<boolean> {
  const row = await repo.findUser(db, tenantId, userId);
  return !!row && (await verifyPassword(password, row.password_hash));
}

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

/** Rejects passwords shorter than 8 or longer than 1024 characters (400 at `path`). */
export function assertPasswordShape(password: string, path = '/password'): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw badRequest(`password must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters`, path);
  }
}

/** Stores an already computed password hash (hash before a transaction: scrypt is slow). */
export async function setPasswordHash(
  db: Db,
  tenantId: string,
  userId: number,
  passwordHash: string,
): Promise<void> {
  await repo.updateUser(db, tenantId, userId, { password_hash: passwordHash, updated_at: nowIso() });
}

/** Changes one's display name (1-255 characters after trimming). */
export async function setName(db: Db, tenantId: string, userId: number, name: string): Promise<void> {
  const clean = name.trim();
  if (!clean || clean.length > 255) throw badRequest('name must be 1-255 characters', '/name');
  await repo.updateUser(db, tenantId, userId, { name: clean, updated_at: nowIso() });
}

export async function setRole(db: Db, tenantId: string, userId: number, role: Role): Promise<void> {
  await repo.updateUser(db, tenantId, userId, { role, updated_at: nowIso() });
}

/** Changes the e-mail (400 when malformed, 409 when another user has it). */
export async function setEmail(db: Db, tenantId: string, userId: number, email: string): Promise<string> {
  const clean = email.trim();
  if (!EMAIL.test(clean) || clean.length > 255)
    throw badRequest(`"${email}" is not a valid e-mail address`, '/email');
  try {
    await repo.updateUser(db, tenantId, userId, {
      email: clean,
      email_norm: clean.toLowerCase(),
      updated_at: nowIso(),
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`a user with e-mail ${clean} exists`);
    throw err;
  }
  return clean;
}

export async function setDeactivated(
  db: Db,
  tenantId: string,
  userId: number,
  deactivated: boolean,
): Promise<void> {
  const now = nowIso();
  await repo.updateUser(db, tenantId, userId, { deactivated_at: deactivated ? now : null, updated_at: now });
}

export const isEmailAddress = (value: string): boolean => EMAIL.test(value) && value.length <= 255;

/**
 * D3: who may manage whom. The owner manages everyone but themselves; others only users of a lower role
 * (an admin can't demote, deactivate or make keys for another admin). The owner is never managed:
 * ownership is only transferred.
 */
export function assertManages(actor: Actor, target: User, what: string): void {
  if (target.id === actor.userId) throw forbidden(`you can't ${what} yourself`);
  if (target.role === 'owner') {
    throw forbidden(`you can't ${what} the owner; only the owner can transfer ownership`);
  }
  if (actor.role !== 'owner' && roleRank(actor.role) <= roleRank(target.role)) {
    throw forbidden(
      `you can't ${what} a user whose role (${target.role}) is not below yours (${actor.role})`,
    );
  }
}
