import type { Selectable } from 'kysely';
import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { SamlProvidersTable } from '../../db/tables/saml.js';
import { conflict, notFound, validationFailed, type ErrorDetail } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { XmlFileError } from '../../lib/xml.js';
import { recordAudit } from '../audit/audit.service.js';
import { resolveProjectRules } from '../sso/sso-rules.service.js';
import type { GrantableRole, ProjectRule, RoleRule } from '../sso/sso.schemas.js';
import { normalizeCertificate, parseIdpMetadata, type IdpMetadata } from './saml-metadata.js';
import * as repo from './saml.repository.js';
import type { CreateSamlProviderBody, SamlProvider, UpdateSamlProviderBody } from './saml.schemas.js';

/**
 * SAML 2.0 identity providers (issue 44; docs/api-decisions.md#saml-20-sign-in): managed by admins, tenant-wide,
 * like the OpenID Connect ones. Nothing here is secret: the IdP's certificate is public, and AuthnRequests are not
 * signed (so there is no SP key to seal).
 */

type Row = Selectable<SamlProvidersTable>;

/** Our addresses for a provider, on the address the browser reached. The metadata address is our entity id. */
export const spAddresses = (origin: string, providerId: string) => {
  const base = `${origin}/api/auth/saml/${providerId}`;
  return { spEntityId: `${base}/metadata`, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata` };
};

export function toProvider(row: Row, origin: string): SamlProvider {
  return {
    id: row.id,
    name: row.name,
    idpEntityId: row.idp_entity_id,
    ssoUrl: row.sso_url,
    idpCertificate: row.idp_cert,
    enabled: row.enabled === 1,
    allowIdpInitiated: row.allow_idp_initiated === 1,
    justInTime: row.just_in_time === 1,
    defaultRole: row.default_role,
    emailAttribute: row.email_attribute,
    nameAttribute: row.name_attribute,
    groupsAttribute: row.groups_attribute,
    roleRules: parseJson<RoleRule[]>(row.role_rules, []),
    projectRules: parseJson<ProjectRule[]>(row.project_rules, []),
    ...spAddresses(origin, row.id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const clean = (s: string) => s.trim();

/** The IdP's fields: those sent, else those its metadata gives; each checked. */
function idpFields(
  input: UpdateSamlProviderBody,
  errors: ErrorDetail[],
): { idpEntityId?: string; ssoUrl?: string; idpCert?: string } {
  let meta: IdpMetadata = {};
  if (input.idpMetadataXml !== undefined) {
    try {
      meta = parseIdpMetadata(input.idpMetadataXml);
    } catch (err) {
      if (!(err instanceof XmlFileError)) throw err;
      errors.push({ path: '/idpMetadataXml', message: err.message });
    }
    if (errors.length === 0 && meta.entityId === undefined) {
      errors.push({
        path: '/idpMetadataXml',
        message: 'the metadata names no IDPSSODescriptor with an entityID',
      });
    }
  }
  const entityId = input.idpEntityId ?? meta.entityId;
  const ssoUrl = input.ssoUrl ?? meta.ssoUrl;
  const cert = input.idpCertificate ?? meta.certificate;
  if (entityId !== undefined && clean(entityId) === '') {
    errors.push({ path: '/idpEntityId', message: 'idpEntityId must not be blank' });
  }
  if (ssoUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(ssoUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
      errors.push({ path: '/ssoUrl', message: 'ssoUrl must be an absolute https URL without credentials' });
    }
  }
  const pem = cert === undefined ? undefined : normalizeCertificate(cert);
  if (cert !== undefined && pem === undefined) {
    errors.push({
      path: input.idpCertificate !== undefined ? '/idpCertificate' : '/idpMetadataXml',
      message: 'the IdP certificate must be an X.509 certificate (PEM)',
    });
  }
  return { idpEntityId: entityId?.trim(), ssoUrl, idpCert: pem };
}

export async function listProviders(db: Db, tenantId: string, origin: string): Promise<SamlProvider[]> {
  return (await repo.listProviders(db, tenantId)).map((r) => toProvider(r, origin));
}

async function findRow(db: Db, tenantId: string, id: string): Promise<Row> {
  const row = await repo.findProvider(db, tenantId, id);
  if (!row) throw notFound(`SAML provider ${id} not found`);
  return row;
}

export async function getProvider(
  db: Db,
  tenantId: string,
  id: string,
  origin: string,
): Promise<SamlProvider> {
  return toProvider(await findRow(db, tenantId, id), origin);
}

const nameTaken = (name: string) => conflict(`a SAML provider named "${name}" exists`);

/** Creates a provider (admin); off until `enabled`. Audited as `saml.provider_create`. */
export async function createProvider(
  db: Db,
  actor: Actor,
  input: CreateSamlProviderBody,
  origin: string,
): Promise<SamlProvider> {
  const errors: ErrorDetail[] = [];
  if (clean(input.name) === '') errors.push({ path: '/name', message: 'name must not be blank' });
  const idp = idpFields(input, errors);
  if (errors.length === 0) {
    if (!idp.idpEntityId)
      errors.push({ path: '/idpEntityId', message: 'idpEntityId is required (or idpMetadataXml)' });
    if (!idp.ssoUrl) errors.push({ path: '/ssoUrl', message: 'ssoUrl is required (or idpMetadataXml)' });
    if (!idp.idpCert) {
      errors.push({ path: '/idpCertificate', message: 'idpCertificate is required (or idpMetadataXml)' });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  const projectRules = await resolveProjectRules(db, actor.tenantId, input.projectRules ?? []);
  const at = nowIso();
  const name = clean(input.name);
  const row: Row = {
    id: newId(16),
    tenant_id: actor.tenantId,
    name,
    name_norm: name.toLowerCase(),
    idp_entity_id: idp.idpEntityId!,
    sso_url: idp.ssoUrl!,
    idp_cert: idp.idpCert!,
    enabled: input.enabled ? 1 : 0,
    allow_idp_initiated: input.allowIdpInitiated ? 1 : 0,
    just_in_time: input.justInTime ? 1 : 0,
    default_role: input.defaultRole ?? 'test-runner',
    email_attribute: input.emailAttribute ?? 'email',
    name_attribute: input.nameAttribute ?? 'name',
    groups_attribute: input.groupsAttribute ?? 'groups',
    role_rules: JSON.stringify(input.roleRules ?? []),
    project_rules: JSON.stringify(projectRules),
    created_at: at,
    updated_at: at,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await repo.insertProvider(trx, row);
      await recordAudit(trx, actor, 'saml.provider_create', {
        provider_id: row.id,
        provider_name: name,
        idp_entity_id: row.idp_entity_id,
        sso_url: row.sso_url,
        enabled: row.enabled === 1,
        allow_idp_initiated: row.allow_idp_initiated === 1,
        just_in_time: row.just_in_time === 1,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name);
    throw err;
  }
  return toProvider(row, origin);
}

/** Changes the given fields (admin). Audited as `saml.provider_update` with what changed. */
export async function updateProvider(
  db: Db,
  actor: Actor,
  id: string,
  input: UpdateSamlProviderBody,
  origin: string,
): Promise<SamlProvider> {
  const row = await findRow(db, actor.tenantId, id);
  const errors: ErrorDetail[] = [];
  if (input.name !== undefined && clean(input.name) === '') {
    errors.push({ path: '/name', message: 'name must not be blank' });
  }
  const idp = idpFields(input, errors);
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
    changed[field] = key === 'idp_cert' ? true : value;
  };
  const bit = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);
  const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));
  const name = input.name === undefined ? undefined : clean(input.name);
  set('name', name, 'name');
  if (name !== undefined) values.name_norm = name.toLowerCase();
  set('idp_entity_id', idp.idpEntityId, 'idp_entity_id');
  set('sso_url', idp.ssoUrl, 'sso_url');
  set('idp_cert', idp.idpCert, 'idp_cert_changed');
  set('enabled', bit(input.enabled), 'enabled');
  set('allow_idp_initiated', bit(input.allowIdpInitiated), 'allow_idp_initiated');
  set('just_in_time', bit(input.justInTime), 'just_in_time');
  set('default_role', input.defaultRole as GrantableRole | undefined, 'default_role');
  set('email_attribute', input.emailAttribute, 'email_attribute');
  set('name_attribute', input.nameAttribute, 'name_attribute');
  set('groups_attribute', input.groupsAttribute, 'groups_attribute');
  set('role_rules', json(input.roleRules), 'role_rules');
  set('project_rules', json(projectRules), 'project_rules');
  if (Object.keys(values).length === 0) return toProvider(row, origin);
  values.updated_at = nowIso();
  try {
    await db.transaction().execute(async (trx) => {
      await repo.updateProvider(trx, actor.tenantId, id, values);
      await recordAudit(trx, actor, 'saml.provider_update', {
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

/** Deletes a provider, its identities, requests and assertions seen; people keep their accounts. Audited. */
export async function deleteProvider(db: Db, actor: Actor, id: string): Promise<void> {
  const row = await findRow(db, actor.tenantId, id);
  await db.transaction().execute(async (trx) => {
    await repo.deleteProvider(trx, actor.tenantId, id);
    await recordAudit(trx, actor, 'saml.provider_delete', {
      provider_id: id,
      provider_name: row.name,
      idp_entity_id: row.idp_entity_id,
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

/** A provider by id for its SP metadata (enabled or not: the IdP is set up before it is switched on). */
export const findProvider = (db: Db, tenantId: string, id: string) => repo.findProvider(db, tenantId, id);
