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
import * as projects from '../../projects/projects.service.js';
import { getTenant, setMembersJoinAllProjects } from '../../tenants/tenants.service.js';
import { parseJson } from '../../../lib/json.js';
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
  /** Every project, those made later too; else `projects`. */
  allProjects: boolean;
  projects: { id: string; code: string; title: string }[];
}

type ProjectRef = Invitation['projects'][number];

/** The invitation as answered: its projects that still exist (a project deleted since is simply not granted). */
const toInvitation = (row: Selectable<InvitationsTable>, projects: Map<string, ProjectRef>): Invitation => ({
  id: row.id,
  email: row.email,
  role: row.role as Role,
  invitedBy: row.invited_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  allProjects: row.all_projects === 1,
  projects: projectIdsOf(row).flatMap((id) => projects.get(id) ?? []),
});

const projectIdsOf = (row: Selectable<InvitationsTable>) => parseJson<string[]>(row.project_ids ?? '[]', []);

async function projectsOf(db: Db, tenantId: string, rows: Selectable<InvitationsTable>[]) {
  const ids = [...new Set(rows.flatMap(projectIdsOf))];
  return new Map((await projects.projectsByIds(db, tenantId, ids)).map((p) => [p.id, p]));
}

const inviteLink = (publicUrl: string, token: string) => `${publicUrl}/invite/${token}`;

export interface InviteInput {
  email: string;
  role: Role;
  /** Projects (ids or codes) the invitee joins; or `allProjects`. Neither: the tenant's default. */
  projects?: string[];
  allProjects?: boolean;
}

/**
 * D3 (admin): invites someone by e-mail with a role no higher than the inviter's (never owner), into the projects
 * named, or all of them (those made later too), or, when neither is said, as the tenant's default for new members
 * says; the one-time link is returned once. Audits `invite_user` (its meta as the contract says) and, beside it,
 * `invitation.projects` with what it grants.
 */
async function inviteUser(
  db: Db,
  actor: Actor,
  input: InviteInput,
  publicUrl: string,
): Promise<Invitation & { link: string }> {
  if (input.allProjects === true && input.projects !== undefined && input.projects.length > 0)
    throw badRequest('name projects or ask for all of them, not both', '/projects');
  const named = await projects.projectsByRefs(db, actor.tenantId, input.projects ?? [], '/projects');
  const allProjects =
    input.allProjects ??
    (input.projects === undefined && (await getTenant(db, actor.tenantId)).membersJoinAllProjects);
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
    project_ids:
      allProjects || named.length === 0 ? null : JSON.stringify([...new Set(named.map((p) => p.id))]),
    all_projects: allProjects ? 1 : 0,
  };
  await db.transaction().execute(async (trx) => {
    await repo.insertInvitation(trx, row);
    await recordAudit(trx, actor, 'invite_user', { invited_email: email, invited_role: input.role });
    await recordAudit(trx, actor, 'invitation.projects', {
      invited_email: email,
      all_projects: allProjects,
      project_codes: allProjects ? [] : named.map((p) => p.code),
    });
  });
  return { ...toInvitation(row, new Map(named.map((p) => [p.id, p]))), link: inviteLink(publicUrl, token) };
}

/** What new members are given: whether invitations that name no projects grant them all. */
export async function accessDefaults(db: Db, actor: Actor): Promise<{ newMembersJoinAllProjects: boolean }> {
  return { newMembersJoinAllProjects: (await getTenant(db, actor.tenantId)).membersJoinAllProjects };
}

/** Sets it (admin); audited as the Casebook event `access_defaults.updated`. */
export async function setAccessDefaults(
  db: Db,
  actor: Actor,
  input: { newMembersJoinAllProjects: boolean },
): Promise<{ newMembersJoinAllProjects: boolean }> {
  await db.transaction().execute(async (trx) => {
    await setMembersJoinAllProjects(trx, actor.tenantId, input.newMembersJoinAllProjects);
    await recordAudit(trx, actor, 'access_defaults.updated', {
      new_members_join_all_projects: input.newMembersJoinAllProjects,
    });
  });
  return input;
}

/** inviteUser, and the link mailed to the invitee (or, without mail, in the admin's answer, once). */
export async function sendInvitation(
  db: Db,
  actor: Actor,
  input: InviteInput,
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
  const rows = (await repo.listPendingInvitations(db, actor.tenantId, nowIso())).filter((row) =>
    inviterCanGrant(byId.get(row.invited_by), row.role),
  );
  const named = await projectsOf(db, actor.tenantId, rows);
  return rows.map((row) => toInvitation(row, named));
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
    // What the invitation grants: every project (those made later too), or the ones it named that still exist.
    if (row.all_projects === 1) await projects.joinAllProjects(trx, source.tenantId, user.id);
    else
      for (const p of await projects.projectsByIds(trx, source.tenantId, projectIdsOf(row)))
        await projects.addMember(trx, source.tenantId, p.id, user.id);
    await recordAudit(trx, { ...source, userId: user.id }, 'register');
    return { id: user.id, email: user.email };
  });
}
