import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { AppError, badRequest, forbidden } from '../../errors.js';
import { hashPassword } from '../../lib/crypto.js';
import { endUserSessions } from '../auth/auth.service.js';
import { endDeviceSignIns } from '../api-keys/api-keys.service.js';
import { confirmPassword } from '../auth/throttle.service.js';
import { roleRank, type Role } from '../../auth/roles.js';
import { recordAudit } from '../audit/audit.service.js';
import * as users from '../users/users.service.js';
import { endSignIns, toAccountUser, type AccountUser } from './accounts.common.js';
import * as repo from './accounts.repository.js';

/*
 * Changes to an account: an admin's (role, deactivation, ownership) and one's own (password, name, e-mail).
 * Invitations and password resets are parts of their own (invitations/, password-resets/); what outside code
 * uses of them is exported from here, the module's root.
 */

/** For the command line (`casebook user reset-link`) and the throttling tests. */
export {
  createPasswordResetLink,
  RESET_LINKS_PER_ACCOUNT,
} from './password-resets/password-resets.service.js';

// ---- accounts, roles, deactivation, ownership (admin) ----

/** D3 (admin): every user of the tenant with whether they are active (the People page; GET /users omits it). */
export async function listAccounts(db: Db, actor: Actor): Promise<AccountUser[]> {
  return (await users.listUsers(db, actor.tenantId)).map(toAccountUser);
}

/** D3 (admin): changes a user's role, never to or from owner, never above the caller's own. */
export async function changeRole(db: Db, actor: Actor, userId: number, role: Role): Promise<AccountUser> {
  if (role === 'owner')
    throw badRequest('ownership is only transferred: POST /users/transfer-ownership', '/role');
  const target = await users.getUser(db, actor.tenantId, userId);
  users.assertManages(actor, target, 'change the role of');
  if (roleRank(role) > roleRank(actor.role)) {
    throw forbidden(`you can't give a role above your own (${actor.role})`);
  }
  await db.transaction().execute((trx) => applyRole(trx, actor.tenantId, userId, role));
  return toAccountUser(await users.getUser(db, actor.tenantId, userId));
}

/** The one way a role changes (an admin, SCIM group mapping), inside the caller's transaction; never to owner. */
export async function applyRole(trx: Db, tenantId: string, userId: number, role: Role): Promise<void> {
  await users.setRole(trx, tenantId, userId, role);
  // A reset link an admin holds must not outlive the rank it was issued under.
  await repo.deleteUserPasswordResets(trx, tenantId, userId);
}

/**
 * D3 (admin): deactivates or reactivates a user. A deactivated user can't sign in, and their sessions
 * end and API keys stop working at once (both are checked on every request). The owner can't be deactivated.
 */
export async function setUserActive(
  db: Db,
  actor: Actor,
  userId: number,
  active: boolean,
): Promise<AccountUser> {
  const target = await users.getUser(db, actor.tenantId, userId);
  users.assertManages(actor, target, active ? 'reactivate' : 'deactivate');
  if (target.active !== active) {
    await db.transaction().execute((trx) => applyUserActive(trx, actor.tenantId, userId, active));
  }
  return toAccountUser(await users.getUser(db, actor.tenantId, userId));
}

/**
 * The one way a person is deactivated or reactivated (an admin, SCIM provisioning), inside the caller's
 * transaction; who may do it is the caller's rule. Deactivating ends their sessions and device sign-ins at once;
 * their API keys are refused on every request while they are deactivated, and their shared links stop answering
 * (the share's read-time check of its creator).
 */
export async function applyUserActive(
  trx: Db,
  tenantId: string,
  userId: number,
  active: boolean,
): Promise<void> {
  await users.setDeactivated(trx, tenantId, userId, !active);
  if (!active) {
    await endUserSessions(trx, tenantId, userId);
    await endDeviceSignIns(trx, tenantId, userId);
  }
  // Links issued before a deactivation never come back to life with the account.
  await repo.deleteUserPasswordResets(trx, tenantId, userId);
}

/** D3: exactly one owner: the owner hands ownership to an active user and becomes an admin. */
export async function transferOwnership(db: Db, actor: Actor, userId: number): Promise<AccountUser> {
  if (actor.role !== 'owner') throw forbidden('only the owner can transfer ownership');
  if (userId === actor.userId) throw badRequest('you are the owner already', '/userId');
  const target = await users.getUser(db, actor.tenantId, userId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND')
      throw badRequest(`user ${userId} not found`, '/userId');
    throw err;
  });
  if (!target.active) throw badRequest(`user ${target.email} is deactivated`, '/userId');
  await db.transaction().execute(async (trx) => {
    await users.setRole(trx, actor.tenantId, actor.userId, 'admin');
    await users.setRole(trx, actor.tenantId, userId, 'owner');
    await repo.deleteUserPasswordResets(trx, actor.tenantId, userId);
  });
  return toAccountUser(await users.getUser(db, actor.tenantId, userId));
}

// ---- passwords and e-mail ----

/**
 * Changes one's own password (needs the current one). Every other session and every device sign-in of the user
 * ends; the session making the change stays signed in. Audits `password_change` and what ended.
 */
export async function changePassword(
  db: Db,
  actor: Actor,
  input: { currentPassword: string; newPassword: string },
  currentSessionId?: string,
): Promise<void> {
  users.assertPasswordShape(input.newPassword, '/newPassword');
  await confirmPassword(db, actor, input.currentPassword, '/currentPassword');
  const passwordHash = await hashPassword(input.newPassword);
  await db.transaction().execute(async (trx) => {
    await users.setPasswordHash(trx, actor.tenantId, actor.userId, passwordHash);
    await repo.deleteUserPasswordResets(trx, actor.tenantId, actor.userId);
    await endSignIns(trx, actor, 'password_change', currentSessionId);
  });
}

/** Changes one's own display name (the web settings page); no password needed, nothing security-relevant changes. */
export async function changeName(db: Db, actor: Actor, name: string): Promise<AccountUser> {
  await users.setName(db, actor.tenantId, actor.userId, name);
  return toAccountUser(await users.getUser(db, actor.tenantId, actor.userId));
}

/** Changes one's own e-mail (needs the current password; 409 when taken). Audits `email_change` with old and new. */
export async function changeEmail(
  db: Db,
  actor: Actor,
  input: { email: string; password: string },
): Promise<AccountUser> {
  const user = await users.getUser(db, actor.tenantId, actor.userId);
  if (!users.isEmailAddress(input.email.trim())) {
    throw badRequest(`"${input.email}" is not a valid e-mail address`, '/email');
  }
  await confirmPassword(db, actor, input.password, '/password');
  if (input.email.trim() === user.email) throw badRequest('that is your e-mail address already', '/email');
  await db.transaction().execute(async (trx) => {
    const email = await users.setEmail(trx, actor.tenantId, actor.userId, input.email);
    await recordAudit(trx, actor, 'email_change', { old: user.email, new: email });
  });
  return toAccountUser(await users.getUser(db, actor.tenantId, actor.userId));
}
