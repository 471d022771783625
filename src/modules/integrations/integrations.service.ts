import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { IntegrationsTable } from '../../db/tables/admin.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../auth/actor.js';
import {
  AppError,
  badRequest,
  conflict,
  notFound,
  type ErrorDetail,
  validationFailed,
} from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import { requireSecretKey } from '../../lib/secret-box.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit, type AuditMeta } from '../audit/audit.service.js';
import { resolveProject } from '../projects/projects.service.js';
import { credentialUrl, CUSTOM_CALLS_NOTHING, encryptCredential } from './credentials.js';
import * as repo from './integrations.repository.js';
import type {
  CreateIntegrationBody,
  Integration,
  IntegrationConfigInput,
  IntegrationType,
  LinkConfigInput,
  LinkProjectBody,
  ProjectIntegration,
  TestSettingsBody,
  UpdateIntegrationBody,
} from './integrations.schemas.js';
import { isHttpUrl, originOf } from '../../lib/urls.js';

// What the tracker-comment job (runs/tracker-comment.job.ts) needs of an integration: its credential opened, and
// the API base of its type.
export { decryptCredential, DEFAULT_API_URL } from './credentials.js';

type ConfigKey = keyof IntegrationConfigInput;
type LinkKey = keyof LinkConfigInput;

interface TypeRules {
  /** Integration settings the type takes; all required. */
  config: ConfigKey[];
  /** Settings the type also takes, optionally. */
  optional?: ConfigKey[];
  /** Per-project settings of a link; all required. */
  link: LinkKey[];
  token: 'required' | 'optional' | 'none';
}

/** What each tracker type is made of. */
const TYPES: Record<IntegrationType, TypeRules> = {
  // apiUrl: a self-hosted tracker's API (the comment-back of D24 calls it; runs/tracker-comment.adapters.ts).
  tracker_a: { config: ['account'], optional: ['apiUrl'], link: ['repo'], token: 'optional' },
  tracker_b: { config: ['url', 'email'], link: ['projectId', 'projectName'], token: 'required' },
  tracker_c: {
    config: ['organizationKey'],
    optional: ['apiUrl'],
    link: ['teamId', 'teamName'],
    token: 'optional',
  },
  custom: { config: ['newUrl', 'viewUrl'], link: [], token: 'none' },
};

/**
 * Audit meta names of the settings (docs/api-decisions.md#audit-events, integration.created): exactly the
 * contract's fields, so the optional apiUrl is not among them.
 */
const CONFIG_META: Partial<Record<ConfigKey, string>> = {
  account: 'account',
  url: 'url',
  email: 'email',
  organizationKey: 'organization_key',
  newUrl: 'new_url',
  viewUrl: 'view_url',
};

/** Audit meta names of the link settings (integration.project_linked). */
const LINK_META: Record<LinkKey, string> = {
  repo: 'tracker_a_repo',
  projectId: 'tracker_b_project_id',
  projectName: 'tracker_b_project_name',
  teamId: 'tracker_c_team_id',
  teamName: 'tracker_c_team_name',
};

const URL_FIELDS: ConfigKey[] = ['url', 'newUrl', 'viewUrl', 'apiUrl'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type StoredConfig = Partial<Record<ConfigKey, string>>;
type StoredLinkConfig = Partial<Record<LinkKey, string>>;

function validationError(errors: ErrorDetail[]): AppError {
  return validationFailed(errors);
}

function checkConfig(type: IntegrationType, config: StoredConfig): ErrorDetail[] {
  const rules = TYPES[type];
  const errors: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(config) as [ConfigKey, string | undefined][]) {
    if (value === undefined) continue;
    const takes = [...rules.config, ...(rules.optional ?? [])];
    if (!takes.includes(key)) {
      errors.push({
        path: `/config/${key}`,
        message: `${type} integrations take no "${key}"; they take ${takes.join(', ')}`,
      });
      continue;
    }
    if (value.trim() === '') errors.push({ path: `/config/${key}`, message: `"${key}" must not be empty` });
    if (URL_FIELDS.includes(key) && !isHttpUrl(value)) {
      errors.push({ path: `/config/${key}`, message: `"${key}" must be an absolute http(s) URL` });
    }
    if (key === 'email' && !EMAIL.test(value)) {
      errors.push({ path: `/config/${key}`, message: `"${value}" is not a valid e-mail address` });
    }
  }
  for (const key of rules.config) {
    if (config[key] === undefined) {
      errors.push({ path: `/config/${key}`, message: `${type} integrations need "config.${key}"` });
    }
  }
  return errors;
}

function toIntegration(
  row: Selectable<IntegrationsTable> & { linked_project_count: number | null },
): Integration {
  return {
    id: row.id,
    name: row.name,
    type: row.type as IntegrationType,
    config: parseJson<StoredConfig>(row.config, {}),
    hasToken: row.token_enc !== null,
    linkedProjectCount: Number(row.linked_project_count ?? 0),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function configMeta(config: StoredConfig): AuditMeta {
  const meta: AuditMeta = {};
  for (const [key, value] of Object.entries(config) as [ConfigKey, string][]) {
    const name = CONFIG_META[key];
    if (name) meta[name] = value;
  }
  return meta;
}

function linkMeta(config: StoredLinkConfig, prefix = ''): AuditMeta {
  const meta: AuditMeta = {};
  for (const [key, value] of Object.entries(config) as [LinkKey, string][])
    meta[prefix + LINK_META[key]] = value;
  return meta;
}

/** Encrypts a credential with the secret key every started server has (src/secret-key.ts). */
function sealToken(secretKey: string, token: string): string {
  return encryptCredential(requireSecretKey(secretKey), token);
}

async function uniqueName(db: Db, tenantId: string, name: string, exceptId?: string): Promise<void> {
  const clash = await repo.findIntegrationByName(db, tenantId, name);
  if (clash && clash.id !== exceptId) throw conflict(`an integration named "${name}" exists`);
}

/** Lists the tenant's integrations without their credentials (admin, D3). */
export async function listIntegrations(db: Db, tenantId: string): Promise<Integration[]> {
  return (await repo.listIntegrations(db, tenantId)).map(toIntegration);
}

export async function getIntegration(db: Db, tenantId: string, id: string): Promise<Integration> {
  const row = await repo.findIntegration(db, tenantId, id);
  if (!row) throw notFound(`integration "${id}" not found`);
  return toIntegration(row);
}

/** Creates an integration (admin, D3); the credential is stored encrypted; audit `integration.created` (D25). */
export async function createIntegration(
  db: Db,
  actor: Actor,
  input: CreateIntegrationBody,
  secretKey: string,
): Promise<{ id: string }> {
  const name = input.name.trim();
  if (!name) throw badRequest('name must not be blank', '/name');
  const config: StoredConfig = { ...input.config };
  const errors = checkConfig(input.type, config);
  const tokenRule = TYPES[input.type].token;
  if (tokenRule === 'none' && input.token !== undefined) {
    errors.push({ path: '/token', message: `${input.type} integrations take no token` });
  }
  if (tokenRule === 'required' && input.token === undefined) {
    errors.push({ path: '/token', message: `${input.type} integrations need a token` });
  }
  if (errors.length > 0) throw validationError(errors);
  const tokenEnc = input.token === undefined ? null : sealToken(secretKey, input.token);
  await uniqueName(db, actor.tenantId, name);
  const id = newId();
  const now = nowIso();
  try {
    await db.transaction().execute(async (trx) => {
      await repo.insertIntegration(trx, {
        id,
        tenant_id: actor.tenantId,
        name,
        type: input.type,
        config: JSON.stringify(config),
        token_enc: tokenEnc,
        created_by: actor.userId,
        created_at: now,
        updated_at: now,
      });
      await recordAudit(trx, actor, 'integration.created', {
        integration_id: id,
        integration_title: name,
        integration_type: input.type,
        ...configMeta(config),
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`an integration named "${name}" exists`);
    throw err;
  }
  return { id };
}

/**
 * The token was given for one tracker: settings that move the address it is sent to onto another origin (scheme,
 * host, port) take it along only when the same request sends it again (the same or a new one, or null to remove it
 * where the type allows none). A path change within the origin keeps it; an integration without one moves freely.
 */
function checkTokenFollows(
  type: IntegrationType,
  hasToken: boolean,
  before: StoredConfig,
  after: StoredConfig,
  input: UpdateIntegrationBody,
  errors: ErrorDetail[],
): void {
  if (!hasToken || input.token !== undefined) return;
  const from = originOf(credentialUrl(type, before) ?? '');
  const to = originOf(credentialUrl(type, after) ?? '');
  if (to === undefined || from === to) return;
  const field = type === 'tracker_b' ? 'url' : 'apiUrl';
  const again =
    TYPES[type].token === 'required'
      ? 'the same or a new one'
      : 'the same or a new one, or null to remove it';
  errors.push({
    path: '/token',
    message: `config.${field} moves the tracker to another origin (${from ?? 'none'} → ${to}): send the token again (${again}); it is not sent to another origin unasked`,
  });
}

/**
 * Updates name, settings or credential; only the given fields change (`token: null` removes it). Audit
 * `integration.updated` with only the changed settings (D25); nothing changed = no event.
 */
export async function updateIntegration(
  db: Db,
  actor: Actor,
  id: string,
  input: UpdateIntegrationBody,
  secretKey: string,
): Promise<Integration> {
  const row = await repo.findIntegration(db, actor.tenantId, id);
  if (!row) throw notFound(`integration "${id}" not found`);
  const type = row.type as IntegrationType;
  const before = parseJson<StoredConfig>(row.config, {});
  const after: StoredConfig = { ...before, ...input.config };
  const errors = checkConfig(type, after);
  if (input.token !== undefined && input.token !== null && TYPES[type].token === 'none') {
    errors.push({ path: '/token', message: `${type} integrations take no token` });
  }
  if (input.token === null && TYPES[type].token === 'required') {
    errors.push({ path: '/token', message: `${type} integrations need a token; send a new one instead` });
  }
  checkTokenFollows(type, row.token_enc !== null, before, after, input, errors);
  if (errors.length > 0) throw validationError(errors);
  const name = input.name === undefined ? row.name : input.name.trim();
  if (!name) throw badRequest('name must not be blank', '/name');
  if (name !== row.name) await uniqueName(db, actor.tenantId, name, id);
  const changed: StoredConfig = {};
  for (const key of Object.keys(after) as ConfigKey[])
    if (after[key] !== before[key]) changed[key] = after[key];
  const values: Parameters<typeof repo.updateIntegration>[3] = {};
  if (name !== row.name) values.name = name;
  if (Object.keys(changed).length > 0) values.config = JSON.stringify(after);
  if (input.token === null && row.token_enc !== null) values.token_enc = null;
  if (typeof input.token === 'string') values.token_enc = sealToken(secretKey, input.token);
  if (Object.keys(values).length > 0) {
    try {
      await db.transaction().execute(async (trx) => {
        await repo.updateIntegration(trx, actor.tenantId, id, { ...values, updated_at: nowIso() });
        await recordAudit(trx, actor, 'integration.updated', {
          integration_id: id,
          integration_title: name,
          integration_type: type,
          ...configMeta(changed),
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`an integration named "${name}" exists`);
      throw err;
    }
  }
  return getIntegration(db, actor.tenantId, id);
}

/** What a connection test of typed settings sends: the settings checked as a save would, and the credential. */
export interface TestSettings {
  type: Exclude<IntegrationType, 'custom'>;
  config: Record<string, string>;
  /** The typed credential, else the edited integration's stored one (sealed); null when there is none. */
  token: { plain: string } | { sealed: string } | null;
}

/**
 * Checks settings typed in the integration form for a connection test, nothing stored
 * (docs/api-decisions.md#integration-connection-test): the same rules as create, or as an update of
 * `integrationId` (its settings under the typed ones; its credential when none is typed, never to another
 * origin unasked). 400 for a custom integration or a body reference that is not one of the tenant's.
 */
export async function settingsToTest(
  db: Db,
  tenantId: string,
  input: TestSettingsBody,
): Promise<TestSettings> {
  if (input.type === 'custom') throw badRequest(CUSTOM_CALLS_NOTHING, '/type');
  const id = input.integrationId;
  const row = id === undefined ? undefined : await repo.findIntegration(db, tenantId, id);
  if (id !== undefined && !row) throw badRequest(`integration "${id}" not found`, '/integrationId');
  if (row && row.type !== input.type)
    throw badRequest(`integration "${row.id}" is a ${row.type} integration, not ${input.type}`, '/type');
  const before = row ? parseJson<StoredConfig>(row.config, {}) : {};
  const after: StoredConfig = { ...before, ...input.config };
  const errors = checkConfig(input.type, after);
  if (row)
    checkTokenFollows(input.type, row.token_enc !== null, before, after, { token: input.token }, errors);
  if (errors.length > 0) throw validationError(errors);
  const token =
    input.token !== undefined ? { plain: input.token } : row?.token_enc ? { sealed: row.token_enc } : null;
  return { type: input.type, config: after as Record<string, string>, token };
}

/** Deletes an integration and its project links; audit `integration.deleted` with linked_project_count (D25). */
export async function deleteIntegration(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await repo.findIntegration(trx, actor.tenantId, id);
    if (!row) throw notFound(`integration "${id}" not found`);
    await repo.removeIntegration(trx, actor.tenantId, id);
    await recordAudit(trx, actor, 'integration.deleted', {
      integration_id: id,
      integration_title: row.name,
      integration_type: row.type,
      linked_project_count: Number(row.linked_project_count ?? 0),
    });
  });
}

/** The integrations linked to a project, with their per-project settings (members may read). */
export async function listProjectIntegrations(
  db: Db,
  actor: Actor,
  projectRef: string,
): Promise<ProjectIntegration[]> {
  const project = await resolveProject(db, actor, projectRef);
  return (await repo.listProjectLinks(db, actor.tenantId, project.id)).map((r) => ({
    integrationId: r.integration_id,
    name: r.name,
    type: r.type as IntegrationType,
    config: parseJson<StoredLinkConfig>(r.link_config, {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}

/**
 * Links a project to an integration (admin). A project has one link per integration type, so linking
 * another integration of that type, or the same one with new settings, replaces the link; the event then
 * carries the earlier values with a `previous_` prefix (D25, docs/api-decisions.md#audit-events).
 */
export async function linkProject(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: LinkProjectBody,
): Promise<ProjectIntegration> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const integration = await repo.findIntegration(db, actor.tenantId, input.integrationId);
  if (!integration) throw badRequest(`integration "${input.integrationId}" not found`, '/integrationId');
  const type = integration.type as IntegrationType;
  const rules = TYPES[type];
  const config: StoredLinkConfig = { ...input.config };
  const errors: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(config) as [LinkKey, string][]) {
    if (!rules.link.includes(key)) {
      errors.push({
        path: `/config/${key}`,
        message:
          rules.link.length > 0
            ? `${type} links take no "${key}"; they take ${rules.link.join(', ')}`
            : `${type} links take no settings`,
      });
    } else if (value.trim() === '') {
      errors.push({ path: `/config/${key}`, message: `"${key}" must not be empty` });
    }
  }
  for (const key of rules.link) {
    if (config[key] === undefined)
      errors.push({ path: `/config/${key}`, message: `${type} links need "config.${key}"` });
  }
  if (errors.length > 0) throw validationError(errors);
  const now = nowIso();
  await db.transaction().execute(async (trx) => {
    const previous = await repo.findLinkByType(trx, actor.tenantId, project.id, type);
    await repo.upsertLink(trx, {
      tenant_id: actor.tenantId,
      project_id: project.id,
      integration_id: integration.id,
      type,
      config: JSON.stringify(config),
      created_at: now,
      updated_at: now,
    });
    const meta: AuditMeta = {
      integration_id: integration.id,
      integration_title: integration.name,
      integration_type: type,
      project_id: project.id,
      project_code: project.code,
      project_title: project.title,
      ...linkMeta(config),
    };
    if (previous) {
      Object.assign(
        meta,
        { previous_integration_id: previous.integration_id, previous_integration_title: previous.name },
        linkMeta(parseJson<StoredLinkConfig>(previous.link_config, {}), 'previous_'),
      );
    }
    await recordAudit(trx, actor, 'integration.project_linked', meta);
  });
  const links = await listProjectIntegrations(db, actor, project.id);
  return links.find((l) => l.integrationId === integration.id)!;
}

/** Unlinks a project from an integration (admin); 404 when they are not linked; audit `integration.project_unlinked`. */
export async function unlinkProject(
  db: Db,
  actor: Actor,
  projectRef: string,
  integrationId: string,
): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  await db.transaction().execute(async (trx) => {
    const link = await repo.findLink(trx, actor.tenantId, project.id, integrationId);
    if (!link) throw notFound(`integration "${integrationId}" is not linked to project ${project.code}`);
    await repo.removeLink(trx, actor.tenantId, project.id, integrationId);
    await recordAudit(trx, actor, 'integration.project_unlinked', {
      integration_id: link.integration_id,
      integration_title: link.name,
      integration_type: link.type,
      project_id: project.id,
      project_code: project.code,
      project_title: project.title,
      ...linkMeta(parseJson<StoredLinkConfig>(link.link_config, {})),
    });
  });
}

/**
 * D24: the integration when it is linked to the project, else undefined. `config` merges the
 * integration's settings with the link's (e.g. `{account, repo}`) and never holds the credential.
 */
export async function getLinkedIntegration(
  db: Db,
  tenantId: string,
  projectId: string,
  integrationId: string,
): Promise<{ id: string; name: string; type: string; config: Record<string, string> } | undefined> {
  const link = await repo.findLink(db, tenantId, projectId, integrationId);
  if (!link) return undefined;
  return {
    id: link.integration_id,
    name: link.name,
    type: link.type,
    config: {
      ...parseJson<Record<string, string>>(link.integration_config, {}),
      ...parseJson<Record<string, string>>(link.link_config, {}),
    },
  };
}
