import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { badRequest, conflict } from '../../../errors.js';
import { hashPassword, sha256 } from '../../../lib/crypto.js';
import { newSecret } from '../../../lib/ids.js';
import { addressKey } from '../../../lib/ip.js';
import { nowIso } from '../../../lib/time.js';
import { passwordResetMail } from '../../../mail/mailer.js';
import { recordAudit } from '../../audit/audit.service.js';
import type { RequestSource } from '../../auth/auth.service.js';
import {
  clearSignInFailures,
  emailBucket,
  hitWaitMs,
  recordHits,
  throttled,
  type WindowLimit,
} from '../../auth/throttle.service.js';
import * as users from '../../users/users.service.js';
import {
  endSignIns,
  mailOrShowLink,
  toAccountUser,
  type AccountMail,
  type AccountUser,
} from '../accounts.common.js';
import * as repo from '../accounts.repository.js';

/*
 * Password resets: one-time links (valid one hour) that set a new password. Someone asks for one (mailed, never
 * shown), an admin issues one for a user (mailed, or shown once without mail), or the command line makes one.
 */

const PASSWORD_RESET_TTL_MS = 3600_000;

const resetLink = (publicUrl: string, token: string) => `${publicUrl}/reset-password/${token}`;

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
async function issuePasswordResetFor(
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

/** Password-reset requests per source address: past it, 429 with `Retry-After`. */
const RESET_REQUESTS_PER_ADDRESS: WindowLimit = { max: 10, windowMs: 15 * 60_000 };
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
async function requestPasswordReset(
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
