import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, type ErrorDetail, validationFailed } from '../../errors.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './tags.repository.js';
import { TAG_SORT_FIELDS, type Tag, type TagListItem, type TagListQuery } from './tags.schemas.js';

export const TAG_TITLE_MAX = 255;

/**
 * Returns the id of each tag title (trimmed), creating the tags a project lacks. `ids[i]` belongs to
 * `titles[i]` (a repeated title repeats its id). Safe under concurrent callers: insert-or-ignore against
 * the unique (project, title) constraint, then read. 400 for an empty or over-long title (path `/tags/<i>`).
 */
export async function ensureTagIds(
  db: Db,
  tenantId: string,
  projectId: string,
  titles: string[],
): Promise<number[]> {
  const trimmed = titles.map((t) => t.trim());
  const errors: ErrorDetail[] = [];
  trimmed.forEach((title, i) => {
    if (title === '' || title.length > TAG_TITLE_MAX) {
      errors.push({ path: `/tags/${i}`, message: `tag titles must be 1-${TAG_TITLE_MAX} characters` });
    }
  });
  if (errors.length > 0) throw validationFailed(errors, errors[0].message);
  if (trimmed.length === 0) return [];
  const distinct = [...new Set(trimmed)];
  const byTitle = new Map<string, number>();
  for (const row of await repo.findByTitles(db, tenantId, projectId, distinct))
    byTitle.set(row.title, row.id);
  const missing = distinct.filter((t) => !byTitle.has(t));
  if (missing.length > 0) {
    await repo.insertMissingTitles(db, tenantId, projectId, missing, nowIso());
    for (const row of await repo.findByTitles(db, tenantId, projectId, missing))
      byTitle.set(row.title, row.id);
  }
  return trimmed.map((t) => byTitle.get(t)!);
}

/** The tags with these ids in the tenant (D1), keyed by id; unknown ids are absent. */
/** Ids of the project's tags with these titles (trimmed); titles without a tag are absent. Creates nothing. */
export async function findTagIds(
  db: Db,
  tenantId: string,
  projectId: string,
  titles: string[],
): Promise<number[]> {
  const distinct = [...new Set(titles.map((t) => t.trim()))];
  if (distinct.length === 0) return [];
  return (await repo.findByTitles(db, tenantId, projectId, distinct)).map((r) => r.id);
}

export async function getTagsByIds(db: Db, tenantId: string, ids: number[]): Promise<Map<number, Tag>> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return new Map();
  const rows = await repo.findByIds(db, tenantId, distinct);
  return new Map(rows.map((r) => [r.id, { id: r.id, title: r.title }]));
}

/** Lists a project's tags, by title unless `sortField` says otherwise; `sortOrder` needs `sortField`. */
export async function listTags(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: TagListQuery,
): Promise<TagListItem[]> {
  const project = await resolveProject(db, actor, projectRef);
  if (query.sortOrder && !query.sortField) throw badRequest('sortOrder needs sortField', '/sortOrder');
  const sortColumn = query.sortField
    ? TAG_SORT_FIELDS[query.sortField as keyof typeof TAG_SORT_FIELDS]
    : 'title';
  const withCount = (query.include ?? []).includes('tcaseCount');
  const rows = await repo.listTags(db, actor.tenantId, project.id, {
    sortColumn,
    desc: query.sortOrder === 'desc',
    withCount,
  });
  return rows.map((r) => {
    const tag: TagListItem = { id: r.id, title: r.title };
    if (withCount) tag.tcaseCount = Number((r as { tcase_count?: number }).tcase_count ?? 0);
    return tag;
  });
}
