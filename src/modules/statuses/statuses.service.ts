import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, type ErrorDetail, validationFailed } from '../../errors.js';
import { nowIso } from '../../lib/time.js';
import * as repo from './statuses.repository.js';
import {
  BUILT_IN_STATUS_IDS,
  CUSTOM_STATUS_IDS,
  STATUS_COLORS,
  STATUS_IDS,
  STATUS_NAME_MAX,
  type Status,
  type StatusUsage,
  type UpdateStatusesBody,
} from './statuses.schemas.js';

/**
 * D23 defaults. Rows in `statuses` exist only for custom statuses an admin saved; everything else comes
 * from here, so a new tenant needs no seeding.
 */
const DEFAULTS: readonly Status[] = [
  { id: 'open', name: 'Open', color: 'blue', isActive: true, isDefault: true },
  { id: 'passed', name: 'Passed', color: 'green', isActive: true, isDefault: true },
  { id: 'failed', name: 'Failed', color: 'red', isActive: true, isDefault: true },
  { id: 'blocked', name: 'Blocked', color: 'orange', isActive: true, isDefault: true },
  { id: 'skipped', name: 'Skipped', color: 'gray', isActive: true, isDefault: true },
  { id: 'custom1', name: 'Custom 1', color: 'yellow', isActive: false, isDefault: false },
  { id: 'custom2', name: 'Custom 2', color: 'teal', isActive: false, isDefault: false },
  { id: 'custom3', name: 'Custom 3', color: 'purple', isActive: false, isDefault: false },
  { id: 'custom4', name: 'Custom 4', color: 'pink', isActive: false, isDefault: false },
];

const isBuiltIn = (id: string) => (BUILT_IN_STATUS_IDS as readonly string[]).includes(id);
const isCustom = (id: string) => (CUSTOM_STATUS_IDS as readonly string[]).includes(id);

/** D23: all nine statuses of the tenant in a fixed order; built-ins always active with their default names. */
export async function listStatuses(db: Db, tenantId: string): Promise<Status[]> {
  const rows = new Map((await repo.listStatusRows(db, tenantId)).map((r) => [r.id, r]));
  return DEFAULTS.map((status) => {
    const row = rows.get(status.id);
    if (!row || !isCustom(status.id)) return { ...status };
    return { ...status, name: row.name, color: row.color, isActive: row.is_active === 1 };
  });
}

/** The ids a result may carry right now (D23): the built-ins plus the active custom statuses. */
export async function activeStatusIds(db: Db, tenantId: string): Promise<string[]> {
  return (await listStatuses(db, tenantId)).filter((s) => s.isActive).map((s) => s.id);
}

/** D23: a result with an unknown or inactive status is a 400 at `path`. */
export async function assertStatusUsable(
  db: Db,
  tenantId: string,
  status: string,
  path = '/status',
): Promise<void> {
  if (!(STATUS_IDS as readonly string[]).includes(status)) {
    throw badRequest(`status must be one of ${STATUS_IDS.join(', ')}; got "${status}"`, path);
  }
  if (isBuiltIn(status)) return;
  const found = (await listStatuses(db, tenantId)).find((s) => s.id === status);
  if (!found?.isActive) throw badRequest(`status ${status} is not active`, path);
}

function validateUpdate(input: UpdateStatusesBody, current: Status[]): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  const seen = new Set<string>();
  input.statuses.forEach((entry, i) => {
    const at = `/statuses/${i}`;
    if (seen.has(entry.id)) errors.push({ path: `${at}/id`, message: `status ${entry.id} is listed twice` });
    seen.add(entry.id);
    if (isBuiltIn(entry.id)) {
      // Clients that send the whole list back unchanged are fine; changing a built-in is not (D23).
      const builtIn = current.find((s) => s.id === entry.id)!;
      const unchanged =
        entry.name === builtIn.name && entry.color === builtIn.color && entry.isActive === builtIn.isActive;
      if (!unchanged)
        errors.push({ path: `${at}/id`, message: `built-in status ${entry.id} cannot be changed` });
      return;
    }
    if (!isCustom(entry.id)) {
      errors.push({
        path: `${at}/id`,
        message: `id must be one of ${CUSTOM_STATUS_IDS.join(', ')}; got "${entry.id}"`,
      });
      return;
    }
    const name = entry.name.trim();
    if (name === '' || name.length > STATUS_NAME_MAX) {
      errors.push({ path: `${at}/name`, message: `name must be 1-${STATUS_NAME_MAX} characters` });
    }
    if (!(STATUS_COLORS as readonly string[]).includes(entry.color)) {
      errors.push({
        path: `${at}/color`,
        message: `color must be one of ${STATUS_COLORS.join(', ')}; got "${entry.color}"`,
      });
    }
  });
  return errors;
}

/** Names, colours and (de)activates custom1-4 (admin, D3/D23); built-ins cannot be changed; all or nothing. */
export async function updateStatuses(
  db: Db,
  actor: Actor,
  input: UpdateStatusesBody,
): Promise<{ message: string }> {
  const current = await listStatuses(db, actor.tenantId);
  const errors = validateUpdate(input, current);
  if (errors.length > 0) throw validationFailed(errors);
  const now = nowIso();
  await db.transaction().execute(async (trx) => {
    for (const entry of input.statuses) {
      if (!isCustom(entry.id)) continue;
      await repo.upsertStatus(trx, {
        tenant_id: actor.tenantId,
        id: entry.id,
        name: entry.name.trim(),
        color: entry.color,
        is_active: entry.isActive ? 1 : 0,
        updated_at: now,
      });
    }
  });
  return { message: 'Statuses updated' };
}

/** How many results hold each custom status (admin): what switching one off leaves behind, unchanged (D23). */
export async function customStatusUsage(db: Db, tenantId: string): Promise<StatusUsage> {
  const counts = new Map(
    (await repo.countResultsByStatus(db, tenantId, CUSTOM_STATUS_IDS)).map((r) => [r.status, Number(r.n)]),
  );
  return { statuses: CUSTOM_STATUS_IDS.map((id) => ({ id, results: counts.get(id) ?? 0 })) };
}
