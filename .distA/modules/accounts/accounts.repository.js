// ---- invitations ----
export const insertInvitation = (db, row) => db.insertInto('invitations').values(row).execute();
/** Invitations that can still be accepted: neither accepted nor cancelled, and not expired. */
export const listPendingInvitations = (db, tenantId, now, emailNorm) => {
    let q = db
        .selectFrom('invitations')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('accepted_at', 'is', null)
        .where('cancelled_at', 'is', null)
        .where('expires_at', '>', now);
    if (emailNorm !== undefined)
        q = q.where('email_norm', '=', emailNorm);
    return q.orderBy('created_at').orderBy('id').execute();
};
export const findInvitation = (db, tenantId, id) => db
    .selectFrom('invitations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
export const findInvitationByTokenHash = (db, tenantId, tokenHash) => db
    .selectFrom('invitations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
/** Closes a still-open invitation; false when it was already accepted or cancelled (a concurrent request won). */
export const closeInvitation = async (db, tenantId, id, how) => {
    const res = await db
        .updateTable('invitations')
        .set(how)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('cancelled_at', 'is', null)
        .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
};
// ---- password resets ----
export const insertPasswordReset = (db, row) => db.insertInto('password_resets').values(row).execute();
export const findPasswordReset = (db, tenantId, tokenHash) => db
    .selectFrom('password_resets')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
/** Marks an unused reset as used; false when a concurrent request used it first. */
export const usePasswordReset = async (db, tenantId, tokenHash, at) => {
    const res = await db
        .updateTable('password_resets')
        .set({ used_at: at })
        .where('tenant_id', '=', tenantId)
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
};
/** Once a password is set, every other outstanding reset link of the user stops working. */
export const deleteUserPasswordResets = (db, tenantId, userId) => db.deleteFrom('password_resets').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
// ---- two-factor ----
export const findTwoFactor = (db, tenantId, userId) => db
    .selectFrom('two_factor')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
/** Starts (or restarts) a pending set-up with a new secret. */
export const upsertPendingTwoFactor = async (db, row) => {
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
export const acceptTotpStep = async (db, tenantId, userId, step, at, enable = false) => {
    const res = await db
        .updateTable('two_factor')
        .set(enable ? { last_step: step, enabled_at: at, updated_at: at } : { last_step: step, updated_at: at })
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .where('last_step', '<', step)
        .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
};
export const deleteTwoFactor = (db, tenantId, userId) => db.deleteFrom('two_factor').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
export const replaceRecoveryCodes = async (db, tenantId, userId, hashes) => {
    await deleteRecoveryCodes(db, tenantId, userId);
    if (hashes.length > 0) {
        await db
            .insertInto('recovery_codes')
            .values(hashes.map((code_hash) => ({ tenant_id: tenantId, user_id: userId, code_hash, used_at: null })))
            .execute();
    }
};
export const deleteRecoveryCodes = (db, tenantId, userId) => db.deleteFrom('recovery_codes').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
export const countUnusedRecoveryCodes = async (db, tenantId, userId) => Number((await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow()).n);
/** Uses an unused recovery code; false when there is none with that hash (or a concurrent request used it). */
export const useRecoveryCode = async (db, tenantId, userId, codeHash, at) => {
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
//# sourceMappingURL=accounts.repository.js.map