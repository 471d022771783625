import type { Db } from '../../db/create-db.js';
import { AppError } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { applyRole } from '../accounts/accounts.service.js';
import { recordAudit } from '../audit/audit.service.js';
import { openSession, type RequestSource } from '../auth/auth.service.js';
import { addMember, joinAllProjects, projectsByIds } from '../projects/projects.service.js';
import { getTenant } from '../tenants/tenants.service.js';
import * as users from '../users/users.service.js';
import { mappedProjects, mappedRole } from './sso-rules.service.js';
import type { GrantableRole, ProjectRule, RoleRule } from './sso.schemas.js';

/**
 * Why a sign-in through a provider ended on the sign-in page: the `?error=` word the page shows in words
 * (docs/api-decisions.md#openid-connect-sign-in, #saml-20-sign-in).
 */
export type SignInFailure =
  | 'state_invalid'
  | 'provider_unavailable'
  | 'provider_error'
  | 'email_unverified'
  | 'no_account'
  | 'deactivated'
  | 'suspended'
  | 'assertion_invalid'
  | 'assertion_replayed'
  | 'assertion_expired';

export class SsoSignInError extends Error {
  constructor(
    readonly reason: SignInFailure,
    message: string,
    /** Where the person was going, once the sign-in is known: the sign-in page keeps it for another try. */
    readonly returnTo = '/',
  ) {
    super(message);
    this.name = 'SsoSignInError';
  }
}

/** The Casebook event beside the contract's `login` (`oidc.sign_in`, `saml.sign_in`). */
export type SignInAction = 'oidc.sign_in' | 'saml.sign_in';

/** The provider and the outcome, failures included. */
export async function auditOutcome(
  db: Db,
  action: SignInAction,
  source: RequestSource,
  provider: { id: string; name?: string },
  outcome: SignInFailure | 'success',
  meta: Record<string, unknown> & { userId?: number | null } = {},
): Promise<void> {
  const { userId = null, ...rest } = meta;
  await recordAudit(db, { ...source, userId }, action, {
    provider_id: provider.id,
    provider_name: provider.name,
    outcome,
    ...rest,
  });
}

/** Audits the failure and throws it for the route to send the browser to the sign-in page. */
export async function failSignIn(
  db: Db,
  action: SignInAction,
  source: RequestSource,
  provider: { id: string; name?: string },
  reason: SignInFailure,
  message: string,
  meta: Record<string, unknown> & { userId?: number | null } = {},
  returnTo?: string,
): Promise<never> {
  await auditOutcome(db, action, source, provider, reason, { ...meta, detail: message.slice(0, 500) });
  throw new SsoSignInError(reason, message, returnTo);
}

/** What a provider row carries for the person's account, whatever the protocol. */
export interface ProviderRules {
  id: string;
  name: string;
  just_in_time: number;
  default_role: string;
  role_rules: string;
  project_rules: string;
}

/** Who the provider says signed in, after the protocol's own checks. */
export interface Asserted {
  /** Stable at the provider (OIDC `sub`, SAML NameID). */
  subject: string;
  /** Checked by the protocol (verified for OIDC, from a signed assertion for SAML). */
  email: string;
  name: string | undefined;
  groups: string[];
}

/** The identity table of the protocol: the provider's subject linked to a user. */
export interface IdentityLinks {
  find(db: Db, subject: string): Promise<{ user_id: number } | undefined>;
  save(db: Db, subject: string, userId: number, at: string): Promise<unknown>;
}

/**
 * The person the provider vouched for: found by the provider's subject, else by e-mail, else made (just-in-time
 * providers only). Role and project rules apply at every sign-in; the owner's role never changes. Opens the same
 * session as a password sign-in, with the contract's `login` and the protocol's Casebook event.
 */
export async function signInPerson(
  db: Db,
  action: SignInAction,
  source: RequestSource,
  provider: ProviderRules,
  who: Asserted,
  links: IdentityLinks,
  options: { sessionTtlHours: number; returnTo: string },
): Promise<{ token: string; returnTo: string; userId: number }> {
  const back = options.returnTo;
  const { email, subject } = who;
  const fail = (reason: SignInFailure, message: string, meta: Record<string, unknown> = {}) =>
    failSignIn(db, action, source, provider, reason, message, meta, back);
  if ((await getTenant(db, source.tenantId)).suspended) {
    return fail('suspended', 'this tenant is suspended', { email });
  }
  const ruled = mappedRole(parseJson<RoleRule[]>(provider.role_rules, []), who.groups);
  const linked = await links.find(db, subject);
  const person = linked
    ? await users.getUser(db, source.tenantId, linked.user_id)
    : await users.getUserByEmail(db, source.tenantId, email).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      });
  if (!person && provider.just_in_time !== 1) {
    return fail('no_account', `no account for ${email} and accounts are not made here`, { email });
  }
  if (person && !person.active) {
    return fail('deactivated', 'this account is deactivated', { email, userId: person.id });
  }
  const name = (who.name?.trim() ? who.name.trim() : email.split('@')[0]!).slice(0, 255);
  const at = new Date().toISOString();
  return db.transaction().execute(async (trx) => {
    const user =
      person ??
      (await users.createUser(trx, source.tenantId, {
        email,
        name,
        role: ruled ?? (provider.default_role as GrantableRole),
      }));
    const created = !person;
    if (created && (await getTenant(trx, source.tenantId)).membersJoinAllProjects) {
      await joinAllProjects(trx, source.tenantId, user.id);
    }
    const previousRole = user.role;
    const roleChanges = !created && ruled !== undefined && ruled !== user.role && user.role !== 'owner';
    if (roleChanges) await applyRole(trx, source.tenantId, user.id, ruled);
    const projectIds = mappedProjects(parseJson<ProjectRule[]>(provider.project_rules, []), who.groups);
    const projects = await projectsByIds(trx, source.tenantId, projectIds);
    for (const p of projects) await addMember(trx, source.tenantId, p.id, user.id);
    await links.save(trx, subject, user.id, at);
    const { token } = await openSession(trx, source, user.id, options.sessionTtlHours);
    await auditOutcome(trx, action, source, provider, 'success', {
      userId: user.id,
      email,
      account_created: created,
      role: roleChanges ? ruled : previousRole,
      ...(roleChanges ? { previous_role: previousRole } : {}),
      project_ids: projects.map((p) => p.id),
    });
    return { token, returnTo: back, userId: user.id };
  });
}
