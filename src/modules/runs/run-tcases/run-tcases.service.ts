import type { Db } from '../../../db/create-db.js';
import type { JsonBody } from '../../../db/dialect.js';
import type { Actor } from '../../../auth/actor.js';
import { badRequest, notFound } from '../../../errors.js';
import { parseJson } from '../../../lib/json.js';
import { listFoldersByIds } from '../../folders/folders.service.js';
import { currentValues, listFieldsBySystemName } from '../../custom-fields/custom-fields.service.js';
import type { StoredCustomFieldValue } from '../../custom-fields/custom-fields.schemas.js';
import { getLinkedIntegration } from '../../integrations/integrations.service.js';
import type { FilesContext } from '../../files/files.service.js';
import { getTcaseAtVersion } from '../../test-cases/test-cases.service.js';
import { stepsOfResults, withSteps } from '../result-steps/result-steps.service.js';
import { filesOfResults, withFiles } from '../result-files/result-files.service.js';
import * as resultsRepo from '../results/results.repository.js';
import type { RunListCache } from './run-list-cache.js';
import * as listRepo from './run-tcases-list.repository.js';
import * as runTcasesRepo from './run-tcases.repository.js';
import {
  RUN_TCASE_SORT_FIELDS,
  type Result,
  type ResultLink,
  type ListRunTcasesQuery,
  type RunTcaseDetail,
  type RunTcaseListItem,
} from '../runs.schemas.js';
import { getRunForRead } from '../runs.service.js';
import { joinedUser } from '../joined-user.js';
import { shownCommentError } from '../tracker-comments.service.js';

/** `cf_<systemName>` query keys → accepted values (OR within a field, AND across fields). */
function customFieldFilters(query: ListRunTcasesQuery): [string, Set<string>][] {
  return Object.entries(query)
    .filter(([key, values]) => key.startsWith('cf_') && Array.isArray(values) && values.length > 0)
    .map(([key, values]) => [key.slice(3), new Set(values as string[])]);
}

/**
 * Lists the test cases of a run as the run shows them (docs/api-decisions.md#run-creation-by-the-uploader): no pagination;
 * `search`, `tags`/`tag`, `priorities`/`priority`, `cf_<name>`, `assignee` (AND across, OR within), `include=folder`,
 * `sortField` title|created_at with `sortOrder`, `limit`. Filters apply to the version the run shows.
 */
export async function listRunTcases(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  query: ListRunTcasesQuery,
): Promise<RunTcaseListItem[]> {
  const { run, plan } = await planRunTcaseList(db, actor, projectRef, runId, query);
  return listItems(db, actor, run, plan, query);
}

type ListPlan = Awaited<ReturnType<typeof planRunTcaseList>>['plan'];

async function listItems(
  db: Db,
  actor: Actor,
  run: { id: number; projectId: string },
  plan: ListPlan,
  query: ListRunTcasesQuery,
): Promise<RunTcaseListItem[]> {
  const { tags, cf, fields, filterAfter, withFolder } = plan;
  const rows = await listRepo.listRunTcases(db, actor.tenantId, run.id, {
    ...plan.filter,
    withVersionData: filterAfter,
    limit: filterAfter ? undefined : query.limit,
  });
  let kept = rows;
  if (filterAfter) {
    kept = rows.filter((row) => {
      const data = row as typeof row & { tag_ids?: string; custom_fields?: string };
      if (tags.size > 0 && !parseJson<number[]>(data.tag_ids, []).some((id) => tags.has(id))) return false;
      if (cf.length > 0) {
        // Only values saved under the current field of each name match its filter.
        const values = currentValues(
          fields,
          parseJson<Record<string, StoredCustomFieldValue>>(data.custom_fields, {}),
        );
        for (const [name, accepted] of cf) {
          const value = values[name]?.value;
          if (value === undefined || !accepted.has(value)) return false;
        }
      }
      return true;
    });
    if (query.limit !== undefined) kept = kept.slice(0, query.limit);
  }
  const folders = withFolder ? await foldersOf(db, actor.tenantId, run.projectId, kept) : undefined;
  return kept.map((row) => {
    const item: RunTcaseListItem = {
      id: row.id,
      version: row.version,
      legacyId: row.legacy_id,
      type: row.type,
      folderId: row.folder_id,
      pos: row.pos,
      seq: row.seq,
      title: row.title,
      priority: row.priority,
      status: row.status,
      isAutomated: row.is_automated === 1,
      isEmpty: row.is_empty === 1,
      assignee: assigneeOf(row.assignee_id, row.assignee_name),
    };
    if (row.template_id !== null) item.templateTCaseId = row.template_id;
    if (folders) {
      const folder = folders.get(row.folder_id);
      if (folder) item.folder = folder;
    }
    return item;
  });
}

const assigneeOf = (id: number | null, name: string | null) =>
  id === null ? null : { id, name: name ?? '' };

/** `assignee=<id>|me|none` → the filter's user id, or null for "nobody". */
function assigneeFilter(actor: Actor, assignee: string | undefined): number | null | undefined {
  if (assignee === undefined) return undefined;
  if (assignee === 'none') return null;
  if (assignee === 'me') return actor.userId;
  const id = Number(assignee);
  // Beyond the 32-bit id column no user exists, and PostgreSQL would refuse the comparison.
  if (id > 2_147_483_647) throw badRequest(`assignee must be a user id, me or none`, '/assignee');
  return id;
}

/** Checks a list query and splits it into what SQL filters and what is filtered afterwards in Node. */
async function planRunTcaseList(
  db: Db,
  actor: Actor,
  projectRef: string,
  runId: number,
  query: ListRunTcasesQuery,
) {
  if (query.sortOrder !== undefined && query.sortField === undefined) {
    throw badRequest('sortOrder needs sortField', '/sortOrder');
  }
  const { run } = await getRunForRead(db, actor, projectRef, runId);
  const tags = new Set([...(query.tags ?? []), ...(query.tag ?? [])]);
  const priorities = [...new Set([...(query.priorities ?? []), ...(query.priority ?? [])])];
  const cf = customFieldFilters(query);
  const fields = cf.length > 0 ? await listFieldsBySystemName(db, actor.tenantId) : new Map();
  if (cf.length > 0) {
    const unknown = cf.find(([name]) => !fields.has(name));
    if (unknown)
      throw badRequest(`unknown custom field "${unknown[0]}" in cf_${unknown[0]}`, `/cf_${unknown[0]}`);
  }
  const filter = {
    search: query.search?.trim() || undefined,
    priorities,
    assigneeId: assigneeFilter(actor, query.assignee),
    sort: query.sortField
      ? {
          column: RUN_TCASE_SORT_FIELDS[query.sortField as keyof typeof RUN_TCASE_SORT_FIELDS],
          order: query.sortOrder === 'desc' ? ('desc' as const) : ('asc' as const),
        }
      : undefined,
  };
  const filterAfter = tags.size > 0 || cf.length > 0;
  const withFolder = (query.include ?? []).includes('folder');
  return { run, plan: { tags, cf, fields, filter, filterAfter, withFolder } };
}

/**
 * listRunTcases for the route: when the query needs nothing Node does (tag and custom-field filters,
 * include=folder) the database builds the JSON of the response body `{"tcases": [...]}` itself; a list of
 * 10,000 cases then costs a fraction of the time and memory (bench "list a 10,000-case run"). Same items.
 */
export async function listRunTcasesResponse(
  db: Db,
  cache: RunListCache,
  actor: Actor,
  projectRef: string,
  runId: number,
  query: ListRunTcasesQuery,
): Promise<{ json: JsonBody } | { tcases: RunTcaseListItem[] }> {
  const { run, plan } = await planRunTcaseList(db, actor, projectRef, runId, query);
  if (plan.filterAfter || plan.withFolder) return { tcases: await listItems(db, actor, run, plan, query) };
  // A limited list's fingerprint would never be runTcasesFingerprint's, which covers every row: never kept.
  if (!cache.enabled || query.limit !== undefined) {
    return {
      json: await listRepo.listRunTcasesJson(db, actor.tenantId, run.id, {
        ...plan.filter,
        limit: query.limit,
      }),
    };
  }
  // The filter as the database sees it: the same list for everyone (assignee=me is the person's id by now).
  const json = await cache.serve(
    JSON.stringify([actor.tenantId, run.id, plan.filter]),
    () => listRepo.runTcasesFingerprint(db, actor.tenantId, run.id, plan.filter),
    (keep) => listRepo.listRunTcasesJson(db, actor.tenantId, run.id, plan.filter, keep),
  );
  return { json };
}

/** The folders the listed cases show, as embedded in a run test case (docs/api-decisions.md#shapes). */
async function foldersOf(db: Db, tenantId: string, projectId: string, rows: { folder_id: number }[]) {
  const ids = [...new Set(rows.map((r) => r.folder_id))];
  const found = await listFoldersByIds(db, tenantId, projectId, ids);
  return new Map(
    found.map((f) => [
      f.id,
      { id: f.id, parentId: f.parentId, title: f.title, comment: f.comment, pos: f.pos },
    ]),
  );
}

/** Results of a case in a run, oldest first, each with its author and its links' integrations (D24). */
async function listCaseResults(
  db: Db,
  files: FilesContext,
  tenantId: string,
  projectId: string,
  runId: number,
  tcaseId: string,
) {
  const rows = await resultsRepo.listResults(db, tenantId, runId, tcaseId);
  const links = await resultsRepo.listResultLinks(
    db,
    tenantId,
    rows.map((r) => r.id),
  );
  const integrations = new Map<string, ResultLink['integration']>();
  for (const id of new Set(links.flatMap((l) => l.integration_id ?? []))) {
    integrations.set(id, (await getLinkedIntegration(db, tenantId, projectId, id)) ?? null);
  }
  const linksByResult = new Map<number, ResultLink[]>();
  for (const l of links) {
    const list = linksByResult.get(l.result_id) ?? [];
    const link: ResultLink = {
      id: l.id,
      resultId: l.result_id,
      url: l.url,
      text: l.text,
      meta: parseJson<Record<string, unknown>>(l.meta, {}),
    };
    // D24: a plain link has no integration, and its two keys are left out rather than null.
    if (l.integration_id !== null) {
      link.integrationId = l.integration_id;
      link.integration = integrations.get(l.integration_id) ?? null;
    }
    // D24 comment-back: only a link due a tracker comment carries its outcome.
    if (l.comment_status) {
      link.comment = {
        status: l.comment_status as NonNullable<ResultLink['comment']>['status'],
        ...(l.comment_id ? { id: l.comment_id } : {}),
        ...(l.comment_error ? { error: shownCommentError(l.comment_error) } : {}),
        updatedAt: l.comment_at ?? '',
      };
    }
    list.push(link);
    linksByResult.set(l.result_id, list);
  }
  const ids = rows.map((r) => r.id);
  const steps = await stepsOfResults(db, tenantId, ids);
  const attached = await filesOfResults(db, files, tenantId, ids);
  return rows.map((r): Result => ({
    id: r.id,
    tcaseId: r.tcase_id,
    tcaseVersion: String(r.tcase_version), // docs/api-decisions.md#response-shapes: a string
    authorId: r.author_id ?? 0,
    author: joinedUser(r.author_id, r.author_email, r.author_name, r.author_avatar, r.author_role),
    status: r.status,
    comment: r.comment,
    links: linksByResult.get(r.id) ?? [],
    timeTaken: r.time_taken,
    apiKeyId: r.api_key_id,
    internal: r.internal === 1,
    createdAt: r.created_at,
    ...withSteps(steps.get(r.id)),
    ...withFiles(attached.get(r.id)),
  }));
}

/**
 * One test case of a run in the detail shape (docs/api-decisions.md#shapes), by id, sequence number or legacy id: the
 * version the run shows (pinned, else the latest), folder and position as the run shows them, and its results.
 */
export async function getRunTcase(
  db: Db,
  files: FilesContext,
  actor: Actor,
  projectRef: string,
  runId: number,
  ref: string,
): Promise<RunTcaseDetail> {
  const { project, run } = await getRunForRead(db, actor, projectRef, runId);
  const row = await runTcasesRepo.findRunTcaseByRef(db, actor.tenantId, run.projectId, run.id, ref);
  if (!row) throw notFound(`test case "${ref}" not found in run ${run.id}`);
  const version = row.pinned_version ?? row.latest_version;
  const tcase = await getTcaseAtVersion(db, files, actor.tenantId, row.tcase_id, version);
  return {
    id: tcase.id,
    version,
    legacyId: tcase.legacyId,
    type: tcase.type,
    folderId: row.frozen_folder_id ?? row.folder_id,
    pos: row.frozen_pos ?? row.pos,
    seq: tcase.seq,
    title: tcase.title,
    priority: tcase.priority,
    status: row.status,
    isAutomated: row.is_automated === 1,
    isEmpty: tcase.isEmpty,
    templateTCaseId: tcase.templateTCaseId ?? null,
    assignee: assigneeOf(row.assignee_id, row.assignee_name),
    comment: tcase.comment,
    steps: tcase.steps ?? [],
    tags: tcase.tags ?? [],
    files: tcase.files,
    requirements: tcase.requirements ?? [],
    links: tcase.links,
    customFields: tcase.customFields ?? {},
    authorId: tcase.authorId,
    createdAt: tcase.createdAt,
    isLatestVersion: version === row.latest_version,
    results: await listCaseResults(db, files, actor.tenantId, project.id, run.id, row.tcase_id),
  };
}
