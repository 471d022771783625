import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { badRequest, notFound } from '../../../errors.js';
import { subtreeFolderIds } from '../../folders/folders.service.js';
import { resolveProject } from '../../projects/projects.service.js';
import type { Project } from '../../projects/projects.schemas.js';
import { chunks } from '../../../lib/chunks.js';
import * as repo from '../test-cases.repository.js';
import * as versionsRepo from '../versions/versions.repository.js';
import type { SortColumn, TcaseFilter, TcaseRow } from '../test-cases.repository.js';
import {
  TCASE_INCLUDES,
  TCASE_SORT_FIELDS,
  type SeqLookupBody,
  type TCase,
  type TCaseList,
  type TcaseCountQuery,
  type TcaseInclude,
  type TcaseListQuery,
  type TcaseVersionList,
} from '../test-cases.schemas.js';
import type { FilesContext } from '../../files/files.service.js';
import { storedOf, toTcases } from '../content/content.view.js';
import { changedFields } from '../content/content.model.js';
import { DEFAULT_LIMIT, customFieldIdsBySystemName } from '../test-cases.common.js';
import { findByRef } from '../lookups/lookups.service.js';
import { highlight, parseTextQuery, type TextQuery } from '../../../lib/search-text.js';

/* Reads: the list with filters, sorting and the envelope, the count, one case, one version, the version history,
   the seq lookup. */

function parseIncludes(include: string[] | undefined): Set<TcaseInclude> {
  const out = new Set<TcaseInclude>();
  for (const item of include ?? []) {
    if (!(TCASE_INCLUDES as readonly string[]).includes(item)) {
      throw badRequest(`unknown include "${item}": use any of ${TCASE_INCLUDES.join(', ')}`, '/include');
    }
    out.add(item as TcaseInclude);
  }
  return out;
}

function parseSort(field: string | undefined, order: 'asc' | 'desc' | undefined) {
  if (order && !field) throw badRequest('sortOrder needs sortField', '/sortOrder');
  if (field === undefined) return { column: 'seq' as SortColumn, order: 'asc' as const };
  // A client's string: `__proto__` or `toString` must not find Object.prototype's members.
  const column = Object.hasOwn(TCASE_SORT_FIELDS, field)
    ? (TCASE_SORT_FIELDS as Record<string, SortColumn>)[field]
    : undefined;
  if (!column) {
    throw badRequest(
      `unknown sortField "${field}": use one of ${[...new Set(Object.values(TCASE_SORT_FIELDS))].join(', ')}`,
      '/sortField',
    );
  }
  return { column, order: order ?? ('asc' as const) };
}

/** docs/api-decisions.md#pagination-envelope: offset wins over page; page = floor(offset/limit)+1, and 1 when limit is 0. */
function pageWindow(q: { offset?: number; limit?: number; page?: number }) {
  const limit = q.limit ?? DEFAULT_LIMIT;
  const offset = q.offset ?? (q.page !== undefined ? (q.page - 1) * limit : 0);
  const page = limit === 0 ? 1 : Math.floor(offset / limit) + 1;
  return { offset, limit, page };
}

async function customFilters(
  db: Db,
  tenantId: string,
  query: Record<string, unknown>,
): Promise<{ fieldId: string; values: string[] }[]> {
  const entries = Object.entries(query).filter(([k, v]) => k.startsWith('cf_') && v !== undefined);
  if (entries.length === 0) return [];
  const ids = await customFieldIdsBySystemName(db, tenantId);
  return entries.map(([k, v]) => {
    const systemName = k.slice(3);
    const fieldId = ids.get(systemName);
    if (!fieldId) throw badRequest(`unknown custom field "${systemName}" in ${k}`, `/${k}`);
    return { fieldId, values: (v as string[]).map(String) };
  });
}

/** Lists a project's test cases: SQL filters (AND across, OR within), sorting and the full envelope (docs/api-decisions.md#endpoints-beyond-the-public-api). */
export async function listTestCases(
  db: Db,
  files: FilesContext,
  actor: Actor,
  projectRef: string,
  query: TcaseListQuery,
): Promise<TCaseList> {
  const project = await resolveProject(db, actor, projectRef);
  const include = parseIncludes(query.include);
  const sort = parseSort(query.sortField, query.sortOrder);
  const { offset, limit, page } = pageWindow(query);
  const filter: TcaseFilter = {
    folderIds: query.folders,
    tagIds: query.tags,
    priorities: query.priorities,
    search: query.search,
    types: query.types,
    draft: query.draft,
    templateIds: query.templateTCaseIds,
    requirementIds: query.requirementIds,
    customValues: await customFilters(db, actor.tenantId, query as Record<string, unknown>),
  };
  // A client picking a folder with its subtree names the folder, not every subfolder (the web's "Add cases").
  if (query.folders?.length && query.recursive) {
    filter.folderIds = await subtreeFolderIds(db, actor.tenantId, project.id, query.folders);
    // None of the folders is in the project: nothing matches, as with the same ids without recursive.
    if (filter.folderIds.length === 0) return { total: 0, offset, limit, page, data: [] };
  }
  const text = query.q === undefined ? undefined : parseTextQuery(query.q, project.code);
  // A q without a word or an identifier (blank, or only punctuation) filters nothing, as an empty search does.
  if (text && (text.words.length > 0 || text.seq !== undefined)) {
    // Best first unless the client sorts (docs/api-decisions.md#full-text-search).
    const { total, rows } =
      query.sortField === undefined
        ? await rankedPage(db, actor.tenantId, project.id, filter, text, offset, limit)
        : await sortedPage(
            db,
            actor.tenantId,
            project.id,
            { ...filter, text: { ...text, seqMode: 'with' } },
            sort,
            offset,
            limit,
          );
    const data = await toTcases(db, actor.tenantId, rows, { include, project, files });
    const docs = await repo.listSearchDocs(
      db,
      actor.tenantId,
      rows.map((r) => r.id),
    );
    data.forEach((tcase, i) => {
      const doc = docs.get(rows[i].id);
      const marks = doc && highlight(doc.title, doc.body, text.words);
      if (marks) tcase.highlight = marks;
    });
    return { total, offset, limit, page, data };
  }
  const { total, rows } = await sortedPage(db, actor.tenantId, project.id, filter, sort, offset, limit);
  const data = await toTcases(db, actor.tenantId, rows, { include, project, files });
  return { total, offset, limit, page, data };
}

async function sortedPage(
  db: Db,
  tenantId: string,
  projectId: string,
  filter: TcaseFilter,
  sort: ReturnType<typeof parseSort>,
  offset: number,
  limit: number,
) {
  const total = await repo.countTcases(db, tenantId, projectId, filter);
  const rows =
    limit === 0 || offset >= total
      ? []
      : await repo.listTcases(db, tenantId, projectId, filter, sort, offset, limit);
  return { total, rows };
}

/** The case the query names comes first (when the filters keep it), then the text matches by rank. */
async function rankedPage(
  db: Db,
  tenantId: string,
  projectId: string,
  filter: TcaseFilter,
  text: TextQuery,
  offset: number,
  limit: number,
) {
  const named =
    text.seq === undefined
      ? []
      : await repo.listMatchingIds(db, tenantId, projectId, { ...filter, seqs: [text.seq] });
  if (text.words.length === 0) {
    const rows =
      offset === 0 && limit > 0
        ? await repo.listLatestByIds(
            db,
            tenantId,
            named.map((n) => n.id),
          )
        : [];
    return { total: named.length, rows };
  }
  const textFilter = { ...filter, text: { ...text, seqMode: 'without' as const } };
  const first =
    offset === 0 && limit > 0
      ? await repo.listLatestByIds(
          db,
          tenantId,
          named.map((n) => n.id),
        )
      : [];
  const matches = await repo.listRankedTcases(
    db,
    tenantId,
    projectId,
    textFilter,
    Math.max(0, offset - named.length),
    Math.max(0, limit - first.length),
  );
  return { total: named.length + matches.total, rows: [...first, ...matches.rows] };
}

/** Counts a project's test cases; `recursive` counts the folders' subfolders too (docs/api-decisions.md#endpoints-beyond-the-public-api). */
export async function countTestCases(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: TcaseCountQuery,
): Promise<{ count: number }> {
  const project = await resolveProject(db, actor, projectRef);
  let folderIds = query.folders;
  if (folderIds?.length && query.recursive) {
    folderIds = await subtreeFolderIds(db, actor.tenantId, project.id, folderIds);
    if (folderIds.length === 0) return { count: 0 };
  }
  const count = await repo.countTcases(db, actor.tenantId, project.id, {
    folderIds,
    tagIds: query.tags,
    priorities: query.priorities,
    draft: query.draft,
  });
  return { count };
}

export async function requireTcase(
  db: Db,
  tenantId: string,
  project: Project,
  ref: string,
): Promise<TcaseRow> {
  const row = await findByRef(db, tenantId, project.id, ref);
  if (!row) throw notFound(`test case "${ref}" not found in project ${project.code}`);
  return row;
}

const ONE: TcaseInclude[] = [
  'precondition',
  'steps',
  'tags',
  'requirements',
  'customFields',
  'parameterValues',
];

/** One test case with every relation (docs/api-decisions.md#endpoints-beyond-the-public-api); `include` may add folder, path and project. */
export async function getTestCase(
  db: Db,
  files: FilesContext,
  actor: Actor,
  projectRef: string,
  ref: string,
  include: string[] = [],
): Promise<TCase> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await requireTcase(db, actor.tenantId, project, ref);
  const inc = new Set([...ONE, ...parseIncludes(include)]);
  const [tcase] = await toTcases(db, actor.tenantId, [row], { include: inc, project, files });
  return tcase;
}

/** An old (or the latest) version of a test case, as it was (D15). */
export async function getTestCaseVersion(
  db: Db,
  files: FilesContext,
  actor: Actor,
  projectRef: string,
  ref: string,
  version: number,
): Promise<TCase> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await requireTcase(db, actor.tenantId, project, ref);
  const [at] = await repo.listCasesAtVersions(db, actor.tenantId, [{ tcaseId: row.id, version }]);
  if (!at) throw notFound(`test case ${project.code}-${row.seq} has no version ${version}`);
  const [tcase] = await toTcases(db, actor.tenantId, [at], { include: new Set(ONE), project, files });
  return tcase;
}

/** Who made each version of a case and when, newest first (docs/api-decisions.md#test-case-version-history). */
export async function listTestCaseVersions(
  db: Db,
  actor: Actor,
  projectRef: string,
  ref: string,
): Promise<TcaseVersionList> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await requireTcase(db, actor.tenantId, project, ref);
  const rows = await versionsRepo.listVersionHistory(db, actor.tenantId, row.id);
  const stored = rows.map(storedOf);
  return {
    versions: rows.map((r, i) => ({
      version: r.version,
      title: r.title,
      authorId: r.author_id,
      authorName: r.author_name ?? null,
      createdAt: r.created_at,
      // Newest first: the version before this one is the next row (none for version 1).
      changed: i + 1 < rows.length ? changedFields(stored[i + 1], stored[i]) : [],
    })),
  };
}

const MARKER = /^([A-Za-z0-9]+)-(\d+)$/;

/** Looks test cases up by markers like `PRJ-007` (code in any case); unknown markers are absent (docs/api-decisions.md#endpoints-beyond-the-public-api). */
export async function findTestCasesBySeq(
  db: Db,
  files: FilesContext,
  actor: Actor,
  projectRef: string,
  body: SeqLookupBody,
): Promise<TCaseList> {
  const project = await resolveProject(db, actor, projectRef);
  const code = project.code.toUpperCase();
  const seqs = new Set<number>();
  for (const marker of body.seqIds) {
    const m = MARKER.exec(marker.trim());
    if (m && m[1].toUpperCase() === code) seqs.add(Number(m[2]));
  }
  const found: { id: string; seq: number }[] = [];
  for (const part of chunks([...seqs].filter(Number.isSafeInteger))) {
    found.push(...(await repo.listMatchingIds(db, actor.tenantId, project.id, { seqs: part })));
  }
  found.sort((a, b) => a.seq - b.seq);
  const { offset, limit, page } = pageWindow(body);
  const pageIds = limit === 0 ? [] : found.slice(offset, offset + limit).map((r) => r.id);
  const rows =
    pageIds.length === 0
      ? []
      : await repo.listTcases(
          db,
          actor.tenantId,
          project.id,
          { ids: pageIds },
          { column: 'seq', order: 'asc' },
          0,
          pageIds.length,
        );
  const data = await toTcases(db, actor.tenantId, rows, { include: new Set(), project, files });
  return { total: found.length, offset, limit, page, data };
}
