import * as client from 'openid-client';
import { sendOutbound } from '../../lib/outbound-http.js';
import type { OutboundGuard } from '../../lib/ssrf.js';

/**
 * The relying party's side, all through `openid-client` (v6): discovery, the authorization URL with PKCE, state and
 * nonce, and the code exchange with its ID-token checks (signature, issuer, audience, expiry, nonce). Every request
 * to the provider goes through the SSRF guard (src/lib/outbound-http.ts), as webhooks do.
 */

/** Seconds of clock difference tolerated on the ID token's iat, exp and nbf. */
export const CLOCK_TOLERANCE_S = 60;
/** Bytes of a provider's answer read (discovery documents and key sets are a few KB). */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** How long a discovered configuration is reused by this process. */
const DISCOVERY_TTL_MS = 5 * 60_000;
/** What is asked besides a provider's extra scopes. */
export const BASE_SCOPES = ['openid', 'email', 'profile'];

/** openid-client's fetch, answered by the guarded sender: no private address, no redirect followed, 10 s bounded. */
function guardedFetch(guard: OutboundGuard): client.CustomFetch {
  return async (url, options) => {
    const headers: Record<string, string> = {};
    new Headers(options.headers as HeadersInit).forEach((value, key) => {
      headers[key] = value;
    });
    const res = await sendOutbound(guard, {
      url,
      method: options.method,
      headers,
      body: options.body === undefined || options.body === null ? '' : String(options.body),
      keepBytes: MAX_ANSWER_BYTES,
    });
    const answer = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (value !== undefined) answer.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    // A Response of these statuses may carry no body.
    const bodyless = res.status === 204 || res.status === 304;
    return new Response(bodyless ? null : res.body, { status: res.status, headers: answer });
  };
}

export interface ProviderClient {
  /** The provider's id and the time it was last changed: a change discovers again. */
  cacheKey: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const discovered = new Map<string, { at: number; config: client.Configuration }>();

/** The provider's configuration from its discovery document (reused for a few minutes by this process). */
export async function configurationOf(
  p: ProviderClient,
  guard: OutboundGuard,
): Promise<client.Configuration> {
  const hit = discovered.get(p.cacheKey);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
  const issuer = new URL(p.issuer);
  const config = await client.discovery(
    issuer,
    p.clientId,
    { [client.clockTolerance]: CLOCK_TOLERANCE_S },
    client.ClientSecretBasic(p.clientSecret),
    {
      [client.customFetch]: guardedFetch(guard),
      // Plain http only reaches hosts CASEBOOK_OUTBOUND_ALLOW names (checked when the issuer was saved).
      execute: issuer.protocol === 'http:' && guard.httpAllowed(issuer) ? [client.allowInsecureRequests] : [],
      timeout: 10,
    },
  );
  if (discovered.size > 1000) discovered.clear();
  discovered.set(p.cacheKey, { at: Date.now(), config });
  return config;
}

export interface AuthorizationRequest {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The provider's authorization URL for one sign-in, with fresh state, nonce and PKCE verifier (S256). */
export async function authorizationRequest(
  config: client.Configuration,
  redirectUri: string,
  scopes: string[],
): Promise<AuthorizationRequest> {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: [...new Set([...BASE_SCOPES, ...scopes])].join(' '),
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url: url.href, state, nonce, codeVerifier };
}

/**
 * Redeems the code the provider sent back to `callbackUrl`, checks the ID token (the library's checks, with the
 * expected state and nonce), and answers its claims merged with the UserInfo endpoint's, when the provider has one
 * (many put e-mail and groups only there). `sub` is the ID token's: UserInfo must name the same subject.
 */
export async function redeemCode(
  config: client.Configuration,
  callbackUrl: URL,
  checks: { state: string; nonce: string; codeVerifier: string },
): Promise<Record<string, unknown>> {
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.codeVerifier,
    expectedState: checks.state,
    expectedNonce: checks.nonce,
    idTokenExpected: true,
  });
  const idClaims = tokens.claims();
  if (!idClaims) throw new Error('the provider sent no ID token');
  let info: Record<string, unknown> = {};
  if (config.serverMetadata().userinfo_endpoint) {
    info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
  }
  return { ...info, ...idClaims, ...pick(info, ['email', 'email_verified']) };
}

/** UserInfo's word wins for e-mail (it is fresher than a cached ID token's), the ID token's for the rest. */
function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
