import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { TwoFactorTable } from '../../db/tables/admin.js';

// Two-factor secrets and recovery codes: read at sign-in, managed from the account pages.

export const findTwoFactor = (db: Db, tenantId: string, userId: number) =>
  db
    .selectFrom('two_factor')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

/** Starts (or restarts) a pending set-up with a new secret. */
export const upsertPendingTwoFactor = async (db: Db, row: Insertable<TwoFactorTable>) => {
  await db
    .deleteFrom('two_factor')
    .where('tenant_id', '=', row.tenant_id)
    .where('user_id', '=', row.user_id)
    .where('enabled_at', 'is', null)
    .execute();
  await db.insertInto('two_factor').values(row).execute();
};

/**
 * Accepts a TOTP time step: only a step later than the last accepted one (a code works once).
 * With `enable`, also turns a pending set-up on. False when the step was not later (a replay).
 */
export const acceptTotpStep = async (
  db: Db,
  tenantId: string,
  userId: number,
  step: number,
  at: string,
  enable = false,
): Promise<boolean> => {
  const res = await db
    .updateTable('two_factor')
    .set(enable ? { last_step: step, enabled_at: at, updated_at: at } : { last_step: step, updated_at: at })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('last_step', '<', step)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
};

export const deleteTwoFactor = (db: Db, tenantId: string, userId: number) =>
  db.deleteFrom('two_factor').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();

export const replaceRecoveryCodes = async (db: Db, tenantId: string, userId: number, hashes: string[]) => {
  await deleteRecoveryCodes(db, tenantId, userId);
  if (hashes.length > 0) {
    await db
      .insertInto('recovery_codes')
      .values(hashes.map((code_hash) => ({ tenant_id: tenantId, user_id: userId, code_hash, used_at: null })))
      .execute();
  }
};

export const deleteRecoveryCodes = (db: Db, tenantId: string, userId: number) =>
  db.deleteFrom('recovery_codes').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();

export const countUnusedRecoveryCodes = async (db: Db, tenantId: string, userId: number) =>
  Number(
    (
      await db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Uses an unused recovery code; false when there is none with that hash (or a concurrent request used it). */
export const useRecoveryCode = async (
  db: Db,
  tenantId: string,
  userId: number,
  codeHash: string,
  at: string,
) => {
  const res = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
};
