import type { Db } from '../../db/create-db.js';
import { AppError, forbidden, unauthorized } from '../../errors.js';
import { sha256 } from '../../lib/crypto.js';
import { newSecret } from '../../lib/ids.js';
import { recordAudit, type AuditContext } from '../audit/audit.service.js';
import { isTwoFactorEnabled, verifySecondFactor } from './two-factor.service.js';
import { getTenant } from '../tenants/tenants.service.js';
import { checkCredentials } from '../users/users.service.js';
import * as repo from './auth.repository.js';
import { recordSignInFailure, recordSignInSuccess, throttled, throttleState } from './throttle.service.js';

/** D4: the cookie the web application signs in with. */
export const SESSION_COOKIE = 'session';

/** A session is stored under the sha256 of its token; the token itself only ever lives in the cookie. */
export const sessionIdOf = (token: string): string => sha256(token);

/** Where a request comes from: the tenant it addressed, its address and user agent. */
export interface RequestSource {
  tenantId: string;
  ip: string;
  userAgent: string;
}

export interface SignInInput {
  email: string;
  password: string;
  totp?: string;
  recoveryCode?: string;
}

export interface SignInOptions {
  sessionTtlHours: number;
  secretKey: string;
}

const BAD_CREDENTIALS = 'invalid e-mail or password';
/** The refusal when the tenant lets only its owner sign in with a password. */
export const PASSWORD_SIGN_IN_OFF =
  "password sign-in is turned off here: sign in with your organisation's identity provider (only the owner keeps a password)";

/**
 * D4: signs in with e-mail and password (and a second factor when the user has one) and opens a session
 * that ends after `sessionTtlHours`. 401 with one message for an unknown e-mail or a wrong password,
 * 401 for a deactivated user, 429 when throttled, 403 for a suspended tenant. Audits `login`.
 *
 * Throttling (docs/api-decisions.md#sign-in-throttle): the address's own delay always binds. The account's delay
 * binds addresses that have not proven themselves, except that an account with a second factor still lets in
 * the right password with the right code: each such attempt is checked, and any failure answers the same 429,
 * so the account's delay still tells a guesser nothing.
 */
export async function signIn(
  db: Db,
  source: RequestSource,
  input: SignInInput,
  options: SignInOptions,
): Promise<{ token: string; expiresAt: string; userId: number }> {
  const state = await throttleState(db, source, input.email);
  if (state.addressWaitMs > 0) throw throttled(state.addressWaitMs);
  const accountWaiting = state.accountWaitMs > 0;
  if (accountWaiting && !input.totp && !input.recoveryCode) throw throttled(state.accountWaitMs);
  const fail = async (message: string, field?: string) => {
    await recordSignInFailure(db, source, input.email);
    if (accountWaiting) return throttled((await throttleState(db, source, input.email)).accountWaitMs);
    return field ? new AppError('UNAUTHORIZED', message, [{ path: field, message }]) : unauthorized(message);
  };
  const user = await checkCredentials(db, source.tenantId, input.email, input.password);
  if (!user) throw await fail(BAD_CREDENTIALS);
  if (!user.active) throw await fail('this account is deactivated');
  // While the account waits, only a second factor lets an unproven address through; an account without one waits.
  // The right password is answered exactly as a wrong one (a failure counted, the same 429 with the new wait):
  // anything else would tell a guesser which password was right.
  if (accountWaiting && !(await isTwoFactorEnabled(db, source.tenantId, user.id))) {
    throw await fail(BAD_CREDENTIALS);
  }
  const second = await verifySecondFactor(db, source.tenantId, user.id, input, options.secretKey);
  // A missing code counts as a failure too: otherwise "code required" would confirm a guessed password for free.
  // The detail names the field, so the sign-in page knows to ask for the second factor.
  if (second === 'missing')
    throw await fail('two-factor code required: send "totp" or "recoveryCode"', '/totp');
  if (second === 'invalid') throw await fail('invalid two-factor code', '/totp');
  const tenant = await getTenant(db, source.tenantId);
  if (tenant.suspended) throw forbidden('this tenant is suspended');
  // Provider only, with a break-glass owner (docs/api-decisions.md#openid-connect-sign-in): said only once the
  // password and second factor were right, so it tells a guesser nothing about the e-mail address.
  if (tenant.passwordSignIn === 'owners' && user.role !== 'owner') {
    throw new AppError('FORBIDDEN', PASSWORD_SIGN_IN_OFF, [
      { path: '/password', message: PASSWORD_SIGN_IN_OFF },
    ]);
  }

  await recordSignInSuccess(db, source, input.email);
  return { ...(await openSession(db, source, user.id, options.sessionTtlHours)), userId: user.id };
}

/**
 * D4: opens a session of `sessionTtlHours` for a person who proved who they are (a password and second factor, or
 * an identity provider), and audits the contract's `login` (no meta) in the same transaction.
 */
export async function openSession(
  db: Db,
  source: RequestSource,
  userId: number,
  sessionTtlHours: number,
): Promise<{ token: string; expiresAt: string }> {
  const token = newSecret(32);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + sessionTtlHours * 3600_000).toISOString();
  const work = async (trx: Db) => {
    await repo.deleteExpiredSessions(trx, source.tenantId, now.toISOString(), 100);
    await repo.insertSession(trx, {
      id: sessionIdOf(token),
      tenant_id: source.tenantId,
      user_id: userId,
      ip: source.ip,
      user_agent: source.userAgent,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      last_seen_at: now.toISOString(),
    });
    await recordAudit(trx, { ...source, userId }, 'login');
  };
  await (db.isTransaction ? work(db) : db.transaction().execute(work));
  return { token, expiresAt };
}

/** Ends the session the request came with. Audits `logout`. */
export async function signOut(db: Db, ctx: AuditContext, sessionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await repo.deleteSession(trx, ctx.tenantId, sessionId);
    await recordAudit(trx, ctx, 'logout');
  });
}

/** Ends every session of a user (deactivation, password reset), or every other one (password change); how many ended. */
export async function endUserSessions(
  db: Db,
  tenantId: string,
  userId: number,
  exceptSessionId?: string,
): Promise<number> {
  return Number((await repo.deleteUserSessions(db, tenantId, userId, exceptSessionId)).numDeletedRows);
}

export type SessionCheck =
  | {
      ok: true;
      sessionId: string;
      tenantId: string;
      userId: number;
      role: string;
      tenantSuspended: boolean;
    }
  | { ok: false; reason: string };

/** last_seen_at is written at most once a minute per session, not on every request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * D4: checks a session token for the tenant the request addressed. A session seen from a new address or
 * user agent follows it, and `auth.ip_or_user_agent_changed` is recorded once per change.
 */
export async function authenticateSession(
  db: Db,
  source: RequestSource,
  token: string,
): Promise<SessionCheck> {
  const id = sessionIdOf(token);
  const row = await repo.findSessionForAuth(db, id);
  if (!row || row.tenant_id !== source.tenantId) {
    return { ok: false, reason: 'invalid or expired session: sign in again' };
  }
  const now = new Date();
  if (Date.parse(row.expires_at) <= now.getTime()) {
    await repo.deleteSession(db, row.tenant_id, row.id);
    return { ok: false, reason: 'invalid or expired session: sign in again' };
  }
  if (row.deactivated_at) return { ok: false, reason: 'user deactivated' };
  if (row.ip !== source.ip || row.user_agent !== source.userAgent) {
    // Only the request that moves the session records the change: concurrent ones find it moved already.
    const moved = await repo.moveSession(
      db,
      row.id,
      { ip: row.ip, userAgent: row.user_agent },
      { ip: source.ip, userAgent: source.userAgent, at: now.toISOString() },
    );
    if (moved) await recordAudit(db, { ...source, userId: row.user_id }, 'auth.ip_or_user_agent_changed');
  } else if (now.getTime() - Date.parse(row.last_seen_at) > TOUCH_EVERY_MS) {
    await repo.touchSession(db, row.id, now.toISOString());
  }
  return {
    ok: true,
    sessionId: row.id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    role: row.role,
    tenantSuspended: row.suspended_at !== null,
  };
}
