import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { SamlProvidersTable } from '../../db/tables/saml.js';
import { safeEqualHex, sha256 } from '../../lib/crypto.js';
import { newSecret } from '../../lib/ids.js';
import { readXml } from '../../lib/xml.js';
import type { RequestSource } from '../auth/auth.service.js';
import { stringsOf } from '../sso/sso-rules.service.js';
import { failSignIn, signInPerson, SsoSignInError, type SignInFailure } from '../sso/sso-sign-in.service.js';
import * as users from '../users/users.service.js';
import { findEnabledProvider, spAddresses } from './saml-providers.service.js';
import { CLOCK_SKEW_MS, serviceProvider } from './saml-sp.js';
import * as repo from './saml.repository.js';

/** How long a sign-in may take at the IdP before its AuthnRequest is forgotten. */
export const REQUEST_TTL_MS = 10 * 60_000;

type Row = Selectable<SamlProvidersTable>;

const fail = (
  db: Db,
  source: RequestSource,
  provider: { id: string; name?: string },
  reason: SignInFailure,
  message: string,
  meta: Record<string, unknown> & { userId?: number | null } = {},
  returnTo?: string,
): Promise<never> => failSignIn(db, 'saml.sign_in', source, provider, reason, message, meta, returnTo);

/**
 * Starts a sign-in (SP-initiated): an AuthnRequest with a fresh ID, kept with where the person was going and the
 * sha256 of a browser secret (the cookie the route sets) for ten minutes; the answer must name it in InResponseTo.
 */
export async function startSignIn(
  db: Db,
  source: RequestSource,
  input: { providerId: string; returnTo: string; origin: string },
): Promise<{ url: string; browserSecret: string }> {
  const provider = await findEnabledProvider(db, source.tenantId, input.providerId);
  if (!provider) {
    throw new SsoSignInError('provider_unavailable', `no enabled SAML provider ${input.providerId}`);
  }
  // An xsd:ID starts with a letter or underscore.
  const requestId = `_${newSecret(24)}`;
  const browserSecret = newSecret(32);
  const url = await serviceProvider(provider, input.origin, requestId).getAuthorizeUrlAsync(
    '',
    undefined,
    {},
  );
  const now = new Date();
  await repo.deleteExpiredRequests(db, source.tenantId, now.toISOString());
  await repo.insertRequest(db, {
    id: requestId,
    tenant_id: source.tenantId,
    provider_id: provider.id,
    browser_hash: sha256(browserSecret),
    return_to: input.returnTo,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + REQUEST_TTL_MS).toISOString(),
  });
  return { url, browserSecret };
}

/** The Response element's own attributes (unsigned when only the assertion is signed: checked, never trusted alone). */
function responseAttributes(xml: string): Record<string, string> {
  let root: Record<string, string> | undefined;
  readXml(xml, {
    open(_name, attributes) {
      root ??= attributes;
    },
    close() {},
    text() {},
  });
  return root ?? {};
}

type Node = { $?: Record<string, string>; _?: string } & Record<string, unknown>;
const children = (node: Node | undefined, name: string): Node[] => (node?.[name] as Node[] | undefined) ?? [];

/** What the signed assertion says of itself, read from the verified copy node-saml hands back. */
function assertionFacts(assertionDoc: Record<string, unknown> | undefined) {
  const assertion = (assertionDoc?.Assertion ?? {}) as Node;
  const confirmations = children(children(assertion, 'Subject')[0], 'SubjectConfirmation').filter(
    (c) => c.$?.Method === 'urn:oasis:names:tc:SAML:2.0:cm:bearer',
  );
  const data = confirmations.flatMap((c) => children(c, 'SubjectConfirmationData')).map((d) => d.$ ?? {});
  const conditions = children(assertion, 'Conditions')[0]?.$ ?? {};
  const ends = [conditions.NotOnOrAfter, ...data.map((d) => d.NotOnOrAfter)]
    .filter((v): v is string => typeof v === 'string')
    .map((v) => Date.parse(v))
    .filter((v) => Number.isFinite(v));
  return {
    id: assertion.$?.ID,
    recipients: data.map((d) => d.Recipient),
    inResponseTo: data.map((d) => d.InResponseTo).find((v) => v !== undefined),
    notOnOrAfter: ends.length > 0 ? Math.min(...ends) : undefined,
  };
}

/** The failure word for what node-saml refused. */
function reasonOf(err: Error): SignInFailure {
  const m = err.message;
  if (/expired|not yet valid/i.test(m)) return 'assertion_expired';
  if (/status|SAML provider returned/i.test(m)) return 'provider_error';
  return 'assertion_invalid';
}

export interface AcsInput {
  providerId: string;
  samlResponse: string;
  /** The browser secret from the cookie set at the start, if this browser started a sign-in. */
  browserSecret: string | undefined;
  origin: string;
}

/**
 * The assertion consumer: node-saml checks the signature (of the assertion, by the pinned certificate), the audience
 * and the time window; here the recipient and destination (our ACS address), the issuer, InResponseTo (a stored
 * unexpired request of this provider and this browser, used up; none only when IdP-initiated sign-in is on), and the
 * assertion id (remembered until it expires: a second use is a replay). Then the person, as for OIDC.
 */
export async function consumeAssertion(
  db: Db,
  source: RequestSource,
  input: AcsInput,
  settings: { sessionTtlHours: number },
): Promise<{ token: string; returnTo: string; userId: number }> {
  const known = { id: input.providerId };
  const provider: Row | undefined = await findEnabledProvider(db, source.tenantId, input.providerId);
  if (!provider) return fail(db, source, known, 'provider_unavailable', 'no enabled SAML provider');
  const { acsUrl } = spAddresses(input.origin, provider.id);
  let profile;
  let xml: string;
  try {
    xml = Buffer.from(input.samlResponse, 'base64').toString('utf8');
    ({ profile } = await serviceProvider(provider, input.origin).validatePostResponseAsync({
      SAMLResponse: input.samlResponse,
    }));
  } catch (err) {
    return fail(db, source, provider, reasonOf(err as Error), (err as Error).message);
  }
  if (!profile) return fail(db, source, provider, 'assertion_invalid', 'the response carries no assertion');
  const facts = assertionFacts(profile.getAssertion?.());
  const response = responseAttributes(xml);
  if (profile.issuer !== provider.idp_entity_id) {
    return fail(
      db,
      source,
      provider,
      'assertion_invalid',
      `the assertion's issuer is not ${provider.idp_entity_id}`,
    );
  }
  if (facts.recipients.length === 0 || facts.recipients.some((r) => r !== acsUrl)) {
    return fail(db, source, provider, 'assertion_invalid', `the assertion's recipient is not ${acsUrl}`);
  }
  if (response.Destination !== undefined && response.Destination !== acsUrl) {
    return fail(db, source, provider, 'assertion_invalid', `the response's destination is not ${acsUrl}`);
  }
  if (!facts.id || facts.notOnOrAfter === undefined) {
    return fail(db, source, provider, 'assertion_invalid', 'the assertion has no ID or no NotOnOrAfter');
  }
  const inResponseTo = facts.inResponseTo ?? response.InResponseTo;
  if (
    response.InResponseTo !== undefined &&
    facts.inResponseTo !== undefined &&
    response.InResponseTo !== inResponseTo
  ) {
    return fail(
      db,
      source,
      provider,
      'assertion_invalid',
      "the response's InResponseTo differs from the assertion's",
    );
  }
  const now = new Date();
  await repo.deleteExpiredAssertions(db, source.tenantId, now.toISOString());
  try {
    await repo.insertAssertion(db, {
      provider_id: provider.id,
      assertion_id: facts.id,
      tenant_id: source.tenantId,
      expires_at: new Date(facts.notOnOrAfter + CLOCK_SKEW_MS).toISOString(),
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return fail(db, source, provider, 'assertion_replayed', `assertion ${facts.id} was used before`);
  }
  let returnTo = '/';
  if (inResponseTo === undefined) {
    if (provider.allow_idp_initiated !== 1) {
      return fail(
        db,
        source,
        provider,
        'state_invalid',
        'an answer no sign-in here asked for (IdP-initiated is off)',
      );
    }
  } else {
    const request = await repo.findRequest(db, source.tenantId, inResponseTo);
    const used =
      request && Number((await repo.deleteRequest(db, source.tenantId, request.id)).numDeletedRows) === 1;
    if (
      !request ||
      !used ||
      request.provider_id !== provider.id ||
      Date.parse(request.expires_at) <= Date.now()
    ) {
      return fail(db, source, provider, 'state_invalid', 'InResponseTo names no sign-in under way here');
    }
    returnTo = request.return_to;
    const sameBrowser =
      input.browserSecret !== undefined && safeEqualHex(sha256(input.browserSecret), request.browser_hash);
    if (!sameBrowser) {
      return fail(
        db,
        source,
        provider,
        'state_invalid',
        'the answer came to another browser than the one that asked',
        {},
        returnTo,
      );
    }
  }
  const subject = profile.nameID;
  const attr = profile[provider.email_attribute];
  const fromNameId = users.isEmailAddress(subject) ? subject : '';
  const email = (typeof attr === 'string' ? attr : fromNameId).trim();
  if (email === '' || !users.isEmailAddress(email)) {
    return fail(
      db,
      source,
      provider,
      'email_unverified',
      'the IdP sent no e-mail address',
      { subject },
      returnTo,
    );
  }
  const rawName = profile[provider.name_attribute];
  return signInPerson(
    db,
    'saml.sign_in',
    source,
    provider,
    {
      subject,
      email,
      name: typeof rawName === 'string' ? rawName : undefined,
      groups: stringsOf(profile[provider.groups_attribute]),
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
    { sessionTtlHours: settings.sessionTtlHours, returnTo },
  );
}
