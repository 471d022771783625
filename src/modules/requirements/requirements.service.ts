import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, type ErrorDetail, validationFailed } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './requirements.repository.js';
import {
  REQUIREMENT_SORT_FIELDS,
  type Requirement,
  type RequirementInput,
  type RequirementListItem,
  type RequirementListQuery,
} from './requirements.schemas.js';
import { isHttpUrl as isAbsoluteHttpUrl } from '../../lib/urls.js';

export const REQUIREMENT_TEXT_MAX = 255;
export const REQUIREMENT_URL_MAX = 255;

const key = (text: string, url: string) => JSON.stringify([text, url]);

/**
 * Returns the id of each requirement, creating the ones the project lacks: the same text and url (after
 * trimming) is the same requirement. `ids[i]` belongs to `inputs[i]`. Safe under concurrent callers
 * (insert-or-ignore against a unique constraint, then read). 400 (path `/requirements/<i>/…`) for an empty
 * or over-long text, or a url that is neither "" nor an absolute http(s) URL of at most 255 characters.
 */
export async function ensureRequirementIds(
  db: Db,
  tenantId: string,
  projectId: string,
  inputs: RequirementInput[],
): Promise<string[]> {
  const items = inputs.map((r) => ({ text: r.text.trim(), url: (r.url ?? '').trim() }));
  const errors: ErrorDetail[] = [];
  items.forEach(({ text, url }, i) => {
    if (text === '' || text.length > REQUIREMENT_TEXT_MAX) {
      errors.push({
        path: `/requirements/${i}/text`,
        message: `requirement text must be 1-${REQUIREMENT_TEXT_MAX} characters`,
      });
    }
    if (url !== '' && (url.length > REQUIREMENT_URL_MAX || !isAbsoluteHttpUrl(url))) {
      errors.push({
        path: `/requirements/${i}/url`,
        message: `requirement url must be "" or an absolute http(s) URL of at most ${REQUIREMENT_URL_MAX} characters`,
      });
    }
  });
  if (errors.length > 0) throw validationFailed(errors, errors[0].message);
  if (items.length === 0) return [];

  const ids = new Map<string, string>();
  const texts = [...new Set(items.map((i) => i.text))];
  const load = async () => {
    for (const row of await repo.findByTexts(db, tenantId, projectId, texts))
      ids.set(key(row.text, row.url), row.id);
  };
  await load();
  const missing = new Map<string, { text: string; url: string }>();
  for (const item of items)
    if (!ids.has(key(item.text, item.url))) missing.set(key(item.text, item.url), item);
  if (missing.size > 0) {
    const at = nowIso();
    await repo.insertMissing(
      db,
      [...missing.values()].map((m) => ({
        id: newId(),
        tenant_id: tenantId,
        project_id: projectId,
        text: m.text,
        url: m.url,
        created_at: at,
      })),
    );
    await load();
  }
  return items.map((i) => ids.get(key(i.text, i.url))!);
}

/** The requirements with these ids in the tenant (D1), keyed by id; unknown ids are absent. */
export async function getRequirementsByIds(
  db: Db,
  tenantId: string,
  ids: string[],
): Promise<Map<string, Requirement>> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return new Map();
  const rows = await repo.findByIds(db, tenantId, distinct);
  return new Map(rows.map((r) => [r.id, { id: r.id, text: r.text, url: r.url }]));
}

/** Lists a project's requirements, oldest first unless `sortField` says otherwise; `sortOrder` needs `sortField`. */
export async function listRequirements(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: RequirementListQuery,
): Promise<RequirementListItem[]> {
  const project = await resolveProject(db, actor, projectRef);
  if (query.sortOrder && !query.sortField) throw badRequest('sortOrder needs sortField', '/sortOrder');
  const sortColumn = query.sortField
    ? REQUIREMENT_SORT_FIELDS[query.sortField as keyof typeof REQUIREMENT_SORT_FIELDS]
    : 'created_at';
  const withCount = (query.include ?? []).includes('tcaseCount');
  const rows = await repo.listRequirements(db, actor.tenantId, project.id, {
    sortColumn,
    desc: query.sortOrder === 'desc',
    withCount,
  });
  return rows.map((r) => {
    const item: RequirementListItem = { id: r.id, text: r.text, url: r.url, integrationLink: null };
    if (withCount) item.tcaseCount = Number((r as { tcase_count?: number }).tcase_count ?? 0);
    return item;
  });
}
