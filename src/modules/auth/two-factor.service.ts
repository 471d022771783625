import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../../db/create-db.js';
import { badRequest, conflict } from '../../errors.js';
import { sha256 } from '../../lib/crypto.js';
import { open, requireSecretKey, seal } from '../../lib/secret-box.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit, type AuditContext } from '../audit/audit.service.js';
import { confirmPassword, recordSignInFailure } from './throttle.service.js';
import { getUser } from '../users/users.service.js';
import * as repo from './two-factor.repository.js';

const PERIOD = 30;
const RECOVERY_CODES = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export interface TwoFactorActor extends AuditContext {
  userId: number;
}

export interface SecondFactor {
  totp?: string;
  recoveryCode?: string;
}

export type SecondFactorCheck = 'ok' | 'missing' | 'invalid';

export interface TwoFactorStatus {
  enabled: boolean;
  recoveryCodesLeft: number;
}

/** Opens a stored TOTP secret (sealed under the secret box's default purpose); throws when the key is not its key. */
export const openTotpSecret = (secretKey: string, sealed: string): string => open(sealed, secretKey);

/** A stored TOTP secret sealed again under `newKey` (`casebook secret-key rotate`). */
export const resealTotpSecret = (oldKey: string, newKey: string, sealed: string): string =>
  seal(openTotpSecret(oldKey, sealed), newKey);

const totpFor = (base32: string, label: string) =>
  new TOTP({ issuer: 'Casebook', label, secret: Secret.fromBase32(base32), digits: 6, period: PERIOD });

/** The time step a code belongs to, when it is valid now (±1 step of clock drift), else undefined. */
function matchingStep(base32: string, code: string): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpFor(base32, '').validate({ token: code, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(Date.now() / 1000 / PERIOD) + delta;
}

const normRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

async function storeNewRecoveryCodes(db: Db, tenantId: string, userId: number): Promise<string[]> {
  const codes = newRecoveryCodes();
  await repo.replaceRecoveryCodes(
    db,
    tenantId,
    userId,
    codes.map((c) => sha256(normRecoveryCode(c))),
  );
  return codes;
}

export async function isTwoFactorEnabled(db: Db, tenantId: string, userId: number): Promise<boolean> {
  return !!(await repo.findTwoFactor(db, tenantId, userId))?.enabled_at;
}

export async function twoFactorStatus(db: Db, tenantId: string, userId: number): Promise<TwoFactorStatus> {
  const enabled = await isTwoFactorEnabled(db, tenantId, userId);
  return {
    enabled,
    recoveryCodesLeft: enabled ? await repo.countUnusedRecoveryCodes(db, tenantId, userId) : 0,
  };
}

/**
 * Checks the second factor of a user who has two-factor sign-in on: a TOTP code (each accepted once)
 * or an unused recovery code (then spent).
 */
export async function verifySecondFactor(
  db: Db,
  tenantId: string,
  userId: number,
  factor: SecondFactor,
  secretKey: string,
): Promise<SecondFactorCheck> {
  const row = await repo.findTwoFactor(db, tenantId, userId);
  if (!row?.enabled_at) return 'ok';
  if (factor.totp) {
    const step = matchingStep(
      openTotpSecret(requireSecretKey(secretKey), row.secret_enc),
      factor.totp.trim(),
    );
    if (step === undefined) return 'invalid';
    return (await repo.acceptTotpStep(db, tenantId, userId, step, nowIso())) ? 'ok' : 'invalid';
  }
  if (factor.recoveryCode) {
    const hash = sha256(normRecoveryCode(factor.recoveryCode));
    return (await repo.useRecoveryCode(db, tenantId, userId, hash, nowIso())) ? 'ok' : 'invalid';
  }
  return 'missing';
}

/**
 * Starts setting up two-factor sign-in (needs the current password): a new secret, shown once, that
 * takes effect when `enableTwoFactor` gets a code made from it. 409 when already on.
 */
export async function beginTwoFactorSetup(
  db: Db,
  actor: TwoFactorActor,
  password: string,
  secretKey: string,
): Promise<{ secret: string; otpauthUrl: string }> {
  const key = requireSecretKey(secretKey);
  await confirmPassword(db, actor, password, '/password');
  if (await isTwoFactorEnabled(db, actor.tenantId, actor.userId)) {
    throw conflict('two-factor sign-in is already on; turn it off first to set up a new device');
  }
  const user = await getUser(db, actor.tenantId, actor.userId);
  const secret = new Secret({ size: 20 }).base32;
  const now = nowIso();
  await repo.upsertPendingTwoFactor(db, {
    user_id: actor.userId,
    tenant_id: actor.tenantId,
    secret_enc: seal(secret, key),
    enabled_at: null,
    last_step: 0,
    created_at: now,
    updated_at: now,
  });
  return { secret, otpauthUrl: totpFor(secret, user.email).toString() };
}

/** Turns two-factor sign-in on once a code from the new secret checks out; returns recovery codes, shown once. Audits `2fa_enable`. */
export async function enableTwoFactor(
  db: Db,
  actor: TwoFactorActor,
  code: string,
  secretKey: string,
): Promise<{ recoveryCodes: string[] }> {
  const key = requireSecretKey(secretKey);
  const row = await repo.findTwoFactor(db, actor.tenantId, actor.userId);
  if (row?.enabled_at) throw conflict('two-factor sign-in is already on');
  if (!row) throw badRequest('start the set-up first: POST /users/me/2fa/setup');
  const step = matchingStep(openTotpSecret(key, row.secret_enc), code.trim());
  if (step === undefined) throw badRequest('the code does not match the new secret', '/totp');
  return db.transaction().execute(async (trx) => {
    if (!(await repo.acceptTotpStep(trx, actor.tenantId, actor.userId, step, nowIso(), true))) {
      throw badRequest('the code was already used; wait for the next one', '/totp');
    }
    const recoveryCodes = await storeNewRecoveryCodes(trx, actor.tenantId, actor.userId);
    await recordAudit(trx, actor, '2fa_enable');
    return { recoveryCodes };
  });
}

/**
 * Checks the second factor of a change to the account's sign-in; a wrong code counts as a failed sign-in (the
 * same throttle as a wrong password), so a stolen session cannot guess codes either.
 */
async function assertSecondFactor(
  db: Db,
  actor: TwoFactorActor,
  factor: SecondFactor,
  secretKey: string,
): Promise<void> {
  const check = await verifySecondFactor(db, actor.tenantId, actor.userId, factor, secretKey);
  if (check === 'missing') throw badRequest('send "totp" (or "recoveryCode") as well', '/totp');
  if (check === 'invalid') {
    await recordSignInFailure(db, actor, (await getUser(db, actor.tenantId, actor.userId)).email);
    throw badRequest('the two-factor code is not correct', '/totp');
  }
}

/** Turns two-factor sign-in off (needs the password and a current code or recovery code). Audits `2fa_disable`. */
export async function disableTwoFactor(
  db: Db,
  actor: TwoFactorActor,
  input: { password: string } & SecondFactor,
  secretKey: string,
): Promise<void> {
  await confirmPassword(db, actor, input.password, '/password');
  if (!(await isTwoFactorEnabled(db, actor.tenantId, actor.userId))) {
    throw conflict('two-factor sign-in is not on');
  }
  await assertSecondFactor(db, actor, input, secretKey);
  await removeTwoFactor(db, actor, actor.userId);
}

async function removeTwoFactor(db: Db, ctx: AuditContext, userId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await repo.deleteTwoFactor(trx, ctx.tenantId, userId);
    await repo.deleteRecoveryCodes(trx, ctx.tenantId, userId);
    await recordAudit(trx, ctx, '2fa_disable');
  });
}

/** Replaces the recovery codes (needs the password and a current code); the old ones stop working. */
export async function regenerateRecoveryCodes(
  db: Db,
  actor: TwoFactorActor,
  input: { password: string } & SecondFactor,
  secretKey: string,
): Promise<{ recoveryCodes: string[] }> {
  await confirmPassword(db, actor, input.password, '/password');
  if (!(await isTwoFactorEnabled(db, actor.tenantId, actor.userId))) {
    throw conflict('two-factor sign-in is not on');
  }
  await assertSecondFactor(db, actor, input, secretKey);
  return { recoveryCodes: await storeNewRecoveryCodes(db, actor.tenantId, actor.userId) };
}
