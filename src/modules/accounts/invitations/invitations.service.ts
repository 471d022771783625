import type { Selectable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { InvitationsTable } from '../../../db/tables/admin.js';
import type { Actor } from '../../../auth/actor.js';
import { atLeast, roleRank, type Role } from '../../../auth/roles.js';
import { badRequest, conflict, forbidden, notFound } from '../../../errors.js';
import { sha256 } from '../../../lib/crypto.js';
import { newId, newSecret } from '../../../lib/ids.js';
import { nowIso } from '../../../lib/time.js';
import { invitationMail } from '../../../mail/mailer.js';
import { recordAudit } from '../../audit/audit.service.js';
import type { RequestSource } from '../../auth/auth.service.js';
import * as users from '../../users/users.service.js';
import { mailOrShowLink, type AccountMail } from '../accounts.common.js';
import * as repo from '../accounts.repository.js';

/* Invitations (D3): an admin invites someone by e-mail with a role; the invitee signs up once with the link. */

const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: number;
  createdAt: string;
  expiresAt: string;
}

const toInvitation = (row: Selectable<InvitationsTable>): Invitation => ({
  id: row.id,
  email: row.email,
  role: row.role as Role,
  invitedBy: row.invited_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

const inviteLink = (publicUrl: string, token: string) => `${publicUrl}/invite/${token}`;

/** D3 (admin): invites someone by e-mail with a role no higher than the inviter's (never owner); the one-time link is returned once. Audits `invite_user`. */
async function inviteUser(
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
