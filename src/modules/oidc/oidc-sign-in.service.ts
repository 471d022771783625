import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { OidcProvidersTable, OidcSignInsTable } from '../../db/tables/oidc.js';
import { AppError } from '../../errors.js';
import { safeEqualHex, sha256 } from '../../lib/crypto.js';
import { parseJson } from '../../lib/json.js';
import { recordAudit } from '../audit/audit.service.js';
import { applyRole } from '../accounts/accounts.service.js';
import { openSession, type RequestSource } from '../auth/auth.service.js';
import { addMember, joinAllProjects, projectsByIds } from '../projects/projects.service.js';
import { getTenant } from '../tenants/tenants.service.js';
import * as users from '../users/users.service.js';
import { authorizationRequest, configurationOf, redeemCode } from './oidc-client.js';
import {
  findEnabledProvider,
  openClientSecret,
  redirectUriOf,
  type OidcSettings,
} from './oidc-providers.service.js';
import * as repo from './oidc.repository.js';
import type { GrantableRole, ProjectRule, RoleRule } from './oidc.schemas.js';

/** How long a sign-in may take at the provider before its state is refused. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

/**
 * Why a sign-in through a provider ended on the sign-in page: the `?error=` word the page shows in words
 * (docs/api-decisions.md#openid-connect-sign-in).
 */
export type SignInFailure =
  | 'state_invalid'
  | 'provider_unavailable'
  | 'provider_error'
  | 'email_unverified'
  | 'no_account'
  | 'deactivated'
  | 'suspended';

export class OidcSignInError extends Error {
  constructor(
    readonly reason: SignInFailure,
    message: string,
    /** Where the person was going, once the sign-in is known: the sign-in page keeps it for another try. */
    readonly returnTo = '/',
  ) {
    super(message);
    this.name = 'OidcSignInError';
  }
}

export type ProviderRow = Selectable<OidcProvidersTable>;
export type SignInRow = Selectable<OidcSignInsTable>;

export const clientOf = (p: ProviderRow, secretKey: string) => ({
  cacheKey: `${p.id}:${p.updated_at}`,
  issuer: p.issuer,
  clientId: p.client_id,
  clientSecret: openClientSecret(secretKey, p),
});

/** The Casebook event beside the contract's `login`: the provider and the outcome, failures included. */
async function auditOutcome(
  db: Db,
  source: RequestSource,
  provider: { id: string; name?: string },
  outcome: SignInFailure | 'success',
  meta: Record<string, unknown> & { userId?: number | null } = {},
): Promise<void> {
  const { userId = null, ...rest } = meta;
  await recordAudit(db, { ...source, userId }, 'oidc.sign_in', {
    provider_id: provider.id,
    provider_name: provider.name,
    outcome,
    ...rest,
  });
}

async function fail(
  db: Db,
  source: RequestSource,
  provider: { id: string; name?: string },
  reason: SignInFailure,
  message: string,
  meta: Record<string, unknown> & { userId?: number | null } = {},
  returnTo?: string,
): Promise<never> {
  await auditOutcome(db, source, provider, reason, { ...meta, detail: message.slice(0, 500) });
  throw new OidcSignInError(reason, message, returnTo);
}

/**
 * Starts a sign-in through an enabled provider: discovery, then the provider's authorization URL with a fresh
 * state, nonce and PKCE verifier, all three kept server-side (the state under its sha256) for ten minutes.
 */
export async function startSignIn(
  db: Db,
  source: RequestSource,
  input: { providerId: string; returnTo: string; origin: string },
  settings: OidcSettings,
): Promise<{ url: string; state: string }> {
  const provider = await findEnabledProvider(db, source.tenantId, input.providerId);
  if (!provider) {
    throw new OidcSignInError('provider_unavailable', `no enabled OIDC provider ${input.providerId}`);
  }
  return authorize(db, source, provider, input, settings, null);
}

/**
 * The provider's authorization URL for a sign-in (or an admin's test, `testUserId`), its state, nonce and PKCE
 * verifier stored. A discovery failure is a real sign-in's `provider_error` (audited); a test's is thrown to it.
 */
export async function authorize(
  db: Db,
  source: RequestSource,
  provider: ProviderRow,
  input: { returnTo: string; origin: string },
  settings: OidcSettings,
  testUserId: number | null,
): Promise<{ url: string; state: string }> {
  const redirectUri = redirectUriOf(input.origin, provider.id);
  let request;
  try {
    const config = await configurationOf(clientOf(provider, settings.secretKey), settings.guard);
    request = await authorizationRequest(config, redirectUri, parseJson<string[]>(provider.scopes, []));
  } catch (err) {
    const message = `discovery failed: ${(err as Error).message}`;
    if (testUserId !== null) throw new OidcSignInError('provider_error', message);
    return fail(db, source, provider, 'provider_error', message);
  }
  const now = new Date();
  await repo.deleteExpiredSignIns(db, source.tenantId, now.toISOString());
  await repo.insertSignIn(db, {
    id: sha256(request.state),
    tenant_id: source.tenantId,
    provider_id: provider.id,
    nonce: request.nonce,
    code_verifier: request.codeVerifier,
    redirect_uri: redirectUri,
    return_to: input.returnTo,
    test_user_id: testUserId,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SIGN_IN_TTL_MS).toISOString(),
  });
  return { url: request.url, state: request.state };
}

/** A claim's value as a list of strings (a provider may send one group as a plain string). */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The first role rule whose group the person is in: its role, else undefined. */
export const mappedRole = (rules: RoleRule[], groups: string[]): GrantableRole | undefined =>
  rules.find((r) => groups.includes(r.group))?.role;

/** The projects of every project rule whose group the person is in. */
export const mappedProjects = (rules: ProjectRule[], groups: string[]): string[] => [
  ...new Set(rules.filter((r) => groups.includes(r.group)).flatMap((r) => r.projectIds)),
];

export const verified = (value: unknown) => value === true || value === 'true';

export interface FinishInput {
  providerId: string;
  /** What the provider sent the browser back with (code, state, iss…, or error). */
  query: URLSearchParams;
  /** The state the browser carried in its cookie since the start: the sign-in is this browser's own. */
  cookieState: string | undefined;
}

/**
 * Finishes a sign-in: the state must be this browser's, known, unexpired and unused (it is used up here); the code
 * is redeemed and the ID token checked by openid-client; the person is found by the provider's subject, else by a
 * verified e-mail, else made (just-in-time providers only). Role and project rules apply at every sign-in; the owner's
 * role never changes. Opens the same session as a password sign-in, with the contract's `login` and `oidc.sign_in`.
 */
export async function finishSignIn(
  db: Db,
  source: RequestSource,
  input: FinishInput,
  settings: OidcSettings & { sessionTtlHours: number },
): Promise<{ token: string; returnTo: string; userId: number }> {
  return completeSignIn(db, source, await takeSignIn(db, source, input), input, settings);
}

/**
 * The sign-in a callback finishes: the state must be this browser's (its cookie), known, unused (it is used up
 * here, before anything else) and unexpired. A real sign-in or an admin's test alike.
 */
export async function takeSignIn(db: Db, source: RequestSource, input: FinishInput): Promise<SignInRow> {
  const state = input.query.get('state') ?? '';
  const known = { id: input.providerId };
  const sameBrowser =
    state !== '' && input.cookieState !== undefined && safeEqualHex(sha256(state), sha256(input.cookieState));
  if (!sameBrowser) {
    return fail(db, source, known, 'state_invalid', 'the state is not the one this browser started with');
  }
  const signIn = await repo.findSignIn(db, source.tenantId, sha256(state));
  const used =
    signIn && Number((await repo.deleteSignIn(db, source.tenantId, signIn.id)).numDeletedRows) === 1;
  if (!signIn || !used || signIn.provider_id !== input.providerId) {
    return fail(db, source, known, 'state_invalid', 'unknown or already used state');
  }
  const back = signIn.return_to;
  if (Date.parse(signIn.expires_at) <= Date.now()) {
    return fail(db, source, known, 'state_invalid', 'the sign-in took too long: its state expired', {}, back);
  }
  return signIn;
}

/** Redeems the code at the provider (openid-client checks the ID token): the claims, merged with UserInfo's. */
export async function redeem(
  provider: ProviderRow,
  signIn: SignInRow,
  query: URLSearchParams,
  settings: OidcSettings,
): Promise<Record<string, unknown>> {
  const config = await configurationOf(clientOf(provider, settings.secretKey), settings.guard);
  // The redirect URI of the start, not of this request: the token request must name the one the provider saw.
  const callbackUrl = new URL(signIn.redirect_uri);
  callbackUrl.search = query.toString();
  return redeemCode(config, callbackUrl, {
    state: query.get('state') ?? '',
    nonce: signIn.nonce,
    codeVerifier: signIn.code_verifier,
  });
}

export async function completeSignIn(
  db: Db,
  source: RequestSource,
  signIn: SignInRow,
  input: FinishInput,
  settings: OidcSettings & { sessionTtlHours: number },
): Promise<{ token: string; returnTo: string; userId: number }> {
  const back = signIn.return_to;
  const provider = await findEnabledProvider(db, source.tenantId, input.providerId);
  if (!provider) {
    const known = { id: input.providerId };
    return fail(db, source, known, 'provider_unavailable', 'the provider is not enabled any more', {}, back);
  }
  let claims: Record<string, unknown>;
  try {
    claims = await redeem(provider, signIn, input.query, settings);
  } catch (err) {
    return fail(db, source, provider, 'provider_error', (err as Error).message, {}, back);
  }
  const subject = String(claims.sub);
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  if (email === '' || !verified(claims.email_verified) || !users.isEmailAddress(email)) {
    return fail(
      db,
      source,
      provider,
      'email_unverified',
      'the provider sent no verified e-mail address',
      {
        subject,
      },
      back,
    );
  }
  if ((await getTenant(db, source.tenantId)).suspended) {
    return fail(db, source, provider, 'suspended', 'this tenant is suspended', { email }, back);
  }
  const groups = stringsOf(claims[provider.groups_claim]);
  const roleRules = parseJson<RoleRule[]>(provider.role_rules, []);
  const ruled = mappedRole(roleRules, groups);
  const linked = await repo.findIdentity(db, source.tenantId, provider.id, subject);
  const person = linked
    ? await users.getUser(db, source.tenantId, linked.user_id)
    : await users.getUserByEmail(db, source.tenantId, email).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      });
  if (!person && provider.just_in_time !== 1) {
    return fail(
      db,
      source,
      provider,
      'no_account',
      `no account for ${email} and accounts are not made here`,
      { email },
      back,
    );
  }
  if (person && !person.active) {
    return fail(
      db,
      source,
      provider,
      'deactivated',
      'this account is deactivated',
      {
        email,
        userId: person.id,
      },
      back,
    );
  }
  const rawName = claims[provider.name_claim];
  const name = (typeof rawName === 'string' && rawName.trim() ? rawName.trim() : email.split('@')[0]!).slice(
    0,
    255,
  );
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
    const projectIds = mappedProjects(parseJson<ProjectRule[]>(provider.project_rules, []), groups);
    const projects = await projectsByIds(trx, source.tenantId, projectIds);
    for (const p of projects) await addMember(trx, source.tenantId, p.id, user.id);
    await repo.saveIdentity(trx, {
      tenant_id: source.tenantId,
      provider_id: provider.id,
      subject,
      user_id: user.id,
      at,
    });
    const { token } = await openSession(trx, source, user.id, settings.sessionTtlHours);
    await auditOutcome(trx, source, provider, 'success', {
      userId: user.id,
      email,
      account_created: created,
      role: roleChanges ? ruled : previousRole,
      ...(roleChanges ? { previous_role: previousRole } : {}),
      project_ids: projects.map((p) => p.id),
    });
    return { token, returnTo: signIn.return_to, userId: user.id };
  });
}
