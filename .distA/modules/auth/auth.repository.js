// ---- sessions ----
export const insertSession = (db, row) => db.insertInto('sessions').values(row).execute();
/** The session, its user and its tenant in one indexed lookup: this runs on every cookie request. */
export const findSessionForAuth = (db, id) => db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('tenants as t', 't.id', 's.tenant_id')
    .select([
    's.id',
    's.tenant_id',
    's.user_id',
    's.ip',
    's.user_agent',
    's.expires_at',
    's.last_seen_at',
    'u.role',
    'u.deactivated_at',
    't.suspended_at',
])
    .where('s.id', '=', id)
    .executeTakeFirst();
/** Moves the session to a new address or user agent; 0 rows when another request already did. */
export const moveSession = async (db, id, from, to) => {
    const res = await db
        .updateTable('sessions')
        .set({ ip: to.ip, user_agent: to.userAgent, last_seen_at: to.at })
        .where('id', '=', id)
        .where('ip', '=', from.ip)
        .where('user_agent', '=', from.userAgent)
        .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
};
export const touchSession = (db, id, at) => db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
export const deleteSession = (db, tenantId, id) => db.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
export const deleteUserSessions = (db, tenantId, userId, exceptId) => {
    let q = db.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('user_id', '=', userId);
    if (exceptId !== undefined)
        q = q.where('id', '!=', exceptId);
    return q.execute();
};
/** Removes up to `limit` expired sessions of the tenant: a bounded sweep, run at each sign-in. */
export const deleteExpiredSessions = (db, tenantId, now, limit) => db
    .deleteFrom('sessions')
    .where('id', 'in', (eb) => eb
    .selectFrom('sessions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('expires_at', '<=', now)
    .limit(limit))
    .execute();
// ---- failed sign-ins ----
export const insertFailure = (db, tenantId, emailNorm, ip, at) => db
    .insertInto('sign_in_failures')
    .values({ tenant_id: tenantId, email_norm: emailNorm, ip, created_at: at })
    .execute();
/** Count and oldest time of the failures since `since`, for an e-mail or an address. */
export const failuresSince = async (db, tenantId, by, since) => {
    let q = db
        .selectFrom('sign_in_failures')
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('created_at').as('oldest')])
        .where('tenant_id', '=', tenantId)
        .where('created_at', '>', since);
    q = 'emailNorm' in by ? q.where('email_norm', '=', by.emailNorm) : q.where('ip', '=', by.ip);
    const row = await q.executeTakeFirstOrThrow();
    return { count: Number(row.n), oldest: row.oldest ?? null };
};
export const deleteFailuresForEmail = (db, tenantId, emailNorm) => db
    .deleteFrom('sign_in_failures')
    .where('tenant_id', '=', tenantId)
    .where('email_norm', '=', emailNorm)
    .execute();
/** Failures older than the window count for nothing; removed as new ones arrive, so the table stays small. */
export const deleteFailuresBefore = (db, tenantId, before) => db
    .deleteFrom('sign_in_failures')
    .where('tenant_id', '=', tenantId)
    .where('created_at', '<=', before)
    .execute();
//# sourceMappingURL=auth.repository.js.map