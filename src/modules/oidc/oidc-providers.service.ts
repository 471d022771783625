import type { Selectable } from 'kysely';
import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { OidcProvidersTable } from '../../db/tables/oidc.js';
import { conflict, notFound, validationFailed, type ErrorDetail } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import { open, requireSecretKey, seal } from '../../lib/secret-box.js';
import type { OutboundGuard } from '../../lib/ssrf.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { resolveProjectRules } from '../sso/sso-rules.service.js';
import * as repo from './oidc.repository.js';
import type {
  CreateOidcProviderBody,
  GrantableRole,
  OidcProvider,
  ProjectRule,
  RoleRule,
  TestSignInOutcome,
  UpdateOidcProviderBody,
} from './oidc.schemas.js';

/**
 * OpenID Connect providers (issue 44; docs/api-decisions.md#openid-connect-sign-in): managed by admins, tenant-wide,
 * like webhooks. The client secret is sealed with the secret key (its own purpose) and never answered.
 */
const PURPOSE = 'casebook:oidc-client-secrets:v1';

export interface OidcSettings {
  secretKey: string;
  guard: OutboundGuard;
}

type Row = Selectable<OidcProvidersTable>;

/** A sealed client secret, opened with `oldKey` and sealed again with `newKey` (`casebook secret-key rotate`). */
export const resealOidcSecret = (oldKey: string, newKey: string, sealed: string): string =>
  seal(open(sealed, oldKey, PURPOSE), requireSecretKey(newKey), PURPOSE);

/** The client secret of a provider, opened for a token request. */
export const openClientSecret = (secretKey: string, row: Pick<Row, 'client_secret_enc'>): string =>
  open(row.client_secret_enc, secretKey, PURPOSE);

/** Where a provider sends people back: one callback per provider, on the address the browser reached. */
export const redirectUriOf = (origin: string, providerId: string): string =>
  `${origin}/api/auth/oidc/${providerId}/callback`;

export function toProvider(row: Row, origin: string): OidcProvider {
  return {
    id: row.id,
    name: row.name,
    issuer: row.issuer,
    clientId: row.client_id,
    hasClientSecret: true,
    enabled: row.enabled === 1,
    justInTime: row.just_in_time === 1,
    defaultRole: row.default_role,
    scopes: parseJson<string[]>(row.scopes, []),
    nameClaim: row.name_claim,
    groupsClaim: row.groups_claim,
    roleRules: parseJson<RoleRule[]>(row.role_rules, []),
    projectRules: parseJson<ProjectRule[]>(row.project_rules, []),
    redirectUri: redirectUriOf(origin, row.id),
    lastTest: parseJson<TestSignInOutcome | null>(row.last_test, null),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * An issuer is an absolute https URL without credentials, query or fragment (OIDC Discovery §2); plain http only
 * for hosts CASEBOOK_OUTBOUND_ALLOW lets in. A literal private address is refused here; names at every request.
 */
export function checkIssuer(guard: OutboundGuard, issuer: string, errors: ErrorDetail[]): void {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    errors.push({ path: '/issuer', message: 'issuer must be an absolute https URL' });
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    errors.push({ path: '/issuer', message: 'issuer must be an https URL' });
  } else if (url.protocol === 'http:' && !guard.httpAllowed(url)) {
    errors.push({
      path: '/issuer',
      message: 'issuer must be https (plain http is allowed only for hosts on CASEBOOK_OUTBOUND_ALLOW)',
    });
  } else if (url.username || url.password || url.search || url.hash || issuer.includes('#')) {
    errors.push({ path: '/issuer', message: 'issuer must carry no credentials, query or fragment' });
  } else {
    try {
      guard.checkUrl(url);
    } catch (err) {
      errors.push({ path: '/issuer', message: (err as Error).message });
    }
  }
}

const clean = (s: string) => s.trim();

function checkText(value: string | undefined, path: string, errors: ErrorDetail[]): void {
  if (value !== undefined && clean(value) === '')
    errors.push({ path, message: `${path.slice(1)} must not be blank` });
}

export async function listProviders(db: Db, tenantId: string, origin: string): Promise<OidcProvider[]> {
  return (await repo.listProviders(db, tenantId)).map((r) => toProvider(r, origin));
}

async function findRow(db: Db, tenantId: string, id: string): Promise<Row> {
  const row = await repo.findProvider(db, tenantId, id);
  if (!row) throw notFound(`OIDC provider ${id} not found`);
  return row;
}

export async function getProvider(
  db: Db,
  tenantId: string,
  id: string,
  origin: string,
): Promise<OidcProvider> {
  return toProvider(await findRow(db, tenantId, id), origin);
}

const nameTaken = (name: string) => conflict(`an OIDC provider named "${name}" exists`);

/** Creates a provider (admin); off until `enabled`. Audited as `oidc.provider_create`, without the secret. */
export async function createProvider(
  db: Db,
  actor: Actor,
  input: CreateOidcProviderBody,
  settings: OidcSettings,
  origin: string,
): Promise<OidcProvider> {
  const errors: ErrorDetail[] = [];
  checkText(input.name, '/name', errors);
  checkText(input.clientId, '/clientId', errors);
  checkIssuer(settings.guard, input.issuer, errors);
  if (errors.length > 0) throw validationFailed(errors);
  const projectRules = await resolveProjectRules(db, actor.tenantId, input.projectRules ?? []);
  const at = nowIso();
  const name = clean(input.name);
  const row: Row = {
    id: newId(16),
    tenant_id: actor.tenantId,
    name,
    name_norm: name.toLowerCase(),
    issuer: input.issuer,
    client_id: clean(input.clientId),
    client_secret_enc: seal(input.clientSecret, requireSecretKey(settings.secretKey), PURPOSE),
    enabled: input.enabled ? 1 : 0,
    just_in_time: input.justInTime ? 1 : 0,
    default_role: input.defaultRole ?? 'test-runner',
    scopes: JSON.stringify(input.scopes ?? []),
    name_claim: input.nameClaim ?? 'name',
    groups_claim: input.groupsClaim ?? 'groups',
    role_rules: JSON.stringify(input.roleRules ?? []),
    project_rules: JSON.stringify(projectRules),
    last_test: null,
    created_at: at,
    updated_at: at,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await repo.insertProvider(trx, row);
      await recordAudit(trx, actor, 'oidc.provider_create', {
        provider_id: row.id,
        provider_name: name,
        issuer: row.issuer,
        client_id: row.client_id,
        enabled: row.enabled === 1,
        just_in_time: row.just_in_time === 1,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name);
    throw err;
  }
  return toProvider(row, origin);
}

/**
 * Changes the given fields (admin). The secret was given for one issuer: a new issuer takes it along only when the
 * same request sends it again (the webhook rule for a new origin). Audited as `oidc.provider_update` with what changed.
 */
export async function updateProvider(
  db: Db,
  actor: Actor,
  id: string,
  input: UpdateOidcProviderBody,
  settings: OidcSettings,
  origin: string,
): Promise<OidcProvider> {
  const row = await findRow(db, actor.tenantId, id);
  const errors: ErrorDetail[] = [];
  checkText(input.name, '/name', errors);
  checkText(input.clientId, '/clientId', errors);
  if (input.issuer !== undefined) checkIssuer(settings.guard, input.issuer, errors);
  if (input.issuer !== undefined && input.issuer !== row.issuer && input.clientSecret === undefined) {
    errors.push({
      path: '/clientSecret',
      message: `the issuer changes (${row.issuer} → ${input.issuer}): send the client secret again; it is not sent to another issuer unasked`,
    });
  }
  if (errors.length > 0) throw validationFailed(errors);
  const projectRules =
    input.projectRules === undefined
      ? undefined
      : await resolveProjectRules(db, actor.tenantId, input.projectRules);
  const values: Partial<Row> = {};
  const changed: Record<string, unknown> = {};
  const set = <K extends keyof Row>(key: K, value: Row[K] | undefined, field: string) => {
    if (value === undefined || value === row[key]) return;
    values[key] = value;
    changed[field] = value;
  };
  const name = input.name === undefined ? undefined : clean(input.name);
  set('name', name, 'name');
  if (name !== undefined) values.name_norm = name.toLowerCase();
  set('issuer', input.issuer, 'issuer');
  set('client_id', input.clientId === undefined ? undefined : clean(input.clientId), 'client_id');
  set('enabled', input.enabled === undefined ? undefined : input.enabled ? 1 : 0, 'enabled');
  set('just_in_time', input.justInTime === undefined ? undefined : input.justInTime ? 1 : 0, 'just_in_time');
  set('default_role', input.defaultRole as GrantableRole | undefined, 'default_role');
  set('name_claim', input.nameClaim, 'name_claim');
  set('groups_claim', input.groupsClaim, 'groups_claim');
  const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));
  set('scopes', json(input.scopes), 'scopes');
  set('role_rules', json(input.roleRules), 'role_rules');
  set('project_rules', json(projectRules), 'project_rules');
  if (input.clientSecret !== undefined) {
    values.client_secret_enc = seal(input.clientSecret, requireSecretKey(settings.secretKey), PURPOSE);
    changed.client_secret_changed = true;
  }
  if (Object.keys(values).length === 0) return toProvider(row, origin);
  values.updated_at = nowIso();
  try {
    await db.transaction().execute(async (trx) => {
      await repo.updateProvider(trx, actor.tenantId, id, values);
      await recordAudit(trx, actor, 'oidc.provider_update', {
        provider_id: id,
        provider_name: name ?? row.name,
        ...changed,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name ?? row.name);
    throw err;
  }
  return toProvider({ ...row, ...values }, origin);
}

/** Deletes a provider, its identities and its sign-ins under way; people keep their accounts. Audited. */
export async function deleteProvider(db: Db, actor: Actor, id: string): Promise<void> {
  const row = await findRow(db, actor.tenantId, id);
  await db.transaction().execute(async (trx) => {
    await repo.deleteProvider(trx, actor.tenantId, id);
    await recordAudit(trx, actor, 'oidc.provider_delete', {
      provider_id: id,
      provider_name: row.name,
      issuer: row.issuer,
    });
  });
}

/** The sign-in page's buttons: the enabled providers' ids and names. */
export const listSignInProviders = (db: Db, tenantId: string) => repo.listEnabledProviders(db, tenantId);

/** A provider as the sign-in flow needs it: undefined when it is not there or not enabled. */
export async function findEnabledProvider(db: Db, tenantId: string, id: string): Promise<Row | undefined> {
  const row = await repo.findProvider(db, tenantId, id);
  return row && row.enabled === 1 ? row : undefined;
}
