import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { addressKey } from '../../lib/ip.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit, type AuditContext } from '../audit/audit.service.js';
import { hitWaitMs, recordHits, throttled, type WindowLimit } from '../auth/throttle.service.js';
import { OAuthError } from './oauth.service.js';
import * as repo from './oauth-clients.repository.js';

// ---- RFC 7591 dynamic client registration (public clients only) ----

/** Registrations one address may make within the window; past it, 429 with Retry-After. */
export const REGISTRATIONS_PER_ADDRESS: WindowLimit = { max: 20, windowMs: 60 * 60_000 };
/** Registrations a tenant takes within the window from all addresses together: the table cannot be flooded. */
export const REGISTRATIONS_PER_TENANT: WindowLimit = { max: 500, windowMs: 60 * 60_000 };
const MAX_REDIRECT_URIS = 10;
const MAX_NAME_LENGTH = 100;
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A loopback redirect (RFC 8252 §7.3): http on this machine, any port (native apps pick one when they start). */
export const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * A redirect URI a client may register: absolute, without a fragment or credentials, https, or http on a
 * loopback address (OAuth 2.1 §2.3.1, §8.4.2). Undefined when it may not.
 */
export function checkedRedirectUri(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.hash !== '' || value.includes('#') || url.username !== '' || url.password !== '') return undefined;
  return url.protocol === 'https:' || isLoopback(url) ? url : undefined;
}

/** A name as people will read it: no control characters, one line, at most 100 characters. */
function cleanName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const name = value.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ');
  const trimmed = name.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME_LENGTH);
  return trimmed === '' ? undefined : trimmed;
}

export interface RegistrationInput {
  redirect_uris?: unknown;
  client_name?: unknown;
  token_endpoint_auth_method?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
}

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
}

const metadataError = (message: string) => new OAuthError('invalid_client_metadata', message);

/**
 * Registers a public client (no secret: PKCE protects its codes) for the tenant. Anyone may register, as the MCP
 * authorization spec expects; what keeps it honest is the approval page, which names the client and the origin
 * it sends the person back to, and the tenant's rule (policy). Counted per address and per tenant.
 */
export async function registerClient(
  db: Db,
  source: Omit<AuditContext, 'userId'>,
  input: RegistrationInput,
): Promise<RegisteredClient> {
  const buckets: [string, WindowLimit][] = [
    [`oauth-register:ip:${addressKey(source.ip)}`, REGISTRATIONS_PER_ADDRESS],
    ['oauth-register:tenant', REGISTRATIONS_PER_TENANT],
  ];
  for (const [bucket, limit] of buckets) {
    const wait = await hitWaitMs(db, source.tenantId, bucket, limit);
    if (wait > 0) throw throttled(wait, 'too many client registrations');
  }
  const uris = input.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect_uris`);
  }
  for (const uri of uris) {
    if (typeof uri !== 'string' || uri.length > 2000 || !checkedRedirectUri(uri)) {
      throw new OAuthError(
        'invalid_redirect_uri',
        `redirect URI ${JSON.stringify(uri)} is not allowed: use https, or http on 127.0.0.1, [::1] or localhost, without a fragment`,
      );
    }
  }
  const method = input.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw metadataError('only public clients register here: token_endpoint_auth_method must be "none"');
  }
  const grants = input.grant_types;
  if (
    grants !== undefined &&
    (!Array.isArray(grants) || grants.some((g) => !(GRANT_TYPES as readonly unknown[]).includes(g)))
  ) {
    throw metadataError('grant_types may hold only "authorization_code" and "refresh_token"');
  }
  const responses = input.response_types;
  if (responses !== undefined && (!Array.isArray(responses) || responses.some((r) => r !== 'code'))) {
    throw metadataError('response_types may hold only "code"');
  }
  const redirectUris = [...new Set(uris as string[])];
  const name = cleanName(input.client_name) ?? new URL(redirectUris[0]!).host;
  const now = new Date();
  const id = `mcp-${newId(16)}`;
  await db.transaction().execute(async (trx) => {
    await recordHits(
      trx,
      source.tenantId,
      buckets.map(([b]) => b),
    );
    await repo.insertClient(trx, {
      id,
      tenant_id: source.tenantId,
      name,
      redirect_uris: JSON.stringify(redirectUris),
      created_at: now.toISOString(),
    });
    await recordAudit(trx, { ...source, userId: null }, 'oauth.client_registered', {
      client_id: id,
      client_name: name,
      redirect_origins: [...new Set(redirectUris.map((u) => new URL(u).origin))],
    });
  });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: [...GRANT_TYPES],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

export interface Client {
  id: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
}

export async function findClient(db: Db, tenantId: string, clientId: string): Promise<Client | undefined> {
  const row = await repo.findClient(db, tenantId, clientId);
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    createdAt: row.created_at,
  };
}

// ---- the tenant's rule: which clients a person may approve ----

export interface ClientPolicy {
  /** null: any registered client; else only clients sending people back to one of these origins. */
  allowedOrigins: string[] | null;
  updatedAt: string | null;
}

export async function getPolicy(db: Db, tenantId: string): Promise<ClientPolicy> {
  const row = await repo.findPolicy(db, tenantId);
  return {
    allowedOrigins: row?.allowed_origins ? (JSON.parse(row.allowed_origins) as string[]) : null,
    updatedAt: row?.updated_at ?? null,
  };
}

/**
 * Whether the rule lets a person approve a client sending them back to `redirectUri`. An allowed origin matches
 * its own origin; a loopback one written without a port (`http://localhost`) matches any port, as native clients
 * choose theirs when they start.
 */
export function redirectAllowed(policy: ClientPolicy, redirectUri: string): boolean {
  if (policy.allowedOrigins === null) return true;
  const url = new URL(redirectUri);
  return policy.allowedOrigins.some((allowed) => {
    if (allowed === url.origin) return true;
    const a = new URL(allowed);
    return isLoopback(a) && a.port === '' && isLoopback(url) && a.hostname === url.hostname;
  });
}

/** An origin as an admin may write it: http(s), nothing after the host and port. */
function normalizedOrigin(value: string, index: number): string {
  const trimmed = value.trim().replace(/\/$/, '');
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== trimmed) {
    throw badRequest(
      `"${value}" is not an origin: write the scheme and host (and port), e.g. https://claude.ai`,
      `/allowedOrigins/${index}`,
    );
  }
  return url.origin;
}

/** An admin sets the rule: null lets any registered client be approved. Audited. */
export async function setPolicy(
  db: Db,
  actor: Actor,
  allowedOrigins: string[] | null,
): Promise<ClientPolicy> {
  const origins = allowedOrigins === null ? null : [...new Set(allowedOrigins.map(normalizedOrigin))];
  const at = nowIso();
  await db.transaction().execute(async (trx) => {
    await repo.writePolicy(trx, actor.tenantId, origins === null ? null : JSON.stringify(origins), at);
    await recordAudit(trx, actor, 'oauth.client_policy_updated', { allowed_origins: origins });
  });
  return { allowedOrigins: origins, updatedAt: at };
}

export interface ClientListItem {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  createdAt: string;
  liveSignIns: number;
  /** Whether the rule lets people approve it (for at least one of its redirect URIs). */
  allowed: boolean;
}

/** What the admin page shows: the rule and the newest 200 clients. */
export async function listClients(
  db: Db,
  tenantId: string,
): Promise<{ policy: ClientPolicy; clients: ClientListItem[] }> {
  const policy = await getPolicy(db, tenantId);
  const rows = await repo.listClients(db, tenantId, 200);
  return {
    policy,
    clients: rows.map((r) => {
      const redirectUris = JSON.parse(r.redirect_uris) as string[];
      return {
        clientId: r.id,
        clientName: r.name,
        redirectUris,
        createdAt: r.created_at,
        liveSignIns: Number(r.live_sign_ins ?? 0),
        allowed: redirectUris.some((u) => redirectAllowed(policy, u)),
      };
    }),
  };
}
