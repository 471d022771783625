import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { OidcProvidersTable, OidcSignInsTable } from '../../db/tables/oidc.js';
import { safeEqualHex, sha256 } from '../../lib/crypto.js';
import { parseJson } from '../../lib/json.js';
import type { RequestSource } from '../auth/auth.service.js';
import { stringsOf } from '../sso/sso-rules.service.js';
import { failSignIn, signInPerson, SsoSignInError, type SignInFailure } from '../sso/sso-sign-in.service.js';
import * as users from '../users/users.service.js';
import { authorizationRequest, configurationOf, redeemCode } from './oidc-client.js';
import {
  findEnabledProvider,
  openClientSecret,
  redirectUriOf,
  type OidcSettings,
} from './oidc-providers.service.js';
import * as repo from './oidc.repository.js';

/** How long a sign-in may take at the provider before its state is refused. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

export { SsoSignInError as OidcSignInError, type SignInFailure } from '../sso/sso-sign-in.service.js';
export { mappedProjects, mappedRole } from '../sso/sso-rules.service.js';

export type ProviderRow = Selectable<OidcProvidersTable>;
export type SignInRow = Selectable<OidcSignInsTable>;

export const clientOf = (p: ProviderRow, secretKey: string) => ({
  cacheKey: `${p.id}:${p.updated_at}`,
  issuer: p.issuer,
  clientId: p.client_id,
  clientSecret: openClientSecret(secretKey, p),
});

const fail = (
  db: Db,
  source: RequestSource,
  provider: { id: string; name?: string },
  reason: SignInFailure,
  message: string,
  meta: Record<string, unknown> & { userId?: number | null } = {},
  returnTo?: string,
): Promise<never> => failSignIn(db, 'oidc.sign_in', source, provider, reason, message, meta, returnTo);

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
    throw new SsoSignInError('provider_unavailable', `no enabled OIDC provider ${input.providerId}`);
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
    if (testUserId !== null) throw new SsoSignInError('provider_error', message);
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
  return signInPerson(
    db,
    'oidc.sign_in',
    source,
    provider,
    {
      subject,
      email,
      name:
        typeof claims[provider.name_claim] === 'string' ? (claims[provider.name_claim] as string) : undefined,
      groups: stringsOf(claims[provider.groups_claim]),
    },
    {
      find: (d, sub) => repo.findIdentity(d, source.tenantId, provider.id, sub),
      save: (d, sub, userId, at) =>
        repo.saveIdentity(d, {
          tenant_id: source.tenantId,
          provider_id: provider.id,
          subject: sub,
          user_id: userId,
          at,
        }),
    },
    { sessionTtlHours: settings.sessionTtlHours, returnTo: back },
  );
}
