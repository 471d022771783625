import { createHash } from 'node:crypto';
import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, forbidden } from '../../errors.js';
import { sha256 } from '../../lib/crypto.js';
import { newId, newSecret } from '../../lib/ids.js';
import * as apiKeys from '../api-keys/api-keys.service.js';
import { recordAudit, type AuditContext } from '../audit/audit.service.js';
import { getUser } from '../users/users.service.js';
import { findClient, getPolicy, redirectAllowed, type Client } from './oauth-clients.service.js';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  isoIn,
  issueRefreshToken,
  OAuthError,
  revokeAuthorization,
  tokenAnswer,
  type TokenAnswer,
} from './oauth.service.js';
import * as repo from './oauth-clients.repository.js';
import * as deviceRepo from './oauth.repository.js';

// ---- the authorization code grant with PKCE (OAuth 2.1, for MCP clients) ----

export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
/** A code is redeemed by the client right after the redirect: two minutes leave room, and little for a thief. */
export const CODE_TTL_SECONDS = 120;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A S256 challenge: base64url of a sha256, 43 characters. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** The parameters of an authorization request, as the client put them in the URL (the page posts them back). */
export interface AuthorizationRequest {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  resource?: string;
  scope?: string;
}

/** Where the page sends the person's browser: the client's redirect URI with a code, or with an error. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** RFC 8707: a resource this server's tokens serve. Tokens are keys, so they serve the API too; MCP clients name /api/mcp. */
export function resourceServed(resource: string, mcpResource: string): boolean {
  return resource.replace(/\/+$/, '') === mcpResource;
}

export type CheckedRequest =
  | { ok: true; client: Client; redirectUri: string; state?: string; resource?: string; challenge: string }
  | { ok: false; client: Client; redirectUri: string; state?: string; error: string; description: string };

/**
 * Checks an authorization request. An unknown client or a redirect URI it did not register cannot be sent back
 * to (RFC 6749 §4.1.2.1): 400 for the person to read. Anything else wrong goes back to the client as an error.
 */
export async function checkAuthorizationRequest(
  db: Db,
  tenantId: string,
  req: AuthorizationRequest,
  mcpResource: string,
): Promise<CheckedRequest> {
  if (!req.client_id)
    throw badRequest('This sign-in link names no client (client_id): start again in your app');
  const client = await findClient(db, tenantId, req.client_id);
  if (!client) {
    throw badRequest(
      'This app is not registered here (unknown client_id): start the sign-in again in your app',
    );
  }
  if (!req.redirect_uri || !client.redirectUris.includes(req.redirect_uri)) {
    throw badRequest('This sign-in link sends you to an address the app did not register: it was refused');
  }
  const back = { client, redirectUri: req.redirect_uri, state: req.state };
  const fail = (error: string, description: string): CheckedRequest => ({
    ok: false,
    ...back,
    error,
    description,
  });
  if (req.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be "code"');
  if (req.code_challenge_method !== 'S256') {
    return fail('invalid_request', 'PKCE is required: code_challenge_method must be "S256"');
  }
  if (!req.code_challenge || !CHALLENGE.test(req.code_challenge)) {
    return fail('invalid_request', 'code_challenge must be the base64url S256 challenge (43 characters)');
  }
  if (req.resource !== undefined && !resourceServed(req.resource, mcpResource)) {
    return fail('invalid_target', `this server's tokens are for ${mcpResource}`);
  }
  return { ok: true, ...back, resource: req.resource, challenge: req.code_challenge };
}

export interface AuthorizationView {
  clientId: string;
  clientName: string;
  redirectUri: string;
  /** Where the person's browser goes after deciding: the page names it beside the client's name. */
  redirectOrigin: string;
  /** Whether the tenant's rule lets this client be approved. */
  allowed: boolean;
  /** When the request itself is wrong: the client is told this error (deny sends it back). */
  error?: string;
  errorDescription?: string;
}

/** What the approval page shows: the client's name, the origin it sends people back to, and whether it may. */
export async function describeRequest(
  db: Db,
  actor: Actor,
  req: AuthorizationRequest,
  mcpResource: string,
): Promise<AuthorizationView> {
  const checked = await checkAuthorizationRequest(db, actor.tenantId, req, mcpResource);
  const policy = await getPolicy(db, actor.tenantId);
  return {
    clientId: checked.client.id,
    clientName: checked.client.name,
    redirectUri: checked.redirectUri,
    redirectOrigin: new URL(checked.redirectUri).origin,
    allowed: redirectAllowed(policy, checked.redirectUri),
    ...(checked.ok ? {} : { error: checked.error, errorDescription: checked.description }),
  };
}

/**
 * A signed-in person approves or denies (session cookie only, as for devices). Approving issues a single-use code
 * bound to the client, the redirect URI, the PKCE challenge and the resource. Both are audited; the answer is
 * where to send the browser.
 */
export async function decideRequest(
  db: Db,
  actor: Actor,
  req: AuthorizationRequest,
  mcpResource: string,
  decision: 'approve' | 'deny',
): Promise<{ redirectTo: string }> {
  if (actor.via !== 'session') {
    throw forbidden('an app sign-in is approved by a person signed in to the web page, not with a key');
  }
  const checked = await checkAuthorizationRequest(db, actor.tenantId, req, mcpResource);
  const audit = {
    client_id: checked.client.id,
    client_name: checked.client.name,
    redirect_origin: new URL(checked.redirectUri).origin,
  };
  if (decision === 'deny' || !checked.ok) {
    await recordAudit(db, actor, 'oauth.approval_denied', audit);
    return {
      redirectTo: redirectWith(checked.redirectUri, {
        error: checked.ok ? 'access_denied' : checked.error,
        error_description: checked.ok ? 'the person denied the sign-in' : checked.description,
        state: checked.state,
      }),
    };
  }
  if (!redirectAllowed(await getPolicy(db, actor.tenantId), checked.redirectUri)) {
    throw forbidden('your administrator does not allow this app to sign in here');
  }
  const code = newSecret(32);
  const now = Date.now();
  await db.transaction().execute(async (trx) => {
    await repo.deleteCodesExpiredBefore(trx, actor.tenantId, isoIn(now, -24 * 60 * 60));
    await repo.insertCode(trx, {
      id: newId(16),
      tenant_id: actor.tenantId,
      client_id: checked.client.id,
      code_hash: sha256(code),
      user_id: actor.userId,
      redirect_uri: checked.redirectUri,
      code_challenge: checked.challenge,
      resource: checked.resource ?? null,
      created_at: new Date(now).toISOString(),
      expires_at: isoIn(now, CODE_TTL_SECONDS),
      used_at: null,
      authorization_id: null,
    });
    await recordAudit(trx, actor, 'oauth.approval_granted', audit);
  });
  return { redirectTo: redirectWith(checked.redirectUri, { code, state: checked.state }) };
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * RFC 6749 §4.1.3 with RFC 7636 and RFC 8707: a code buys an access token (an api_keys row of kind 'oauth',
 * acting as the approver with their role) and a refresh token, once. A code used a second time revokes what the
 * first use bought (RFC 9700 §4.5.3).
 */
export async function exchangeCode(
  db: Db,
  source: Omit<AuditContext, 'userId'>,
  input: { clientId?: string; code?: string; redirectUri?: string; codeVerifier?: string; resource?: string },
  mcpResource: string,
): Promise<TokenAnswer> {
  for (const [name, value] of [
    ['client_id', input.clientId],
    ['code', input.code],
    ['redirect_uri', input.redirectUri],
    ['code_verifier', input.codeVerifier],
  ] as const) {
    if (!value) throw new OAuthError('invalid_request', `${name} is required`);
  }
  if (!VERIFIER.test(input.codeVerifier!)) {
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
  }
  const client = await findClient(db, source.tenantId, input.clientId!);
  if (!client) throw new OAuthError('invalid_client', `unknown client_id "${input.clientId}"`);
  const invalid = (why: string) => new OAuthError('invalid_grant', why);
  const row = await repo.findCode(db, source.tenantId, sha256(input.code!));
  if (!row || row.client_id !== client.id) throw invalid('unknown authorization code');
  const ctx = { ...source, userId: row.user_id };
  if (row.used_at !== null) {
    if (row.authorization_id) await revokeAuthorization(db, ctx, row.authorization_id, client.id);
    throw invalid('this authorization code was used already: what it bought is revoked');
  }
  const now = Date.now();
  if (Date.parse(row.expires_at) <= now) throw invalid('the authorization code expired: sign in again');
  if (row.redirect_uri !== input.redirectUri)
    throw invalid('redirect_uri is not the one the code was issued to');
  if (s256(input.codeVerifier!) !== row.code_challenge)
    throw invalid('code_verifier does not match the challenge');
  if (input.resource !== undefined) {
    if (
      !resourceServed(input.resource, mcpResource) ||
      (row.resource !== null && row.resource !== input.resource)
    ) {
      throw new OAuthError('invalid_target', `this code's tokens are for ${mcpResource}`);
    }
  }
  const user = await getUser(db, source.tenantId, row.user_id);
  if (!user.active) throw new OAuthError('access_denied', 'the approving account is deactivated');
  const answer = await db.transaction().execute(async (trx) => {
    const key = await apiKeys.createDeviceKey(trx, source.tenantId, {
      userId: row.user_id,
      clientId: client.id,
      clientName: client.name,
      expiresAt: isoIn(now, ACCESS_TOKEN_TTL_SECONDS),
      kind: 'oauth',
    });
    if (Number((await repo.useCode(trx, row.id, new Date(now).toISOString(), key.id)).numUpdatedRows) !== 1) {
      return undefined;
    }
    const refreshToken = await issueRefreshToken(trx, source.tenantId, key.id, now);
    await recordAudit(trx, ctx, 'oauth.authorization_created', {
      grant_type: AUTHORIZATION_CODE_GRANT,
      client_id: client.id,
      authorization_id: key.id,
    });
    return tokenAnswer(key.key, refreshToken);
  });
  if (!answer) throw invalid('this authorization code was used already');
  return answer;
}

/**
 * RFC 7009: a client ends its own sign-in with its access or refresh token. Always 200, whether or not the token
 * was live (the RFC's rule: nothing is learnt by trying tokens). A token of another client is left alone.
 */
export async function revokeToken(
  db: Db,
  source: Omit<AuditContext, 'userId'>,
  input: { token?: string; clientId?: string },
): Promise<void> {
  if (!input.token) throw new OAuthError('invalid_request', 'token is required');
  let signIn: { id: string; userId: number; clientId: string } | undefined;
  signIn = await apiKeys.findSignInByAccessToken(db, source.tenantId, input.token);
  if (!signIn) {
    const refresh = await deviceRepo.findRefreshToken(db, source.tenantId, sha256(input.token));
    const key = refresh && (await apiKeys.findDeviceKey(db, source.tenantId, refresh.authorization_id));
    if (key) signIn = { id: key.id, userId: key.userId, clientId: key.clientId };
  }
  if (!signIn || (input.clientId !== undefined && input.clientId !== signIn.clientId)) return;
  await revokeAuthorization(db, { ...source, userId: signIn.userId }, signIn.id, signIn.clientId);
}
