import type { Db } from '../../db/create-db.js';
import { AppError, badRequest, conflict, notFound } from '../../errors.js';
import { nowIso } from '../../lib/time.js';
import { parseJson } from '../../lib/json.js';
import * as repo from './tenants.repository.js';
import { isUniqueViolation } from '../../db/dialect.js';

export const DEFAULT_TENANT_ID = 'default';
export const FEATURES = ['advanced-auth'] as const;
export type Feature = (typeof FEATURES)[number];

export interface Tenant {
  id: string;
  name: string;
  host: string | null;
  suspended: boolean;
  suspendedAt: string | null;
  features: string[];
  /** New members join every project, those made later too (an invitation may still name projects). */
  membersJoinAllProjects: boolean;
  /** Who signs in with a password: everyone, or only the owner (break-glass; the rest through a provider). */
  passwordSignIn: PasswordSignIn;
  createdAt: string;
}

export const PASSWORD_SIGN_IN = ['everyone', 'owners'] as const;
export type PasswordSignIn = (typeof PASSWORD_SIGN_IN)[number];

export function toTenant(row: repo.TenantRow): Tenant {
  return {
    id: row.id,
    name: row.name,
    host: row.host,
    suspended: row.suspended_at !== null,
    suspendedAt: row.suspended_at,
    features: parseJson<string[]>(row.features, []),
    membersJoinAllProjects: row.members_join_all_projects === 1,
    passwordSignIn: row.password_sign_in === 'owners' ? 'owners' : 'everyone',
    createdAt: row.created_at,
  };
}

const TENANT_ID = /^[a-z][a-z0-9-]{1,31}$/;
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** D1: a tenant's host is matched against the request's host name, without port, in lower case. */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (!HOST_NAME.test(lower))
    throw badRequest(`"${host}" is not a host name (e.g. acme.casebook.example, no scheme or port)`, '/host');
  return lower;
}

/** D6: a new tenant has every feature on; the command line can turn them off. */
export async function createTenant(
  db: Db,
  input: { id: string; name: string; host?: string | null },
): Promise<Tenant> {
  if (!TENANT_ID.test(input.id)) {
    throw badRequest(
      'tenant id must be 2-32 lower-case letters, digits or dashes, starting with a letter',
      '/id',
    );
  }
  if (!input.name.trim()) throw badRequest('tenant name must not be empty', '/name');
  const now = nowIso();
  const row: repo.TenantRow = {
    id: input.id,
    name: input.name.trim(),
    host: input.host == null ? null : hostName(input.host),
    suspended_at: null,
    features: JSON.stringify([...FEATURES]),
    members_join_all_projects: 0,
    password_sign_in: 'everyone',
    created_at: now,
    updated_at: now,
  };
  try {
    await repo.insertTenant(db, row);
  } catch (err) {
    if (isUniqueViolation(err))
      throw conflict(`a tenant with id "${input.id}" or host "${input.host}" exists`);
    throw err;
  }
  return toTenant(row);
}

export async function getTenant(db: Db, id: string): Promise<Tenant> {
  const row = await repo.findTenant(db, id);
  if (!row) throw notFound(`tenant "${id}" not found`);
  return toTenant(row);
}

export const listTenants = async (db: Db): Promise<Tenant[]> => (await repo.listTenants(db)).map(toTenant);

/** D1: in multi-tenant mode the host name picks the tenant. */
export async function findTenantIdByHost(db: Db, host: string): Promise<string | undefined> {
  return (await repo.findTenantByHost(db, host.toLowerCase()))?.id;
}

/** D1: the host name that picks the tenant in multi-tenant mode (the default tenant has none at first). */
export async function setHost(db: Db, id: string, host: string): Promise<Tenant> {
  const name = hostName(host);
  await getTenant(db, id);
  try {
    await repo.updateTenant(db, id, { host: name, updated_at: nowIso() });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`another tenant has host "${name}"`);
    throw err;
  }
  return getTenant(db, id);
}

/** D6: a suspended tenant gets 403 on every authenticated request. */
export async function setSuspended(db: Db, id: string, suspended: boolean): Promise<Tenant> {
  await getTenant(db, id);
  const now = nowIso();
  await repo.updateTenant(db, id, { suspended_at: suspended ? now : null, updated_at: now });
  return getTenant(db, id);
}

export async function setFeature(db: Db, id: string, feature: string, on: boolean): Promise<Tenant> {
  if (!FEATURES.includes(feature as Feature)) {
    throw badRequest(`unknown feature "${feature}"; known: ${FEATURES.join(', ')}`);
  }
  const tenant = await getTenant(db, id);
  const features = new Set(tenant.features);
  if (on) features.add(feature);
  else features.delete(feature);
  await repo.updateTenant(db, id, { features: JSON.stringify([...features].sort()), updated_at: nowIso() });
  return getTenant(db, id);
}

/** Whether new members join every project by default (admin setting; invitations say so unless they name projects). */
export async function setMembersJoinAllProjects(db: Db, id: string, on: boolean): Promise<Tenant> {
  await repo.updateTenant(db, id, { members_join_all_projects: on ? 1 : 0, updated_at: nowIso() });
  return getTenant(db, id);
}

/** Who signs in with a password (the sign-in policy; its rules are the OIDC module's). */
export async function setPasswordSignIn(db: Db, id: string, value: PasswordSignIn): Promise<Tenant> {
  await repo.updateTenant(db, id, { password_sign_in: value, updated_at: nowIso() });
  return getTenant(db, id);
}

export async function ensureDefaultTenant(db: Db): Promise<{ tenant: Tenant; created: boolean }> {
  const row = await repo.findTenant(db, DEFAULT_TENANT_ID);
  if (row) return { tenant: toTenant(row), created: false };
  try {
    return { tenant: await createTenant(db, { id: DEFAULT_TENANT_ID, name: 'Default' }), created: true };
  } catch (err) {
    // Another process created it first.
    if (err instanceof AppError && err.code === 'CONFLICT')
      return { tenant: await getTenant(db, DEFAULT_TENANT_ID), created: false };
    throw err;
  }
}
