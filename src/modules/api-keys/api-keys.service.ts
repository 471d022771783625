import type { Db } from '../../db/create-db.js';
import type { ApiKeyKind } from '../../db/schema.js';
import type { Actor, KnownProject } from '../../auth/actor.js';
import { AppError, badRequest, forbidden, notFound } from '../../errors.js';
import { safeEqualHex, sha256 } from '../../lib/crypto.js';
import { newId, newSecret } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import * as users from '../users/users.service.js';
import { assertManages } from '../users/users.service.js';
import { recordAudit } from '../audit/audit.service.js';
import * as repo from './api-keys.repository.js';

/** D5: keys whose name starts with this may only read the audit log. */
export const RESTRICTED_KEY_PREFIX = 'SIEM-LOG-ONLY';

export interface ApiKeyInfo {
  id: string;
  name: string;
  userId: number;
  userEmail: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  kind: ApiKeyKind;
  clientId: string | null;
}

/**
 * A device sign-in (`qasphere auth login`): an API key row of kind 'device' whose secret is the OAuth access
 * token's and rotates on every refresh (the oauth module holds the flow). Authentication reads it with the one
 * statement it runs for every key; `expires_at` ends each access token.
 */
export async function createDeviceKey(
  db: Db,
  tenantId: string,
  input: {
    userId: number;
    clientId: string;
    clientName: string;
    expiresAt: string;
    kind?: 'device' | 'oauth';
  },
): Promise<{ id: string; key: string }> {
  const id = newId(12);
  const secret = newSecret(32);
  await repo.insertKey(db, {
    id,
    tenant_id: tenantId,
    user_id: input.userId,
    name: input.clientName,
    secret_hash: sha256(secret),
    created_at: nowIso(),
    expires_at: input.expiresAt,
    revoked_at: null,
    last_used_at: null,
    kind: input.kind ?? 'device',
    client_id: input.clientId,
  });
  return { id, key: `${tenantId}.${id}.${secret}` };
}

/** A new access token for a device sign-in; the previous one stops at once. Undefined when it was revoked. */
export async function rotateDeviceKey(
  db: Db,
  tenantId: string,
  keyId: string,
  expiresAt: string,
): Promise<string | undefined> {
  const secret = newSecret(32);
  const done = await repo.rotateKeySecret(db, tenantId, keyId, sha256(secret), expiresAt);
  return Number(done.numUpdatedRows) === 1 ? `${tenantId}.${keyId}.${secret}` : undefined;
}

/** A device or OAuth sign-in as its refresh needs it: undefined when there is none. */
export async function findDeviceKey(db: Db, tenantId: string, keyId: string) {
  const row = await repo.findKeyWithUser(db, tenantId, keyId);
  if (!row || row.kind === 'key') return undefined;
  return {
    id: row.id,
    kind: row.kind,
    userId: row.user_id,
    clientId: row.client_id ?? '',
    revoked: row.revoked_at !== null,
    userActive: row.deactivated_at === null,
  };
}

/**
 * The device or OAuth sign-in a raw access token belongs to (RFC 7009 revocation): undefined for anything else,
 * a plain key included (a key is revoked through the key routes, not by a client that holds it).
 */
export async function findSignInByAccessToken(db: Db, tenantId: string, rawToken: string) {
  const [tokenTenant, keyId, secret] = rawToken.split('.');
  if (tokenTenant !== tenantId || !keyId || !secret) return undefined;
  const row = await repo.findKey(db, tenantId, keyId);
  if (!row || row.kind === 'key' || !safeEqualHex(row.secret_hash, sha256(secret))) return undefined;
  return { id: row.id, userId: row.user_id, clientId: row.client_id ?? '' };
}

/** Revokes a key; true when this call revoked it (false when it was revoked already). */
export async function revokeKeyRow(db: Db, tenantId: string, keyId: string): Promise<boolean> {
  return Number((await repo.revokeKey(db, tenantId, keyId, nowIso())).numUpdatedRows) === 1;
}

/** Ends every device sign-in of a user (a password change or reset): how many were live. */
export async function endDeviceSignIns(db: Db, tenantId: string, userId: number): Promise<number> {
  return Number((await repo.revokeDeviceKeysOf(db, tenantId, userId, nowIso())).numUpdatedRows);
}

/** D2: `<tenantId>.<keyId>.<secret>`; only the secret's hash is stored, the whole key is returned once. */
export async function createApiKey(
  db: Db,
  tenantId: string,
  input: { userId: number; name: string; expiresAt?: string | null; kind?: 'key' | 'scim' },
): Promise<{ id: string; key: string }> {
  const name = input.name.trim();
  if (!name || name.length > 255) throw badRequest('key name must be 1-255 characters', '/name');
  const user = await users.getUser(db, tenantId, input.userId);
  if (!user.active) throw badRequest(`user ${user.email} is deactivated`, '/userId');
  let expiresAt: string | null = null;
  if (input.expiresAt) {
    const t = Date.parse(input.expiresAt);
    if (Number.isNaN(t)) throw badRequest(`expiry "${input.expiresAt}" is not a date`, '/expiresAt');
    if (t <= Date.now()) throw badRequest('expiry must be in the future', '/expiresAt');
    expiresAt = new Date(t).toISOString();
  }
  const id = newId(12);
  const secret = newSecret(32);
  await repo.insertKey(db, {
    id,
    tenant_id: tenantId,
    user_id: user.id,
    name,
    secret_hash: sha256(secret),
    created_at: nowIso(),
    expires_at: expiresAt,
    revoked_at: null,
    last_used_at: null,
    kind: input.kind ?? 'key',
  });
  return { id, key: `${tenantId}.${id}.${secret}` };
}

export type KeyCheck =
  | {
      ok: true;
      tenantId: string;
      userId: number;
      role: string;
      keyId: string;
      keyName: string;
      /** 'scim' keys are accepted only under /scim/v2, and only they are (src/modules/scim). */
      keyKind: ApiKeyKind;
      tenantSuspended: boolean;
      /** When the request named a project: what the same statement found of it (see authenticateApiKey). */
      project?: KnownProject;
    }
  | { ok: false; reason: string };

/** A key's last use is written at most this often: once a minute, not once a request. */
export const LAST_USED_INTERVAL_MS = 60_000;

/**
 * When this process last wrote (or is writing) each key's last use. Authentication reads the stored time in its one
 * statement, so most requests write nothing; this keeps requests that arrive together, before the write is
 * committed, from writing it too. Bounded: cleared when it grows past what a process meets in a minute.
 */
const lastUseWritten = new Map<string, number>();
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * Records that a key (or device sign-in) was used, at most once a minute per key: undefined (no promise, no
 * statement) for every other request. A failed write is dropped: bookkeeping never fails the request it is noted
 * for (a full disk, say), and it is tried again after the interval, not on the next request.
 */
function noteKeyUse(db: Db, keyId: string, stored: string | null): Promise<void> | undefined {
  const now = Date.now();
  const storedAt = stored === null ? -Infinity : Date.parse(stored);
  if (now - Math.max(storedAt, lastUseWritten.get(keyId) ?? -Infinity) < LAST_USED_INTERVAL_MS)
    return undefined;
  if (lastUseWritten.size >= MAX_REMEMBERED_KEYS) lastUseWritten.clear();
  lastUseWritten.set(keyId, now);
  return repo
    .touchKeyLastUsed(
      db,
      keyId,
      new Date(now).toISOString(),
      new Date(now - LAST_USED_INTERVAL_MS).toISOString(),
    )
    .then(
      () => undefined,
      () => undefined,
    );
}

/**
 * Checks a raw key for the tenant the request addressed (D2: another tenant's key is a 401). With `projectRef`
 * (a project-scoped route) the same statement also finds that project; the caller hands it to resolveProject,
 * which then needs no statement of its own. What is found of the project is never used unless the key is good.
 */
export async function authenticateApiKey(
  db: Db,
  requestTenantId: string,
  rawKey: string,
  projectRef?: string,
): Promise<KeyCheck> {
  const parts = rawKey.split('.');
  if (parts.length !== 3 || parts.some((p) => p === '')) return { ok: false, reason: 'malformed API key' };
  const [tenantId, keyId, secret] = parts;
  if (tenantId !== requestTenantId) return { ok: false, reason: 'invalid API key' };
  let row: repo.KeyRow | undefined;
  let project: KnownProject | undefined;
  if (projectRef === undefined) {
    row = await repo.findKeyForAuth(db, keyId);
  } else {
    const found = await repo.findKeyForAuthWithProject(db, keyId, projectRef);
    row = found?.key;
    if (found) project = { ref: projectRef, row: found.project, member: found.member };
  }
  if (!row || row.tenant_id !== tenantId || !safeEqualHex(row.secret_hash, sha256(secret))) {
    return { ok: false, reason: 'invalid API key' };
  }
  if (row.revoked_at) return { ok: false, reason: 'API key revoked' };
  if (row.expires_at && Date.parse(row.expires_at) <= Date.now())
    return { ok: false, reason: 'API key expired' };
  if (row.deactivated_at) return { ok: false, reason: 'user deactivated' };
  const noting = noteKeyUse(db, row.id, row.last_used_at);
  if (noting) await noting;
  return {
    ok: true,
    tenantId,
    userId: row.user_id,
    role: row.role,
    keyId: row.id,
    keyName: row.name,
    keyKind: row.kind,
    tenantSuspended: row.suspended_at !== null,
    project,
  };
}

export async function listApiKeys(db: Db, tenantId: string, userId?: number): Promise<ApiKeyInfo[]> {
  return (await repo.listKeys(db, tenantId, userId)).map((r) => ({
    id: r.id,
    name: r.name,
    userId: r.user_id,
    userEmail: r.email,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
    kind: r.kind,
    clientId: r.client_id,
  }));
}

/** Revocation takes effect on the next request: keys are checked against the database every time. */
export async function revokeApiKey(db: Db, tenantId: string, keyId: string): Promise<void> {
  const key = await repo.findKey(db, tenantId, keyId);
  if (!key) throw notFound(`API key ${keyId} not found`);
  await repo.revokeKey(db, tenantId, keyId, nowIso());
}

export const isRestrictedKeyName = (name: string) => name.startsWith(RESTRICTED_KEY_PREFIX);

// ---- key management through the API (ADMIN-A) ----

/** A key as the API lists it: never the secret or its hash. */
export interface ApiKey {
  id: string;
  name: string;
  userId: number;
  userEmail: string;
  /** D5: the name starts with SIEM-LOG-ONLY, so the key may only read the audit log. */
  restricted: boolean;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
  lastUsedAt?: string;
  /** 'device': a device sign-in (`qasphere auth login`); 'oauth': an OAuth client's (its name is the client's); 'scim': provisioning only. */
  kind: ApiKeyKind;
  /** Of a device or OAuth sign-in: the OAuth client it was granted to. */
  clientId?: string;
}

const toApiKey = (k: ApiKeyInfo): ApiKey => ({
  id: k.id,
  name: k.name,
  userId: k.userId,
  userEmail: k.userEmail,
  restricted: isRestrictedKeyName(k.name),
  createdAt: k.createdAt,
  ...(k.expiresAt ? { expiresAt: k.expiresAt } : {}),
  ...(k.revokedAt ? { revokedAt: k.revokedAt } : {}),
  ...(k.lastUsedAt ? { lastUsedAt: k.lastUsedAt } : {}),
  kind: k.kind,
  ...(k.kind !== 'key' && k.clientId ? { clientId: k.clientId } : {}),
});

/** One's own keys, or (admin endpoints) every key of the tenant or of one user. */
export async function listKeys(db: Db, actor: Actor, userId?: number): Promise<ApiKey[]> {
  return (await listApiKeys(db, actor.tenantId, userId)).map(toApiKey);
}

/**
 * D2/D3: creates a key, shown once. Anyone may make keys for themselves (a key acts with its user's role,
 * so it grants nothing new); keys for another user need to manage that user (admin over lower roles,
 * or the owner): a key for someone is acting as them.
 */
export async function createKeyAs(
  db: Db,
  actor: Actor,
  input: { userId?: number; name: string; expiresAt?: string; kind?: 'key' | 'scim' },
): Promise<{ id: string; key: string }> {
  const userId = input.userId ?? actor.userId;
  // A provisioning key creates, changes and deactivates people: only the owner makes one, and it acts as them.
  if (input.kind === 'scim') {
    if (actor.role !== 'owner') throw forbidden('only the owner can create a SCIM provisioning key');
    if (userId !== actor.userId) throw badRequest("a SCIM provisioning key is the owner's own", '/userId');
  }
  if (userId !== actor.userId) {
    const target = await users.getUser(db, actor.tenantId, userId).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND')
        throw badRequest(`user ${userId} not found`, '/userId');
      throw err;
    });
    assertManages(actor, target, 'create API keys for');
  }
  return createApiKey(db, actor.tenantId, {
    userId,
    name: input.name,
    expiresAt: input.expiresAt ?? null,
    kind: input.kind,
  });
}

/**
 * Revokes a key: one's own always; another user's (admin endpoints, `ownOnly` false) when the caller
 * manages that user. 404 for a key that is not there (or, with `ownOnly`, not the caller's).
 */
export async function revokeKeyAs(db: Db, actor: Actor, keyId: string, ownOnly: boolean): Promise<void> {
  const key = await repo.findKey(db, actor.tenantId, keyId);
  if (!key || (ownOnly && key.user_id !== actor.userId)) throw notFound(`API key ${keyId} not found`);
  if (key.user_id !== actor.userId) {
    assertManages(actor, await users.getUser(db, actor.tenantId, key.user_id), 'revoke API keys of');
  }
  await db.transaction().execute(async (trx) => {
    const revoked = await revokeKeyRow(trx, actor.tenantId, keyId);
    // A device or OAuth sign-in is an OAuth authorisation: its end is audited with the contract's own event.
    if (revoked && key.kind !== 'key') {
      await recordAudit(trx, actor, 'oauth.authorization_revoked', {
        client_id: key.client_id,
        authorization_id: key.id,
      });
    }
  });
}
