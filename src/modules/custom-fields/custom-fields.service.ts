import type { Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { CustomFieldsTable } from '../../db/schema.js';
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
import { sanitizeHtmlField } from '../../lib/html.js';
import { newId } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { recordAudit } from '../audit/audit.service.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './custom-fields.repository.js';
import type {
  CreateCustomFieldBody,
  CustomField,
  CustomFieldOption,
  CustomFieldUsage,
  CustomFieldType,
  StoredCustomFieldValue,
  TcaseCustomFieldInput,
  TcaseCustomFieldValue,
  UpdateCustomFieldBody,
} from './custom-fields.schemas.js';

type Row = Selectable<CustomFieldsTable>;

export const SYSTEM_NAME = /^[a-z][a-z0-9_]{0,63}$/;
export const NAME_MAX = 255;
export const OPTION_MAX = 255;
export const OPTIONS_MAX = 100;
export const TEXT_VALUE_MAX = 1024;

export function toCustomField(row: Row): CustomField {
  const field: CustomField = {
    id: row.id,
    type: row.type,
    systemName: row.system_name,
    name: row.name,
    required: row.required === 1,
    enabled: row.enabled === 1,
    options: row.options === null ? null : parseJson<CustomFieldOption[]>(row.options, []),
    pos: row.pos,
    allowAllProjects: row.allow_all_projects === 1,
    allowedProjectIds: row.allow_all_projects === 1 ? null : parseJson<string[]>(row.allowed_project_ids, []),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.default_value !== null) field.defaultValue = row.default_value;
  return field;
}

const availableIn = (field: CustomField, projectId: string) =>
  field.allowAllProjects || (field.allowedProjectIds ?? []).includes(projectId);

/**
 * Checks one value against a field's type and returns what is stored: a dropdown takes one of its option
 * values (an option id is accepted and stored as its value), a checkbox "true" or "false", richtext is
 * sanitised (D22). Throws 400 at `path` naming the field.
 */
function checkValue(field: CustomField, value: string, path: string): string {
  const name = field.systemName;
  switch (field.type as CustomFieldType) {
    case 'dropdown': {
      const options = field.options ?? [];
      const option = options.find((o) => o.value === value) ?? options.find((o) => o.id === value);
      if (!option) {
        throw badRequest(
          `custom field "${name}" takes one of ${options.map((o) => JSON.stringify(o.value)).join(', ')}; got ${JSON.stringify(value)}`,
          path,
        );
      }
      return option.value;
    }
    case 'checkbox':
      if (value !== 'true' && value !== 'false') {
        throw badRequest(`custom field "${name}" is a checkbox: its value is "true" or "false"`, path);
      }
      return value;
    case 'richtext':
      return sanitizeHtmlField(value);
    default:
      if (value.length > TEXT_VALUE_MAX) {
        throw badRequest(`custom field "${name}" takes at most ${TEXT_VALUE_MAX} characters`, path);
      }
      return value;
  }
}

/**
 * True when a stored value was saved under `field`, the current field of its system name: it carries that
 * field's id, or no id at all (stored before ids were kept; migration 0015 removed those of earlier fields).
 */
const savedUnder = (field: CustomField | undefined, value: StoredCustomFieldValue): field is CustomField =>
  field !== undefined && (value.fieldId ?? field.id) === field.id;

/**
 * The values of a version that belong to the tenant's current fields, as the API shows them
 * (`{systemName: {value, isDefault}}`). A value saved under a field since deleted is never shown under a later
 * field of the same name: a text saved as text is never read as rich text.
 */
export function currentValues(
  fields: Map<string, CustomField>,
  stored: Record<string, StoredCustomFieldValue>,
): Record<string, TcaseCustomFieldValue> {
  const out: Record<string, TcaseCustomFieldValue> = {};
  for (const [name, v] of Object.entries(stored)) {
    if (savedUnder(fields.get(name), v)) out[name] = { value: v.value, isDefault: v.isDefault };
  }
  return out;
}

/**
 * Validates a test case's custom-field values and returns them as stored, `{systemName: {value, isDefault,
 * fieldId}}`.
 * Every named field must exist, be enabled and be available in the project; `isDefault: true` takes the
 * field's default (400 if it has none); a value must fit the field's type; "" or no value clears it.
 * On create (`previous` undefined) every other available field with a default gets it (isDefault true) and a
 * required field left without a value is a 400. On update only the named fields change (clearing a required
 * one is a 400); values of fields that no longer exist are dropped. Every 400 names the field.
 */
export async function normalizeTcaseCustomFields(
  db: Db,
  tenantId: string,
  projectId: string,
  input: Record<string, TcaseCustomFieldInput> | undefined,
  previous?: Record<string, StoredCustomFieldValue>,
  /** The tenant's fields (listFieldsBySystemName) when the caller read them already: an import, once a chunk. */
  known?: Map<string, CustomField>,
): Promise<Record<string, StoredCustomFieldValue>> {
  const fields = known ?? (await listFieldsBySystemName(db, tenantId));
  const out: Record<string, StoredCustomFieldValue> = {};
  for (const [name, value] of Object.entries(previous ?? {})) {
    const field = fields.get(name);
    if (savedUnder(field, value))
      out[name] = { value: value.value, isDefault: value.isDefault, fieldId: field.id };
  }
  for (const [name, given] of Object.entries(input ?? {})) {
    const path = `/customFields/${name}`;
    const field = fields.get(name);
    if (!field) throw badRequest(`unknown custom field "${name}"`, path);
    if (!field.enabled) throw badRequest(`custom field "${name}" is disabled`, path);
    if (!availableIn(field, projectId))
      throw badRequest(`custom field "${name}" is not available in this project`, path);
    if (given.isDefault) {
      if (field.defaultValue === undefined)
        throw badRequest(`custom field "${name}" has no default value`, path);
      out[name] = { value: field.defaultValue, isDefault: true, fieldId: field.id };
      continue;
    }
    const raw = given.value ?? '';
    const value = raw === '' ? '' : checkValue(field, raw, path);
    if (value === '') {
      if (field.required) throw badRequest(`custom field "${name}" is required`, path);
      delete out[name];
    } else {
      out[name] = { value, isDefault: false, fieldId: field.id };
    }
  }
  if (previous === undefined) {
    for (const field of fields.values()) {
      if (!field.enabled || !availableIn(field, projectId) || out[field.systemName]) continue;
      if (field.defaultValue !== undefined) {
        out[field.systemName] = { value: field.defaultValue, isDefault: true, fieldId: field.id };
      } else if (field.required) {
        throw badRequest(
          `custom field "${field.systemName}" is required`,
          `/customFields/${field.systemName}`,
        );
      }
    }
  }
  return out;
}

/** Every custom field of the tenant (enabled or not), keyed by system name: for `cf_<systemName>` filters. */
export async function listFieldsBySystemName(db: Db, tenantId: string): Promise<Map<string, CustomField>> {
  const rows = await repo.listFields(db, tenantId);
  return new Map(rows.map((r) => [r.system_name, toCustomField(r)]));
}

/** The custom fields available in a project (allowed for all projects or for this one), enabled or not, by position. */
export async function listProjectCustomFields(
  db: Db,
  actor: Actor,
  projectRef: string,
): Promise<CustomField[]> {
  const project = await resolveProject(db, actor, projectRef);
  const rows = await repo.listFields(db, actor.tenantId);
  return rows.map(toCustomField).filter((f) => availableIn(f, project.id));
}

/** Every custom field of the tenant, by position (admin, D3). */
export async function listCustomFields(db: Db, actor: Actor): Promise<CustomField[]> {
  return (await repo.listFields(db, actor.tenantId)).map(toCustomField);
}

export async function getCustomField(db: Db, actor: Actor, id: string): Promise<CustomField> {
  const row = await repo.findField(db, actor.tenantId, id);
  if (!row) throw notFound(`custom field "${id}" not found`);
  return toCustomField(row);
}

function fail(errors: ErrorDetail[]): void {
  if (errors.length > 0) throw validationFailed(errors);
}

function checkName(name: string, errors: ErrorDetail[]): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > NAME_MAX)
    errors.push({ path: '/name', message: `name must be 1-${NAME_MAX} characters` });
  return trimmed;
}

/** Builds the option list: given ids must be current options; new options get fresh string ids. */
function buildOptions(
  type: string,
  given: { id?: string; value: string }[] | undefined,
  current: CustomFieldOption[] | null,
  errors: ErrorDetail[],
): CustomFieldOption[] | null {
  if (type !== 'dropdown') {
    if (given !== undefined) errors.push({ path: '/options', message: 'only dropdown fields have options' });
    return null;
  }
  if (given === undefined) {
    if (current === null) errors.push({ path: '/options', message: 'a dropdown field needs options' });
    return current;
  }
  if (given.length === 0 || given.length > OPTIONS_MAX) {
    errors.push({ path: '/options', message: `a dropdown field needs 1-${OPTIONS_MAX} options` });
  }
  const seenValues = new Set<string>();
  const seenIds = new Set<string>();
  const known = new Set((current ?? []).map((o) => o.id));
  return given.map((o, i) => {
    const value = o.value.trim();
    if (value === '' || value.length > OPTION_MAX) {
      errors.push({
        path: `/options/${i}/value`,
        message: `option values must be 1-${OPTION_MAX} characters`,
      });
    } else if (seenValues.has(value)) {
      errors.push({ path: `/options/${i}/value`, message: `option value "${value}" is given twice` });
    }
    seenValues.add(value);
    if (o.id !== undefined && (!known.has(o.id) || seenIds.has(o.id))) {
      errors.push({
        path: `/options/${i}/id`,
        message: `option id "${o.id}" is not an option of this field`,
      });
    }
    if (o.id !== undefined) seenIds.add(o.id);
    return { id: o.id ?? newId(), value };
  });
}

/** Checks a default value against the field's type and options; "" or null means no default. */
function buildDefault(
  type: string,
  options: CustomFieldOption[] | null,
  value: string | null | undefined,
  errors: ErrorDetail[],
): string | null {
  if (value === null || value === undefined || value === '') return null;
  const shell = { systemName: 'defaultValue', type, options } as CustomField;
  try {
    const stored = checkValue(shell, value, '/defaultValue');
    return stored === '' ? null : stored;
  } catch (err) {
    const message = (err as Error).message.replace('custom field "defaultValue"', 'defaultValue: the field');
    errors.push({ path: '/defaultValue', message });
    return null;
  }
}

/** Resolves project ids or codes of the tenant to ids; an unknown one is a 400 naming it. */
async function resolveProjectIds(
  db: Db,
  actor: Actor,
  refs: string[],
  errors: ErrorDetail[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, ref] of refs.entries()) {
    try {
      const id = (await resolveProject(db, actor, ref)).id;
      if (!ids.includes(id)) ids.push(id);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
      errors.push({ path: `/allowedProjectIds/${i}`, message: `project "${ref}" not found` });
    }
  }
  return ids;
}

/** Settles availability: a list of projects implies "not all projects"; contradicting both is a 400. */
function availability(
  allowAll: boolean | undefined,
  ids: string[] | null | undefined,
  current: { allowAll: boolean; ids: string[] | null },
  errors: ErrorDetail[],
): { allowAll: boolean; ids: string[] | null } {
  if (allowAll === true && Array.isArray(ids)) {
    errors.push({ path: '/allowedProjectIds', message: 'allowedProjectIds needs allowAllProjects false' });
  }
  if (allowAll === true) return { allowAll: true, ids: null };
  if (Array.isArray(ids)) return { allowAll: false, ids };
  if (allowAll === false) return { allowAll: false, ids: current.ids ?? [] };
  if (ids === null) return { allowAll: current.allowAll, ids: current.allowAll ? null : [] };
  return current;
}

const systemNameTaken = (name: string) => conflict(`a custom field with the system name "${name}" exists`);

/** Creates a tenant-wide custom field (admin, D3); system names are lower-case identifiers, unique (409). */
export async function createCustomField(
  db: Db,
  actor: Actor,
  input: CreateCustomFieldBody,
): Promise<{ id: string }> {
  const errors: ErrorDetail[] = [];
  if (!SYSTEM_NAME.test(input.systemName)) {
    errors.push({
      path: '/systemName',
      message: 'systemName must be a lower-case identifier: a letter, then letters, digits or _ (at most 64)',
    });
  }
  const name = checkName(input.name, errors);
  const options = buildOptions(input.type, input.options, null, errors);
  if (input.options?.some((o) => o.id !== undefined)) {
    errors.push({ path: '/options', message: 'new options take no id' });
  }
  const defaultValue = buildDefault(input.type, options, input.defaultValue, errors);
  const allowedRefs = Array.isArray(input.allowedProjectIds)
    ? await resolveProjectIds(db, actor, input.allowedProjectIds, errors)
    : input.allowedProjectIds;
  const avail = availability(input.allowAllProjects, allowedRefs, { allowAll: true, ids: null }, errors);
  fail(errors);
  if (await repo.findBySystemName(db, actor.tenantId, input.systemName))
    throw systemNameTaken(input.systemName);
  const id = newId();
  const at = nowIso();
  try {
    await repo.insertField(db, {
      id,
      tenant_id: actor.tenantId,
      type: input.type,
      system_name: input.systemName,
      name,
      required: input.required ? 1 : 0,
      enabled: input.enabled === false ? 0 : 1,
      options: options === null ? null : JSON.stringify(options),
      default_value: defaultValue,
      pos: await repo.nextPos(db, actor.tenantId),
      allow_all_projects: avail.allowAll ? 1 : 0,
      allowed_project_ids: avail.allowAll ? null : JSON.stringify(avail.ids ?? []),
      created_at: at,
      updated_at: at,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw systemNameTaken(input.systemName);
    throw err;
  }
  return { id };
}

/**
 * Changes a custom field (admin, D3): name, required, enabled, options (ids kept; a renamed option carries
 * the default along), default, and per-project availability. Type and system name are fixed.
 */
export async function updateCustomField(
  db: Db,
  actor: Actor,
  id: string,
  input: UpdateCustomFieldBody,
): Promise<CustomField> {
  const row = await repo.findField(db, actor.tenantId, id);
  if (!row) throw notFound(`custom field "${id}" not found`);
  const current = toCustomField(row);
  const errors: ErrorDetail[] = [];
  const name = input.name === undefined ? current.name : checkName(input.name, errors);
  const options = buildOptions(current.type, input.options, current.options, errors);
  let defaultInput: string | null | undefined = input.defaultValue;
  if (defaultInput === undefined) {
    // A renamed option keeps being the default.
    const old = current.options?.find((o) => o.value === current.defaultValue);
    defaultInput = (old && options?.find((o) => o.id === old.id)?.value) ?? current.defaultValue ?? null;
  }
  const defaultValue = buildDefault(current.type, options, defaultInput, errors);
  const allowedRefs = Array.isArray(input.allowedProjectIds)
    ? await resolveProjectIds(db, actor, input.allowedProjectIds, errors)
    : input.allowedProjectIds;
  const avail = availability(
    input.allowAllProjects,
    allowedRefs,
    { allowAll: current.allowAllProjects, ids: current.allowedProjectIds },
    errors,
  );
  fail(errors);
  await repo.updateField(db, actor.tenantId, id, {
    name,
    required: (input.required ?? current.required) ? 1 : 0,
    enabled: (input.enabled ?? current.enabled) ? 1 : 0,
    options: options === null ? null : JSON.stringify(options),
    default_value: defaultValue,
    allow_all_projects: avail.allowAll ? 1 : 0,
    allowed_project_ids: avail.allowAll ? null : JSON.stringify(avail.ids ?? []),
    updated_at: nowIso(),
  });
  return getCustomField(db, actor, id);
}

/**
 * Deletes a custom field (admin, D3) and its values from every version of every test case, in one transaction
 * with the `custom_field.deleted` audit event that says how many cases and versions lost a value. The one change
 * ever made to a stored version (D15): a value left behind would be shown under the next field that takes the
 * same system name. The latest-version index rows (`tcase_custom_values`) go with the field (foreign key).
 */
export async function deleteCustomField(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await repo.findField(trx, actor.tenantId, id);
    if (!row) throw notFound(`custom field "${id}" not found`);
    const res = await repo.deleteField(trx, actor.tenantId, id);
    // Deleted by a concurrent request after the read above.
    if (Number(res.numDeletedRows) === 0) throw notFound(`custom field "${id}" not found`);
    const lost = await repo.countVersionsWithValue(trx, actor.tenantId, row.system_name);
    if (lost.versions > 0) await repo.removeValueFromVersions(trx, actor.tenantId, row.system_name);
    await recordAudit(trx, actor, 'custom_field.deleted', {
      custom_field_id: row.id,
      custom_field_system_name: row.system_name,
      custom_field_type: row.type,
      cases_changed: lost.cases,
      versions_changed: lost.versions,
    });
  });
}

/** How many cases and versions hold a value of the field: what deleteCustomField would remove (admin). */
export async function getCustomFieldUsage(db: Db, actor: Actor, id: string): Promise<CustomFieldUsage> {
  const row = await repo.findField(db, actor.tenantId, id);
  if (!row) throw notFound(`custom field "${id}" not found`);
  return repo.countVersionsWithValue(db, actor.tenantId, row.system_name);
}

/** Puts the tenant's custom fields in the given order (admin, D3); `ids` must name every field exactly once. */
export async function orderCustomFields(db: Db, actor: Actor, ids: string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const rows = await repo.listFields(trx, actor.tenantId);
    const known = new Set(rows.map((r) => r.id));
    const errors: ErrorDetail[] = [];
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (!known.has(id)) errors.push({ path: `/ids/${i}`, message: `custom field "${id}" not found` });
      else if (seen.has(id))
        errors.push({ path: `/ids/${i}`, message: `custom field "${id}" is listed twice` });
      seen.add(id);
    });
    const missing = rows.filter((r) => !seen.has(r.id)).map((r) => r.id);
    if (missing.length > 0) {
      errors.push({
        path: '/ids',
        message: `ids must list every custom field; missing ${missing.join(', ')}`,
      });
    }
    fail(errors);
    const at = nowIso();
    for (const [pos, id] of ids.entries()) {
      if (rows.find((r) => r.id === id)?.pos !== pos)
        await repo.updateField(trx, actor.tenantId, id, { pos, updated_at: at });
    }
  });
}
