import { randomInt } from 'node:crypto';
import type { Db } from '../../db/create-db.js';
import type { OAuthDeviceCodesTable } from '../../db/tables/oauth.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../errors.js';
import type { Actor } from '../../auth/actor.js';
import { sha256 } from '../../lib/crypto.js';
import { newId, newSecret } from '../../lib/ids.js';
import { addressKey } from '../../lib/ip.js';
import * as apiKeys from '../api-keys/api-keys.service.js';
import { recordAudit, type AuditContext } from '../audit/audit.service.js';
import { DEFAULT_TENANT_ID, listTenants } from '../tenants/tenants.service.js';
import { getUser } from '../users/users.service.js';
import { hitWaitMs, recordHits, throttled, type WindowLimit } from '../auth/throttle.service.js';
import * as repo from './oauth.repository.js';

// ---- the device authorisation grant (RFC 8628) ----

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const REFRESH_TOKEN_GRANT = 'refresh_token';
/** A code lives 15 minutes: long enough to sign in with a second factor, short enough for a guess to go stale. */
export const DEVICE_CODE_TTL_SECONDS = 15 * 60;
/** RFC 8628 §3.2: the default polling interval. */
export const POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 §3.5: every `slow_down` adds 5 seconds to the interval. */
const SLOW_DOWN_STEP_SECONDS = 5;
/** A poll this much earlier than the interval is still on time: timers and the network are not exact. */
const POLL_GRACE_MS = 1000;
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** Sliding: each refresh starts the 90 days again, so a CLI in daily use never signs in again. */
export const REFRESH_TOKEN_TTL_SECONDS = 90 * 24 * 60 * 60;
/** RFC 8628 §6.1: consonants only (no vowels, so no words), case-insensitive; 20^8 ≈ 2.6e10 codes. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/**
 * The clients that may start a device sign-in, and the name a person sees when approving. A closed list: an
 * open one would let anyone show a person any name on the approval page.
 */
export const OAUTH_CLIENTS: Record<string, { name: string }> = {
  'qas-cli': { name: 'QA Sphere CLI (qasphere)' },
};

/**
 * An OAuth error (RFC 6749 §5.2, RFC 8628 §3.5): always 400. Its body carries the RFC's `error` and
 * `error_description` and the D7 `message` and `code`, so OAuth clients and the house's clients both read it.
 */
export class OAuthError extends AppError {
  constructor(
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'unsupported_grant_type'
      | 'authorization_pending'
      | 'slow_down'
      | 'access_denied'
      | 'expired_token'
      | 'invalid_target'
      | 'invalid_redirect_uri'
      | 'invalid_client_metadata',
    description: string,
    details?: { path: string; message: string }[],
  ) {
    super('VALIDATION_FAILED', description, details);
    this.name = 'OAuthError';
  }

  body(): Record<string, unknown> {
    return {
      error: this.error,
      error_description: this.message,
      message: this.message,
      code: this.code,
      ...(this.details && this.details.length > 0 ? { details: this.details } : {}),
    };
  }
}

/** `ABCD-EFGH` → `ABCDEFGH`; people type codes in any case, with or without the dash or spaces. */
export const normalizeUserCode = (code: string): string => code.toUpperCase().replace(/[^A-Z]/g, '');
const isUserCode = (normalized: string) =>
  normalized.length === USER_CODE_LENGTH && [...normalized].every((c) => USER_CODE_ALPHABET.includes(c));
const formatUserCode = (normalized: string) => `${normalized.slice(0, 4)}-${normalized.slice(4)}`;

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

export const isoIn = (now: number, seconds: number) => new Date(now + seconds * 1000).toISOString();

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_token_expires_in: number;
}

function clientOf(clientId: string | undefined): { id: string; name: string } {
  if (clientId === undefined || clientId === '')
    throw new OAuthError('invalid_request', 'client_id is required');
  const client = OAUTH_CLIENTS[clientId];
  if (!client) throw new OAuthError('invalid_client', `unknown client_id "${clientId}"`);
  return { id: clientId, name: client.name };
}

/**
 * RFC 8628 §3.1–3.2: starts a device sign-in. Only the hashes of the device and user codes are stored.
 * `baseUrl` is where a person's browser reaches the service (the verification page lives there).
 */
export async function startDeviceAuthorization(
  db: Db,
  tenantId: string,
  input: { clientId?: string },
  baseUrl: string,
): Promise<DeviceAuthorization> {
  const client = clientOf(input.clientId);
  const now = Date.now();
  // Housekeeping on the way: codes that ended a day ago no longer answer even `expired_token`.
  await repo.deleteDeviceCodesExpiredBefore(db, tenantId, isoIn(now, -24 * 60 * 60));
  const deviceCode = newSecret(32);
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    try {
      await repo.insertDeviceCode(db, {
        id: newId(16),
        tenant_id: tenantId,
        client_id: client.id,
        device_code_hash: sha256(deviceCode),
        user_code_hash: sha256(userCode),
        status: 'pending',
        user_id: null,
        interval_seconds: POLL_INTERVAL_SECONDS,
        last_polled_at: null,
        authorization_id: null,
        created_at: new Date(now).toISOString(),
        expires_at: isoIn(now, DEVICE_CODE_TTL_SECONDS),
      });
      const shown = formatUserCode(userCode);
      return {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: `${baseUrl}/device`,
        verification_uri_complete: `${baseUrl}/device?user_code=${shown}`,
        expires_in: DEVICE_CODE_TTL_SECONDS,
        interval: POLL_INTERVAL_SECONDS,
      };
    } catch (err) {
      // A user code still on file (one in 2.6e10 per live code): draw another.
      if (!isUniqueViolation(err) || attempt >= 4) throw err;
    }
  }
}

/**
 * RFC 8628 §3.4–3.5: the client polls with its device code. Pending → `authorization_pending` (or
 * `slow_down` when it came sooner than the interval, which then grows by 5 seconds); denied →
 * `access_denied`; past 15 minutes → `expired_token`; approved → the tokens, once.
 */
export async function pollDeviceCode(
  db: Db,
  source: AuditContext,
  input: { clientId?: string; deviceCode?: string },
): Promise<TokenAnswer> {
  const client = clientOf(input.clientId);
  if (!input.deviceCode) throw new OAuthError('invalid_request', 'device_code is required');
  const row = await repo.findDeviceCodeByDeviceHash(db, source.tenantId, sha256(input.deviceCode));
  if (!row || row.client_id !== client.id) throw new OAuthError('invalid_grant', 'unknown device_code');
  if (row.status === 'redeemed') throw new OAuthError('invalid_grant', 'this device_code was used already');
  const now = Date.now();
  if (Date.parse(row.expires_at) <= now) {
    throw new OAuthError('expired_token', 'the device code expired: start the sign-in again');
  }
  if (row.status === 'denied') throw new OAuthError('access_denied', 'the sign-in was denied');
  if (row.status === 'pending') {
    const tooSoon =
      row.last_polled_at !== null &&
      now - Date.parse(row.last_polled_at) < row.interval_seconds * 1000 - POLL_GRACE_MS;
    const interval = row.interval_seconds + (tooSoon ? SLOW_DOWN_STEP_SECONDS : 0);
    await repo.recordPoll(db, row.id, new Date(now).toISOString(), interval);
    if (tooSoon) {
      throw new OAuthError('slow_down', `polling too fast: wait ${interval} seconds between requests`);
    }
    throw new OAuthError('authorization_pending', 'waiting for a person to approve the code');
  }
  return redeemApprovedCode(db, source, row, client);
}

async function redeemApprovedCode(
  db: Db,
  source: AuditContext,
  row: OAuthDeviceCodesTable,
  client: { id: string; name: string },
): Promise<TokenAnswer> {
  const userId = row.user_id!;
  const user = await getUser(db, source.tenantId, userId);
  if (!user.active) throw new OAuthError('access_denied', 'the approving account is deactivated');
  const now = Date.now();
  return db.transaction().execute(async (trx) => {
    const key = await apiKeys.createDeviceKey(trx, source.tenantId, {
      userId,
      clientId: client.id,
      clientName: client.name,
      expiresAt: isoIn(now, ACCESS_TOKEN_TTL_SECONDS),
    });
    // Single use: of two polls that both saw "approved", only the one that moves it gets tokens.
    const moved = await repo.moveDeviceCode(trx, row.id, 'approved', {
      status: 'redeemed',
      authorization_id: key.id,
    });
    if (Number(moved.numUpdatedRows) !== 1) {
      throw new OAuthError('invalid_grant', 'this device_code was used already');
    }
    const refreshToken = await issueRefreshToken(trx, source.tenantId, key.id, now);
    await recordAudit(trx, { ...source, userId }, 'oauth.authorization_created', {
      grant_type: DEVICE_CODE_GRANT,
      client_id: client.id,
      authorization_id: key.id,
    });
    return tokenAnswer(key.key, refreshToken);
  });
}

export async function issueRefreshToken(db: Db, tenantId: string, authorizationId: string, now: number) {
  const token = newSecret(32);
  await repo.insertRefreshToken(db, {
    id: newId(16),
    tenant_id: tenantId,
    authorization_id: authorizationId,
    token_hash: sha256(token),
    created_at: new Date(now).toISOString(),
    expires_at: isoIn(now, REFRESH_TOKEN_TTL_SECONDS),
    used_at: null,
  });
  return token;
}

export const tokenAnswer = (accessToken: string, refreshToken: string): TokenAnswer => ({
  access_token: accessToken,
  token_type: 'Bearer',
  expires_in: ACCESS_TOKEN_TTL_SECONDS,
  refresh_token: refreshToken,
  refresh_token_expires_in: REFRESH_TOKEN_TTL_SECONDS,
});

/** Ends a device or OAuth sign-in (its access token and every refresh token of its family); audited once. */
export async function revokeAuthorization(
  db: Db,
  ctx: AuditContext,
  authorizationId: string,
  clientId: string,
) {
  await db.transaction().execute(async (trx) => {
    if (await apiKeys.revokeKeyRow(trx, ctx.tenantId, authorizationId)) {
      await recordAudit(trx, ctx, 'oauth.authorization_revoked', {
        client_id: clientId,
        authorization_id: authorizationId,
      });
    }
  });
}

/**
 * RFC 6749 §6: a refresh token buys a new access token and a new refresh token (rotation); the old access
 * token stops at once. A refresh token used a second time means two holders: the whole sign-in is revoked
 * (RFC 9700 §4.14.2). `client_id` is optional (the CLI sends none); when sent it must be the sign-in's.
 */
export async function refreshTokens(
  db: Db,
  source: Omit<AuditContext, 'userId'>,
  input: { clientId?: string; refreshToken?: string },
): Promise<TokenAnswer> {
  if (!input.refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
  const invalid = () => new OAuthError('invalid_grant', 'invalid or expired refresh token: sign in again');
  const row = await repo.findRefreshToken(db, source.tenantId, sha256(input.refreshToken));
  if (!row) throw invalid();
  const key = await apiKeys.findDeviceKey(db, source.tenantId, row.authorization_id);
  if (!key) throw invalid();
  if (input.clientId !== undefined && input.clientId !== key.clientId) throw invalid();
  const ctx = { ...source, userId: key.userId };
  if (row.used_at !== null) {
    await revokeAuthorization(db, ctx, key.id, key.clientId);
    throw new OAuthError('invalid_grant', 'this refresh token was used already: the sign-in is revoked');
  }
  if (key.revoked || !key.userActive || Date.parse(row.expires_at) <= Date.now()) throw invalid();
  const now = Date.now();
  const answer = await db.transaction().execute(async (trx) => {
    if (Number((await repo.useRefreshToken(trx, row.id, new Date(now).toISOString())).numUpdatedRows) !== 1) {
      return 'reused' as const;
    }
    const accessToken = await apiKeys.rotateDeviceKey(
      trx,
      source.tenantId,
      key.id,
      isoIn(now, ACCESS_TOKEN_TTL_SECONDS),
    );
    if (!accessToken) return 'revoked' as const;
    await repo.deleteExpiredRefreshTokens(trx, key.id, new Date(now).toISOString());
    return tokenAnswer(accessToken, await issueRefreshToken(trx, source.tenantId, key.id, now));
  });
  if (answer === 'reused') {
    // Another request used it between our read and our write: the same reuse, seen a moment later.
    await revokeAuthorization(db, ctx, key.id, key.clientId);
    throw new OAuthError('invalid_grant', 'this refresh token was used already: the sign-in is revoked');
  }
  if (answer === 'revoked') throw invalid();
  return answer;
}

// ---- the verification page's API (a signed-in person approves or denies a code) ----

export interface DeviceCodeView {
  userCode: string;
  clientId: string;
  clientName: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  expiresAt: string;
}

const BAD_CODE = 'This code is not valid: check it against the one your device shows';
const EXPIRED_CODE = 'This code has expired: start the sign-in on your device again';

/** Wrong user codes a person (and an address) may try within the window before lookups wait (429). */
export const USER_CODE_MISSES: WindowLimit = { max: 10, windowMs: 15 * 60_000 };

/**
 * Looks a user code up for a signed-in person. Misses count per address and per person, and past 10 in 15
 * minutes every lookup waits (429 with `Retry-After`): codes cannot be guessed by trying them here.
 */
async function findByUserCode(db: Db, actor: Actor, userCode: string) {
  const buckets = [`device-code:ip:${addressKey(actor.ip)}`, `device-code:user:${actor.userId}`];
  for (const bucket of buckets) {
    const wait = await hitWaitMs(db, actor.tenantId, bucket, USER_CODE_MISSES);
    if (wait > 0) throw throttled(wait, 'too many wrong device codes');
  }
  const normalized = normalizeUserCode(userCode);
  const row = isUserCode(normalized)
    ? await repo.findDeviceCodeByUserHash(db, actor.tenantId, sha256(normalized))
    : undefined;
  if (!row) {
    await recordHits(db, actor.tenantId, buckets);
    throw notFound(BAD_CODE);
  }
  const expired = Date.parse(row.expires_at) <= Date.now();
  return { row, normalized, expired };
}

/** What the page shows about a code: the client asking, and where the code stands. 404 for a bad code, 429 after many. */
export async function describeUserCode(db: Db, actor: Actor, userCode: string): Promise<DeviceCodeView> {
  const { row, normalized, expired } = await findByUserCode(db, actor, userCode);
  const status =
    row.status === 'denied'
      ? 'denied'
      : row.status !== 'pending'
        ? 'approved'
        : expired
          ? 'expired'
          : 'pending';
  return {
    userCode: formatUserCode(normalized),
    clientId: row.client_id,
    clientName: OAUTH_CLIENTS[row.client_id]?.name ?? row.client_id,
    status,
    expiresAt: row.expires_at,
  };
}

/**
 * A signed-in person approves (the device gets tokens acting as them) or denies a pending code. Only a person
 * signed in with the session cookie may: a key or a device's own token approving more devices would let one
 * leaked token mint others. 404 bad code; 400 expired; 409 already approved or denied.
 */
export async function decideUserCode(
  db: Db,
  actor: Actor,
  userCode: string,
  decision: 'approve' | 'deny',
): Promise<{ message: string }> {
  if (actor.via !== 'session') {
    throw forbidden('a device sign-in is approved by a person signed in to the web page, not with a key');
  }
  const { row, expired } = await findByUserCode(db, actor, userCode);
  if (row.status !== 'pending')
    throw conflict(`This code was ${row.status === 'denied' ? 'denied' : 'approved'} already`);
  if (expired) throw badRequest(EXPIRED_CODE);
  const moved = await repo.moveDeviceCode(db, row.id, 'pending', {
    status: decision === 'approve' ? 'approved' : 'denied',
    user_id: actor.userId,
  });
  if (Number(moved.numUpdatedRows) !== 1) throw conflict('This code was decided already');
  return decision === 'approve'
    ? { message: 'Device approved: you can return to your device' }
    : { message: 'Sign-in denied: the device gets no access' };
}

export const codeMessages = { BAD_CODE, EXPIRED_CODE };

// ---- check-tenant (the CLI's login service) ----

/**
 * `GET /api/check-tenant?name=`: the tenant a team name means, by id or name (case-insensitive). Single-tenant:
 * only the default tenant, which answers to its id and its name. 404 for any other name.
 */
export async function findTenantForLogin(db: Db, multiTenant: boolean, name: string) {
  const wanted = name.trim().toLowerCase();
  const tenants = await listTenants(db);
  const found = tenants.find(
    (t) =>
      (multiTenant || t.id === DEFAULT_TENANT_ID) &&
      (t.id.toLowerCase() === wanted || t.name.toLowerCase() === wanted),
  );
  if (!found) throw notFound(`no team named "${name.trim()}" on this service`);
  return found;
}
