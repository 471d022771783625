import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { InvitationsTable } from '../../db/tables/admin.js';
import type { Actor } from '../../auth/actor.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { hashPassword, sha256 } from '../../lib/crypto.js';
import { newId, newSecret } from '../../lib/ids.js';
import { addressKey } from '../../lib/ip.js';
import { nowIso } from '../../lib/time.js';
import { invitationMail, passwordResetMail, type MailMessage, type Mailer } from '../../mail/mailer.js';
import { recordAudit, type AuditContext } from '../audit/audit.service.js';
import { endUserSessions, type RequestSource } from '../auth/auth.service.js';
import {
  clearSignInFailures,
  confirmPassword,
  emailBucket,
  hitWaitMs,
  recordHits,
  throttled,
  type WindowLimit,
} from '../auth/throttle.service.js';
import { atLeast, roleRank, type Role } from '../../auth/roles.js';
import * as apiKeys from '../api-keys/api-keys.service.js';
import * as users from '../users/users.service.js';
import * as repo from './accounts.repository.js';

export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
export const PASSWORD_RESET_TTL_MS = 3600_000;

/** A user as the account endpoints show it. */
export interface AccountUser {
  id: number;
  email: string;
  name: string;
  role: Role;
  active: boolean;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: number;
  createdAt: string;
  expiresAt: string;
}

const toAccountUser = ({ id, email, name, role, active }: users.User): AccountUser => ({
  id,
  email,
  name,
  role,
  active,
});

const toInvitation = (row: Selectable<InvitationsTable>): Invitation => ({
  id: row.id,
  email: row.email,
  role: row.role as Role,
  invitedBy: row.invited_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/**
 * How one-time links reach people: by mail when a mailer is configured (AppContext.mailer), else in an admin's
 * answer. `log` is the request's: a failed send is logged there, never the link
 * (docs/operations.md#what-the-log-never-holds).
 */
export interface AccountMail {
  mailer: Mailer | undefined;
  /** The service's address: links point there. */
  publicUrl: string;
  log: { warn: (o: object, m: string) => void; error: (o: object, m: string) => void };
}

/**
 * The answer to an admin who made a one-time link for someone else (an invitation, a password reset): the link is
 * e-mailed when mail is configured, else it is in the answer, once. A failed send is logged as an error
 * (`sendFailed`) and answered with the link too: the link exists, so the admin gets it to pass on rather than an
 * error.
 */
async function mailOrShowLink<T extends object>(
  mail: AccountMail,
  how: { answer: T; link: string; message: MailMessage; sendFailed: string },
): Promise<T & { emailed: boolean; link?: string }> {
  if (mail.mailer) {
    try {
      await mail.mailer.send(how.message);
      return { ...how.answer, emailed: true };
    } catch (err) {
      mail.log.error({ err }, how.sendFailed);
    }
  }
  return { ...how.answer, emailed: false, link: how.link };
}

const inviteLink = (publicUrl: string, token: string) => `${publicUrl}/invite/${token}`;
const resetLink = (publicUrl: string, token: string) => `${publicUrl}/reset-password/${token}`;

// ---- invitations ----

/** D3 (admin): invites someone by e-mail with a role no higher than the inviter's (never owner); the one-time link is returned once. Audits `invite_user`. */
export async function inviteUser(
  db: Db,
  actor: Actor,
  input: { email: string; role: Role },
  publicUrl: string,
): Promise<Invitation & { link: string }> {
  const email = input.email.trim();
  if (!users.isEmailAddress(email))
    throw badRequest(`"${input.email}" is not a valid e-mail address`, '/email');
  if (input.role === 'owner') {
    throw badRequest('a tenant has exactly one owner; invite as admin and transfer ownership', '/role');
  }
  if (roleRank(input.role) > roleRank(actor.role)) {
    throw forbidden(`you can't invite someone with a role above your own (${actor.role})`);
  }
  const existing = await users.getUserByEmail(db, actor.tenantId, email).catch(() => undefined);
  if (existing) throw conflict(`a user with e-mail ${existing.email} exists`);
  const now = new Date();
  if (
    (await repo.listPendingInvitations(db, actor.tenantId, now.toISOString(), email.toLowerCase())).length > 0
  ) {
    throw conflict(`an invitation for ${email} is pending; cancel it to send a new one`);
  }
  const token = newSecret(32);
  const row = {
    id: newId(16),
    tenant_id: actor.tenantId,
    email,
    email_norm: email.toLowerCase(),
    role: input.role,
    token_hash: sha256(token),
    invited_by: actor.userId,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    accepted_at: null,
    cancelled_at: null,
  };
  await db.transaction().execute(async (trx) => {
    await repo.insertInvitation(trx, row);
    await recordAudit(trx, actor, 'invite_user', { invited_email: email, invited_role: input.role });
  });
  return { ...toInvitation(row), link: inviteLink(publicUrl, token) };
}

/** inviteUser, and the link mailed to the invitee (or, without mail, in the admin's answer, once). */
export async function sendInvitation(
  db: Db,
  actor: Actor,
  input: { email: string; role: Role },
  mail: AccountMail,
): Promise<Invitation & { emailed: boolean; link?: string }> {
  const { link, ...invitation } = await inviteUser(db, actor, input, mail.publicUrl);
  return mailOrShowLink(mail, {
    answer: invitation,
    link,
    message: invitationMail(invitation.email, link, invitation.role, invitation.expiresAt),
    // Without mail the admin reads the link from the answer and passes it on; it never goes to the log.
    sendFailed: 'invitation mail could not be sent; the link is in the answer',
  });
}

/**
 * Whether an invitation's inviter could still grant it: an active admin or owner whose role is not below the
 * invited one. An invitation never grants more than its inviter holds when it is redeemed; otherwise it is void.
 */
function inviterCanGrant(inviter: users.User | undefined, role: string): boolean {
  return (
    !!inviter &&
    inviter.active &&
    atLeast(inviter.role, 'admin') &&
    roleRank(role as Role) <= roleRank(inviter.role)
  );
}

const VOID_INVITATION =
  'this invitation is void: whoever sent it can no longer grant this role; ask an admin for a new one';

/** Invitations that can still be accepted, oldest first (void ones left out: their inviter can no longer grant them). */
export async function listInvitations(db: Db, actor: Actor): Promise<Invitation[]> {
  const byId = new Map((await users.listUsers(db, actor.tenantId)).map((u) => [u.id, u]));
  return (await repo.listPendingInvitations(db, actor.tenantId, nowIso()))
    .filter((row) => inviterCanGrant(byId.get(row.invited_by), row.role))
    .map(toInvitation);
}

/** Cancels an invitation that was not accepted: its link stops working. 404 unknown, 409 already closed. Audits `cancel_invite`. */
export async function cancelInvitation(db: Db, actor: Actor, id: string): Promise<void> {
  const row = await repo.findInvitation(db, actor.tenantId, id);
  if (!row) throw notFound(`invitation ${id} not found`);
  await db.transaction().execute(async (trx) => {
    if (!(await repo.closeInvitation(trx, actor.tenantId, id, { cancelled_at: nowIso() }))) {
      throw conflict(`invitation ${id} was already ${row.accepted_at ? 'accepted' : 'cancelled'}`);
    }
    await recordAudit(trx, actor, 'cancel_invite', { invited_email: row.email, invited_role: row.role });
  });
}

/** The open invitation of a token, or why there is none: `void` when its inviter can no longer grant it. */
async function openInvitation(db: Db, tenantId: string, token: string) {
  const row = await repo.findInvitationByTokenHash(db, tenantId, sha256(token));
  if (!row || row.accepted_at || row.cancelled_at || Date.parse(row.expires_at) <= Date.now())
    return undefined;
  const inviter = await users.getUser(db, tenantId, row.invited_by).catch(() => undefined);
  return inviterCanGrant(inviter, row.role) ? row : ('void' as const);
}

/** What the sign-up page shows for an invitation link; 404 when the link is invalid, expired, used or void. */
export async function previewInvitation(
  db: Db,
  tenantId: string,
  token: string,
): Promise<{ email: string; role: string; expiresAt: string }> {
  const row = await openInvitation(db, tenantId, token);
  if (row === 'void') throw notFound(VOID_INVITATION);
  if (!row) throw notFound('this invitation link is invalid, expired or already used');
  return { email: row.email, role: row.role, expiresAt: row.expires_at };
}

/**
 * Accepts an invitation: creates the user with the invited e-mail and role; the link works once. 400 when its
 * inviter has been deactivated or no longer holds a role that could grant it. Audits `register`.
 */
export async function acceptInvitation(
  db: Db,
  source: RequestSource,
  input: { token: string; name: string; password: string },
): Promise<{ id: number; email: string }> {
  users.assertPasswordShape(input.password);
  const row = await openInvitation(db, source.tenantId, input.token);
  if (row === 'void') throw badRequest(VOID_INVITATION, '/token');
  if (!row) throw badRequest('this invitation link is invalid, expired or already used', '/token');
  return db.transaction().execute(async (trx) => {
    if (!(await repo.closeInvitation(trx, source.tenantId, row.id, { accepted_at: nowIso() }))) {
      throw badRequest('this invitation link is invalid, expired or already used', '/token');
    }
    const user = await users.createUser(trx, source.tenantId, {
      email: row.email,
      name: input.name,
      role: row.role,
      password: input.password,
    });
    await recordAudit(trx, { ...source, userId: user.id }, 'register');
    return { id: user.id, email: user.email };
  });
}

// ---- roles, deactivation, ownership ----

/** D3 (admin): changes a user's role, never to or from owner, never above the caller's own. */
export async function changeRole(db: Db, actor: Actor, userId: number, role: Role): Promise<AccountUser> {
  if (role === 'owner')
    throw badRequest('ownership is only transferred: POST /users/transfer-ownership', '/role');
  const target = await users.getUser(db, actor.tenantId, userId);
  users.assertManages(actor, target, 'change the role of');
  if (roleRank(role) > roleRank(actor.role)) {
    throw forbidden(`you can't give a role above your own (${actor.role})`);
  }
  await db.transaction().execute(async (trx) => {
    await users.setRole(trx, actor.tenantId, userId, role);
    // A reset link an admin holds must not outlive the rank it was issued under.
    await repo.deleteUserPasswordResets(trx, actor.tenantId, userId);
  });
  return toAccountUser(await users.getUser(db, actor.tenantId, userId));
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
    await db.transaction().execute(async (trx) => {
      await users.setDeactivated(trx, actor.tenantId, userId, !active);
      if (!active) await endUserSessions(trx, actor.tenantId, userId);
      // Links issued before a deactivation never come back to life with the account.
      await repo.deleteUserPasswordResets(trx, actor.tenantId, userId);
    });
  }
  return toAccountUser(await users.getUser(db, actor.tenantId, userId));
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
 * A password change or reset ends the user's sign-ins: every session but `exceptSessionId` and every device
 * sign-in (API keys stay: they are made on purpose and revoked on purpose). Audited as `auth.sign_ins_ended`
 * (`reason`, `sessions_ended`, `device_sign_ins_ended`) after the contract's own event, whose meta is none.
 */
async function endSignIns(
  trx: Db,
  ctx: AuditContext,
  reason: 'password_change' | 'password_reset',
  exceptSessionId?: string,
): Promise<void> {
  const userId = ctx.userId!;
  await recordAudit(trx, ctx, reason);
  await recordAudit(trx, ctx, 'auth.sign_ins_ended', {
    reason,
    sessions_ended: await endUserSessions(trx, ctx.tenantId, userId, exceptSessionId),
    device_sign_ins_ended: await apiKeys.endDeviceSignIns(trx, ctx.tenantId, userId),
  });
}

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

/**
 * Stores a new reset (valid one hour) and records `audit` in the same transaction: by default the person's
 * own `request_password_reset`; an admin's link records the admin's own event instead.
 */
async function issuePasswordReset(
  db: Db,
  source: RequestSource,
  user: users.User,
  publicUrl: string,
  audit: (trx: Db) => Promise<void> = (trx) =>
    recordAudit(trx, { ...source, userId: user.id }, 'request_password_reset'),
): Promise<{ link: string; expiresAt: string }> {
  const token = newSecret(32);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS).toISOString();
  await db.transaction().execute(async (trx) => {
    await repo.insertPasswordReset(trx, {
      token_hash: sha256(token),
      tenant_id: source.tenantId,
      user_id: user.id,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    });
    await audit(trx);
  });
  return { link: resetLink(publicUrl, token), expiresAt };
}

/**
 * D3 (admin): a password reset link for another user, issued by an admin (the People page). The same rules as
 * every other change to a user (assertManages: never oneself, never the owner, only users below an admin's
 * role), since whoever holds the link can take the account over; 404 unknown, 409 deactivated. The link is
 * mailed to the user's stored address when mail is configured (sendPasswordResetFor), else answered once to the admin.
 * Audits `issue_password_reset` (`user_id`, `user_email`) as the admin.
 */
export async function issuePasswordResetFor(
  db: Db,
  actor: Actor,
  userId: number,
  publicUrl: string,
): Promise<{ user: AccountUser; link: string; expiresAt: string }> {
  const target = await users.getUser(db, actor.tenantId, userId);
  users.assertManages(actor, target, 'send a password reset link to');
  if (!target.active) {
    throw conflict(`${target.email} is deactivated; reactivate the account before sending a reset link`);
  }
  const issued = await issuePasswordReset(db, actor, target, publicUrl, (trx) =>
    recordAudit(trx, actor, 'issue_password_reset', { user_id: target.id, user_email: target.email }),
  );
  return { user: toAccountUser(target), ...issued };
}

/** issuePasswordResetFor, and the link mailed to the user's stored address (or, without mail, in the answer, once). */
export async function sendPasswordResetFor(
  db: Db,
  actor: Actor,
  userId: number,
  mail: AccountMail,
): Promise<{ user: AccountUser; expiresAt: string; emailed: boolean; link?: string }> {
  const { link, ...issued } = await issuePasswordResetFor(db, actor, userId, mail.publicUrl);
  return mailOrShowLink(mail, {
    answer: issued,
    link,
    message: passwordResetMail(issued.user.email, link),
    sendFailed: 'password reset mail could not be sent; the link is in the answer',
  });
}

/** D3 (admin): every user of the tenant with whether they are active (the People page; GET /users omits it). */
export async function listAccounts(db: Db, actor: Actor): Promise<AccountUser[]> {
  return (await users.listUsers(db, actor.tenantId)).map(toAccountUser);
}

/** Password-reset requests per source address: past it, 429 with `Retry-After`. */
export const RESET_REQUESTS_PER_ADDRESS: WindowLimit = { max: 10, windowMs: 15 * 60_000 };
/** Reset links per account (mail bombing): past it, requests are answered the same and issue nothing. */
export const RESET_LINKS_PER_ACCOUNT: WindowLimit = { max: 3, windowMs: 3600_000 };

/**
 * Counts a password-reset request: 429 when its address has asked too often; false when the account (by the
 * e-mail typed, existing or not) has had its links for the hour. The same statements run whatever the e-mail.
 */
export async function admitPasswordResetRequest(
  db: Db,
  source: RequestSource,
  email: string,
): Promise<boolean> {
  const address = `reset:ip:${addressKey(source.ip)}`;
  const account = emailBucket('reset', email);
  const wait = await hitWaitMs(db, source.tenantId, address, RESET_REQUESTS_PER_ADDRESS);
  if (wait > 0) throw throttled(wait, 'too many password reset requests from this address');
  const accountFree = (await hitWaitMs(db, source.tenantId, account, RESET_LINKS_PER_ACCOUNT)) === 0;
  await recordHits(db, source.tenantId, accountFree ? [address, account] : [address]);
  return accountFree;
}

/**
 * Someone asks for a password reset (after the answer, which never tells whether the e-mail has an account).
 * For an active account: with mail, a link (valid one hour) to mail to the stored address, never to what was
 * typed, audited `request_password_reset`; without mail nothing is issued (no one could receive it).
 */
export async function requestPasswordReset(
  db: Db,
  source: RequestSource,
  email: string,
  publicUrl: string,
  canMail: boolean,
): Promise<{ userId: number; to: string; link?: string } | undefined> {
  const user = await users.getUserByEmail(db, source.tenantId, email.trim()).catch(() => undefined);
  if (!user?.active) return undefined;
  if (!canMail) return { userId: user.id, to: user.email };
  return {
    userId: user.id,
    to: user.email,
    link: (await issuePasswordReset(db, source, user, publicUrl)).link,
  };
}

/**
 * Someone's password reset request, after the answer: an active account's link mailed to its stored address;
 * without mail, the log says what an admin can do. Never throws (nobody waits for it): a failure is logged.
 */
export async function mailPasswordReset(
  db: Db,
  source: RequestSource,
  email: string,
  mail: AccountMail,
): Promise<void> {
  try {
    const issued = await requestPasswordReset(db, source, email, mail.publicUrl, !!mail.mailer);
    if (!issued) return;
    if (issued.link && mail.mailer) {
      await mail.mailer.send(passwordResetMail(issued.to, issued.link));
    } else {
      mail.log.warn(
        { userId: issued.userId },
        'password reset requested, but no mail is configured: an admin can issue a link on the People page or with `casebook user reset-link`',
      );
    }
  } catch (err) {
    mail.log.error({ err }, 'password reset link could not be issued or mailed');
  }
}

/** For the command line (`casebook user reset-link`): a reset link for an existing, active user. */
export async function createPasswordResetLink(
  db: Db,
  source: RequestSource,
  email: string,
  publicUrl: string,
): Promise<string> {
  const user = await users.getUserByEmail(db, source.tenantId, email.trim());
  if (!user.active) throw badRequest(`user ${user.email} is deactivated`, '/email');
  return (await issuePasswordReset(db, source, user, publicUrl)).link;
}

/**
 * Sets a new password with a reset link (works once, within its hour). Every session and device sign-in of
 * the user ends and other reset links stop working. Audits `password_reset` and what ended.
 */
export async function resetPassword(
  db: Db,
  source: RequestSource,
  input: { token: string; password: string },
): Promise<void> {
  users.assertPasswordShape(input.password);
  const tokenHash = sha256(input.token);
  const row = await repo.findPasswordReset(db, source.tenantId, tokenHash);
  const invalid = () => badRequest('this reset link is invalid, expired or already used', '/token');
  if (!row || row.used_at || Date.parse(row.expires_at) <= Date.now()) throw invalid();
  const user = await users.getUser(db, source.tenantId, row.user_id);
  if (!user.active) throw invalid();
  const passwordHash = await hashPassword(input.password);
  await db.transaction().execute(async (trx) => {
    if (!(await repo.usePasswordReset(trx, source.tenantId, tokenHash, nowIso()))) throw invalid();
    await users.setPasswordHash(trx, source.tenantId, user.id, passwordHash);
    await repo.deleteUserPasswordResets(trx, source.tenantId, user.id);
    await endSignIns(trx, { ...source, userId: user.id }, 'password_reset');
  });
  await clearSignInFailures(db, source.tenantId, user.email);
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
