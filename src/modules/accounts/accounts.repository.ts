import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { InvitationsTable, PasswordResetsTable } from '../../db/tables/admin.js';

// ---- invitations ----

export const insertInvitation = (db: Db, row: Insertable<InvitationsTable>) =>
  db.insertInto('invitations').values(row).execute();

/** Invitations that can still be accepted: neither accepted nor cancelled, and not expired. */
export const listPendingInvitations = (db: Db, tenantId: string, now: string, emailNorm?: string) => {
  let q = db
    .selectFrom('invitations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('accepted_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('expires_at', '>', now);
  if (emailNorm !== undefined) q = q.where('email_norm', '=', emailNorm);
  return q.orderBy('created_at').orderBy('id').execute();
};

export const findInvitation = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('invitations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findInvitationByTokenHash = (db: Db, tenantId: string, tokenHash: string) =>
  db
    .selectFrom('invitations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();

/** Closes a still-open invitation; false when it was already accepted or cancelled (a concurrent request won). */
export const closeInvitation = async (
  db: Db,
  tenantId: string,
  id: string,
  how: { accepted_at: string } | { cancelled_at: string },
): Promise<boolean> => {
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

export const insertPasswordReset = (db: Db, row: Insertable<PasswordResetsTable>) =>
  db.insertInto('password_resets').values(row).execute();

export const findPasswordReset = (db: Db, tenantId: string, tokenHash: string) =>
  db
    .selectFrom('password_resets')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();

/** Marks an unused reset as used; false when a concurrent request used it first. */
export const usePasswordReset = async (db: Db, tenantId: string, tokenHash: string, at: string) => {
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
export const deleteUserPasswordResets = (db: Db, tenantId: string, userId: number) =>
  db.deleteFrom('password_resets').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
