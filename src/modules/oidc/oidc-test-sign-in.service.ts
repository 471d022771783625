import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { AppError, notFound } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import type { RequestSource } from '../auth/auth.service.js';
import { projectsByIds } from '../projects/projects.service.js';
import * as users from '../users/users.service.js';
import type { OidcSettings } from './oidc-providers.service.js';
import {
  authorize,
  completeSignIn,
  OidcSignInError,
  redeem,
  takeSignIn,
  verified,
  type FinishInput,
  type ProviderRow,
  type SignInRow,
} from './oidc-sign-in.service.js';
import { mappedProjects, stringsOf } from '../sso/sso-rules.service.js';
import * as repo from './oidc.repository.js';
import type { ProjectRule, RoleRule, TestSignInOutcome } from './oidc.schemas.js';

/**
 * "Test sign-in" (docs/api-decisions.md#openid-connect-sign-in): an admin runs a provider's whole flow in a popup,
 * before it is switched on, and sees the claims it sends and what they map to. The callback of a test opens no
 * session and makes or changes no account; the outcome is kept on the provider (`last_test`) for the
 * administration page, and audited as `oidc.test_sign_in`.
 */

/** Where the test's popup lands: the administration page's view of the outcome. */
export const testResultPage = (providerId: string) =>
  `/admin/sign-in/test-result?provider=${encodeURIComponent(providerId)}`;

async function record(
  db: Db,
  source: RequestSource & { userId: number },
  provider: Pick<ProviderRow, 'id' | 'name'>,
  outcome: TestSignInOutcome,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await repo.updateProvider(trx, source.tenantId, provider.id, { last_test: JSON.stringify(outcome) });
    await recordAudit(trx, source, 'oidc.test_sign_in', {
      provider_id: provider.id,
      provider_name: provider.name,
      outcome: outcome.outcome,
      ...(outcome.claims ? { subject: outcome.claims.sub, email: outcome.claims.email } : {}),
      ...(outcome.role ? { role: outcome.role } : {}),
      project_ids: outcome.projectIds,
      ...(outcome.detail ? { detail: outcome.detail.slice(0, 500) } : {}),
    });
  });
}

const refused = (outcome: string, detail: string): TestSignInOutcome => ({
  at: nowIso(),
  outcome,
  detail,
  claims: null,
  account: null,
  role: null,
  roleRule: null,
  projectIds: [],
});

/**
 * Starts a test of any provider of the tenant, enabled or not (admins): the provider's authorization URL, the state
 * marked as the admin's test. A provider that cannot be discovered is the test's outcome, recorded (null is
 * answered: the popup goes straight to the outcome).
 */
export async function startTest(
  db: Db,
  actor: Actor,
  input: { providerId: string; origin: string },
  settings: OidcSettings,
): Promise<{ url: string; state: string } | null> {
  const provider = await repo.findProvider(db, actor.tenantId, input.providerId);
  if (!provider) throw notFound(`OIDC provider ${input.providerId} not found`);
  try {
    return await authorize(
      db,
      actor,
      provider,
      { returnTo: '/admin/sign-in', origin: input.origin },
      settings,
      actor.userId,
    );
  } catch (err) {
    if (!(err instanceof OidcSignInError)) throw err;
    await record(db, actor, provider, refused('provider_error', err.message));
    return null;
  }
}

/** What a sign-in with these claims would do, without doing it: the account it finds or makes, role, projects. */
async function evaluate(
  db: Db,
  tenantId: string,
  provider: ProviderRow,
  claims: Record<string, unknown>,
): Promise<TestSignInOutcome> {
  const subject = String(claims.sub);
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  const rawName = claims[provider.name_claim];
  const groups = stringsOf(claims[provider.groups_claim]);
  const rule = parseJson<RoleRule[]>(provider.role_rules, []).find((r) => groups.includes(r.group));
  const projectIds = mappedProjects(parseJson<ProjectRule[]>(provider.project_rules, []), groups);
  const base: TestSignInOutcome = {
    at: nowIso(),
    outcome: 'success',
    detail: null,
    claims: {
      sub: subject,
      email: email === '' ? null : email,
      emailVerified: verified(claims.email_verified),
      name: typeof rawName === 'string' && rawName.trim() ? rawName.trim() : null,
      groups,
    },
    account: null,
    role: rule?.role ?? null,
    roleRule: rule?.group ?? null,
    projectIds: (await projectsByIds(db, tenantId, projectIds)).map((p) => p.id),
  };
  if (email === '' || !verified(claims.email_verified) || !users.isEmailAddress(email)) {
    return { ...base, outcome: 'email_unverified', detail: 'the provider sent no verified e-mail address' };
  }
  const linked = await repo.findIdentity(db, tenantId, provider.id, subject);
  const person = linked
    ? await users.getUser(db, tenantId, linked.user_id)
    : await users.getUserByEmail(db, tenantId, email).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      });
  if (!person && provider.just_in_time !== 1) {
    return {
      ...base,
      outcome: 'no_account',
      detail: `no account for ${email} and accounts are not made here`,
    };
  }
  if (person && !person.active) {
    return { ...base, outcome: 'deactivated', detail: 'this account is deactivated', account: 'existing' };
  }
  if (!person) return { ...base, account: 'new', role: rule?.role ?? provider.default_role };
  // The owner's role never changes (D3); no matching rule keeps the role.
  const role = person.role === 'owner' ? 'owner' : (rule?.role ?? person.role);
  return { ...base, account: 'existing', role };
}

async function finishTest(
  db: Db,
  source: RequestSource,
  signIn: SignInRow & { test_user_id: number },
  query: URLSearchParams,
  settings: OidcSettings,
): Promise<void> {
  const provider = await repo.findProvider(db, source.tenantId, signIn.provider_id);
  if (!provider)
    throw new OidcSignInError('provider_unavailable', 'the provider was deleted during the test');
  const by = { ...source, userId: signIn.test_user_id };
  let claims: Record<string, unknown>;
  try {
    claims = await redeem(provider, signIn, query, settings);
  } catch (err) {
    await record(db, by, provider, refused('provider_error', (err as Error).message));
    return;
  }
  await record(db, by, provider, await evaluate(db, source.tenantId, provider, claims));
}

/**
 * The callback of a provider: a real sign-in opens the session (its token and where to go); an admin's test records
 * its outcome and sends the popup to it. Either way the state is checked and used up first.
 */
export async function finishCallback(
  db: Db,
  source: RequestSource,
  input: FinishInput,
  settings: OidcSettings & { sessionTtlHours: number },
): Promise<{ token: string; returnTo: string } | { token: null; returnTo: string }> {
  const signIn = await takeSignIn(db, source, input);
  if (signIn.test_user_id === null) return completeSignIn(db, source, signIn, input, settings);
  await finishTest(db, source, { ...signIn, test_user_id: signIn.test_user_id }, input.query, settings);
  return { token: null, returnTo: testResultPage(signIn.provider_id) };
}
