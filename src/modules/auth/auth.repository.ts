import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { SessionsTable } from '../../db/schema.js';

// ---- sessions ----

export const insertSession = (db: Db, row: Insertable<SessionsTable>) =>
  db.insertInto('sessions').values(row).execute();

/** The session, its user and its tenant in one indexed lookup: this runs on every cookie request. */
export const findSessionForAuth = (db: Db, id: string) =>
  db
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
export const moveSession = async (
  db: Db,
  id: string,
  from: { ip: string; userAgent: string },
  to: { ip: string; userAgent: string; at: string },
): Promise<boolean> => {
  const res = await db
    .updateTable('sessions')
    .set({ ip: to.ip, user_agent: to.userAgent, last_seen_at: to.at })
    .where('id', '=', id)
    .where('ip', '=', from.ip)
    .where('user_agent', '=', from.userAgent)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
};

export const touchSession = (db: Db, id: string, at: string) =>
  db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();

export const deleteSession = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

export const deleteUserSessions = (db: Db, tenantId: string, userId: number, exceptId?: string) => {
  let q = db.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('user_id', '=', userId);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return q.executeTakeFirst();
};

/** Removes up to `limit` expired sessions of the tenant: a bounded sweep, run at each sign-in. */
export const deleteExpiredSessions = (db: Db, tenantId: string, now: string, limit: number) =>
  db
    .deleteFrom('sessions')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('sessions')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('expires_at', '<=', now)
        .limit(limit),
    )
    .execute();

// ---- failed sign-ins ----

export const insertFailure = (db: Db, tenantId: string, emailNorm: string, ip: string, at: string) =>
  db
    .insertInto('sign_in_failures')
    .values({ tenant_id: tenantId, email_norm: emailNorm, ip, created_at: at })
    .execute();

/** Count, oldest and latest time of the failures since `since`, for an e-mail or an address. */
export const failuresSince = async (
  db: Db,
  tenantId: string,
  by: { emailNorm: string } | { ip: string },
  since: string,
): Promise<Tally> => {
  let q = db
    .selectFrom('sign_in_failures')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.min('created_at').as('oldest'),
      eb.fn.max('created_at').as('latest'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>', since);
  q = 'emailNorm' in by ? q.where('email_norm', '=', by.emailNorm) : q.where('ip', '=', by.ip);
  return tallyOf(await q.executeTakeFirstOrThrow());
};

/** How many attempts a throttle counts, and the first and last of them (null when none). */
export interface Tally {
  count: number;
  oldest: string | null;
  latest: string | null;
}

const tallyOf = (row: { n: unknown; oldest: unknown; latest: unknown }): Tally => ({
  count: Number(row.n),
  oldest: (row.oldest as string | null) ?? null,
  latest: (row.latest as string | null) ?? null,
});

/** An account's failures from one address: a successful sign-in from there forgives its own typos only. */
export const deleteFailuresForEmailFrom = (db: Db, tenantId: string, emailNorm: string, ip: string) =>
  db
    .deleteFrom('sign_in_failures')
    .where('tenant_id', '=', tenantId)
    .where('email_norm', '=', emailNorm)
    .where('ip', '=', ip)
    .execute();

export const deleteFailuresForEmail = (db: Db, tenantId: string, emailNorm: string) =>
  db
    .deleteFrom('sign_in_failures')
    .where('tenant_id', '=', tenantId)
    .where('email_norm', '=', emailNorm)
    .execute();

/** Failures older than the window count for nothing; removed as new ones arrive, so the table stays small. */
export const deleteFailuresBefore = (db: Db, tenantId: string, before: string) =>
  db
    .deleteFrom('sign_in_failures')
    .where('tenant_id', '=', tenantId)
    .where('created_at', '<=', before)
    .execute();

// ---- addresses an account signed in from ----

export const isKnownAddress = async (
  db: Db,
  tenantId: string,
  emailNorm: string,
  ip: string,
  since: string,
) =>
  (await db
    .selectFrom('sign_in_known_addresses')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('email_norm', '=', emailNorm)
    .where('ip', '=', ip)
    .where('last_at', '>', since)
    .executeTakeFirst()) !== undefined;

/** Records (or refreshes) a known address; a concurrent insert of the same one is as good as ours. */
export const rememberAddress = async (
  db: Db,
  tenantId: string,
  emailNorm: string,
  ip: string,
  at: string,
) => {
  const updated = await db
    .updateTable('sign_in_known_addresses')
    .set({ last_at: at })
    .where('tenant_id', '=', tenantId)
    .where('email_norm', '=', emailNorm)
    .where('ip', '=', ip)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return;
  await db
    .insertInto('sign_in_known_addresses')
    .values({ tenant_id: tenantId, email_norm: emailNorm, ip, last_at: at })
    .onConflict((oc) => oc.columns(['tenant_id', 'email_norm', 'ip']).doUpdateSet({ last_at: at }))
    .execute();
};

export const deleteKnownAddressesBefore = (db: Db, tenantId: string, before: string) =>
  db
    .deleteFrom('sign_in_known_addresses')
    .where('tenant_id', '=', tenantId)
    .where('last_at', '<=', before)
    .execute();

// ---- counted attempts of other throttled actions ----

export const insertHit = (db: Db, tenantId: string, bucket: string, at: string) =>
  db.insertInto('throttle_hits').values({ tenant_id: tenantId, bucket, created_at: at }).execute();

export const hitsSince = async (db: Db, tenantId: string, bucket: string, since: string): Promise<Tally> =>
  tallyOf(
    await db
      .selectFrom('throttle_hits')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.min('created_at').as('oldest'),
        eb.fn.max('created_at').as('latest'),
      ])
      .where('tenant_id', '=', tenantId)
      .where('bucket', '=', bucket)
      .where('created_at', '>', since)
      .executeTakeFirstOrThrow(),
  );

export const deleteHitsBefore = (db: Db, tenantId: string, before: string) =>
  db
    .deleteFrom('throttle_hits')
    .where('tenant_id', '=', tenantId)
    .where('created_at', '<=', before)
    .execute();
