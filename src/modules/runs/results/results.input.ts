import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { type AppError, type ErrorDetail, validationFailed } from '../../../errors.js';
import { BUILT_IN_STATUS_IDS } from '../../../lib/statuses.js';
import { isHttpUrl as isAbsoluteHttpUrl } from '../../../lib/urls.js';
import { getLinkedIntegration } from '../../integrations/integrations.service.js';
import { activeStatusIds } from '../../statuses/statuses.service.js';
import { checkResultFiles } from '../result-files/result-files.service.js';
import type { ResultLinkInput, ResultStatus, ResultStepInput } from './results.schemas.js';

/* What a result to record is, and the checks of it that need no lock (results.service.ts writes it). */

/** A batch lists at most this many problems; the message says how many there were. */
const MAX_DETAILS = 50;

/** One result to record, its test case already named by `ref` (id, seq or legacy id). */
export interface ResultInput {
  ref: string;
  /** Who records it: author, API key and isAutomated come from here (a group commit mixes callers). */
  by: Actor;
  status: ResultStatus;
  comment: string;
  timeTaken?: number | null;
  links?: ResultLinkInput[];
  /** Per-step outcomes (extensions.md §8); such a result is never grouped (recordResult). */
  steps?: ResultStepInput[];
  /** Attachments (extensions.md §8): ids of the tenant's files; such a result is never grouped (recordResult). */
  files?: string[];
  /** Backdated (extensions.md §7a), checked and in stored form; such a result is never grouped. */
  createdAt?: string;
}

/**
 * The checks that need no lock: statuses (D23), links (D24) and files (extensions.md §8). Problems are collected for the whole
 * batch, each at a path that names the item (`/items/3/status`).
 */
export async function validateItems(
  db: Db,
  tenantId: string,
  projectId: string,
  items: ResultInput[],
  pathOf: (i: number) => string,
): Promise<ErrorDetail[]> {
  const errors: ErrorDetail[] = [];
  // D23: built-in statuses are always active; only a custom one needs the tenant's settings.
  const active = new Set<string>(BUILT_IN_STATUS_IDS);
  const statusesOf = (it: ResultInput) => [it.status, ...(it.steps ?? []).map((st) => st.status)];
  if (items.some((it) => statusesOf(it).some((st) => !active.has(st)))) {
    for (const id of await activeStatusIds(db, tenantId)) active.add(id);
  }
  const integrationIds = [
    ...new Set(items.flatMap((it) => (it.links ?? []).flatMap((l) => l.integrationId ?? []))),
  ];
  const integrations = new Map<string, { type: string } | undefined>();
  for (const id of integrationIds) {
    integrations.set(id, await getLinkedIntegration(db, tenantId, projectId, id));
  }
  items.forEach((item, i) => {
    const at = pathOf(i);
    if (!active.has(item.status)) {
      errors.push({
        path: `${at}/status`,
        message: `status ${item.status} is not active (activate it in the status settings first)`,
      });
    }
    (item.steps ?? []).forEach((step, j) => {
      if (active.has(step.status)) return;
      errors.push({ path: `${at}/steps/${j}/status`, message: `status ${step.status} is not active` });
    });
    (item.links ?? []).forEach((link, j) => {
      const linkAt = `${at}/links/${j}`;
      // D24: a plain link (no integrationId) needs only its http(s) url.
      const integration = link.integrationId === undefined ? undefined : integrations.get(link.integrationId);
      if (link.integrationId !== undefined && !integration) {
        errors.push({
          path: `${linkAt}/integrationId`,
          message: `integration "${link.integrationId}" is not linked to this project`,
        });
      } else if (
        integration &&
        integration.type !== 'custom' &&
        link.meta?.id !== undefined &&
        typeof link.meta.id !== 'string'
      ) {
        errors.push({
          path: `${linkAt}/meta/id`,
          message: 'meta.id must be a string (the issue number or key)',
        });
      }
      if (!isAbsoluteHttpUrl(link.url)) {
        errors.push({ path: `${linkAt}/url`, message: 'url must be an absolute http(s) URL' });
      }
    });
  });
  // Attachments (§8): files of the tenant, each once; unknown ids (other tenants' too, D1) name their place.
  errors.push(...(await checkResultFiles(db, tenantId, items, pathOf)));
  return errors;
}

export function validationError(errors: ErrorDetail[], what: string): AppError {
  const shown = errors.slice(0, MAX_DETAILS);
  const more = errors.length > shown.length ? ` (and ${errors.length - shown.length} more)` : '';
  return validationFailed(shown, `${what}: ${shown.map((e) => `${e.path}: ${e.message}`).join('; ')}${more}`);
}
