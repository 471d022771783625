import { prepareQuery } from '../../db/prepared.js';
export const insertKey = (db, row) => db.insertInto('api_keys').values(row).execute();
/** The key, its user and its tenant in one indexed lookup: this runs on every request (so it is prepared). */
const keyForAuth = prepareQuery((db, keyId) => db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select([
    'k.id',
    'k.tenant_id',
    'k.user_id',
    'k.name',
    'k.secret_hash',
    'k.expires_at',
    'k.revoked_at',
    'u.role',
    'u.deactivated_at',
    't.suspended_at',
])
    .where('k.id', '=', keyId));
export const findKeyForAuth = (db, keyId) => keyForAuth.executeTakeFirst(db, keyId);
export const listKeys = (db, tenantId, userId) => {
    let q = db
        .selectFrom('api_keys as k')
        .innerJoin('users as u', 'u.id', 'k.user_id')
        .select([
        'k.id',
        'k.name',
        'k.user_id',
        'u.email',
        'k.created_at',
        'k.expires_at',
        'k.revoked_at',
        'k.last_used_at',
    ])
        .where('k.tenant_id', '=', tenantId);
    if (userId !== undefined)
        q = q.where('k.user_id', '=', userId);
    return q.orderBy('k.created_at').execute();
};
export const revokeKey = (db, tenantId, keyId, at) => db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
export const findKey = (db, tenantId, keyId) => db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', keyId)
    .executeTakeFirst();
//# sourceMappingURL=api-keys.repository.js.map