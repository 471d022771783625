import type { Db } from '../../../db/create-db.js';
import { notFound } from '../../../errors.js';
import { subtreeFolderIds } from '../../folders/folders.service.js';
import { chunks } from '../../../lib/chunks.js';
import { seqOf } from '../../../lib/ids.js';
import * as lookupsRepo from './lookups.repository.js';
import * as repo from '../test-cases.repository.js';
import type { TcaseFilter, TcaseRow } from '../test-cases.repository.js';
import { type TCase, type TcaseInclude } from '../test-cases.schemas.js';
import type { FilesContext } from '../../files/files.service.js';
import { toTcases } from '../content/content.view.js';
import type { StepRef } from '../content/content.model.js';
import { parseJson } from '../../../lib/json.js';

/* Lookups other modules rely on (runs): a case by reference, query-plan selection, cases as of a version. */

/**
 * Finds a test case of the project by id, seq (all digits, zero-padding allowed) or legacy id
 * (docs/api-decisions.md#wire-rules). Deleted cases are found only with `includeDeleted` (runs keep their results).
 */
export async function resolveTcaseRef(
  db: Db,
  tenantId: string,
  projectId: string,
  ref: string,
  options: { includeDeleted?: boolean } = {},
): Promise<{ id: string; seq: number; version: number } | undefined> {
  const row = await findByRef(db, tenantId, projectId, ref, options);
  return row ? { id: row.id, seq: row.seq, version: row.latest_version } : undefined;
}

export async function findByRef(
  db: Db,
  tenantId: string,
  projectId: string,
  ref: string,
  options: { includeDeleted?: boolean } = {},
): Promise<TcaseRow | undefined> {
  if (/^\d+$/.test(ref)) {
    const seq = seqOf(ref);
    const bySeq =
      seq !== undefined ? await repo.findTcaseBy(db, tenantId, projectId, { seq }, options) : undefined;
    return bySeq ?? repo.findTcaseBy(db, tenantId, projectId, { legacyId: ref }, options);
  }
  return (
    (await repo.findTcaseBy(db, tenantId, projectId, { id: ref }, options)) ??
    (await repo.findTcaseBy(db, tenantId, projectId, { legacyId: ref }, options))
  );
}

export interface SelectionPlan {
  tcaseIds?: string[];
  folderIds?: number[];
  tagIds?: number[];
  priorities?: string[];
}

/**
 * The runnable test cases of a query plan, in seq order: `standalone` and `filled` only, never drafts
 * (D16) or deleted ones. Folder filters include subfolders; an omitted or empty filter does not
 * restrict; filters combine with AND (docs/api-decisions.md#query-plans). `onlyAmong` narrows to those ids.
 */
export async function selectMatchingTcaseIds(
  db: Db,
  tenantId: string,
  projectId: string,
  plan: SelectionPlan,
  onlyAmong?: string[],
): Promise<string[]> {
  const filter: TcaseFilter = {
    types: ['standalone', 'filled'],
    draft: false,
    tagIds: plan.tagIds,
    priorities: plan.priorities,
  };
  if (plan.folderIds?.length) {
    filter.folderIds = await subtreeFolderIds(db, tenantId, projectId, plan.folderIds);
    if (filter.folderIds.length === 0) return [];
  }
  let ids: string[] | undefined;
  if (plan.tcaseIds?.length) ids = [...new Set(plan.tcaseIds)];
  if (onlyAmong) {
    const among = new Set(onlyAmong);
    ids = ids ? ids.filter((id) => among.has(id)) : [...among];
  }
  if (!ids) return (await repo.listMatchingIds(db, tenantId, projectId, filter)).map((r) => r.id);
  const found: { id: string; seq: number }[] = [];
  for (const part of chunks(ids)) {
    found.push(...(await repo.listMatchingIds(db, tenantId, projectId, { ...filter, ids: part })));
  }
  return found.sort((a, b) => a.seq - b.seq).map((r) => r.id);
}

const FULL: Set<TcaseInclude> = new Set(['precondition', 'steps', 'tags', 'requirements', 'customFields']);

/** A test case (live or deleted) with every relation as of one version (D15); NOT_FOUND when there is no such version. */
export async function getTcaseAtVersion(
  db: Db,
  files: FilesContext,
  tenantId: string,
  tcaseId: string,
  version: number,
): Promise<TCase> {
  const [tcase] = await getTcasesAtVersions(db, files, tenantId, [{ tcaseId, version }]);
  if (!tcase) throw notFound(`test case ${tcaseId} has no version ${version}`);
  return tcase;
}

/** Batch form of getTcaseAtVersion: answers in the order of `refs`; pairs that do not exist are left out. */
export async function getTcasesAtVersions(
  db: Db,
  files: FilesContext,
  tenantId: string,
  refs: { tcaseId: string; version: number }[],
): Promise<TCase[]> {
  if (refs.length === 0) return [];
  const rows = await repo.listCasesAtVersions(db, tenantId, refs);
  const byKey = new Map(rows.map((r) => [`${r.id}@${r.version}`, r]));
  const ordered = refs.flatMap((r) => {
    const row = byKey.get(`${r.tcaseId}@${r.version}`);
    return row ? [row] : [];
  });
  return toTcases(db, tenantId, ordered, { include: FULL, files });
}

/** What the named test cases of a project are (type, draft, deleted), to explain why they cannot join a run. */
export async function listTcaseKinds(
  db: Db,
  tenantId: string,
  projectId: string,
  ids: string[],
): Promise<{ id: string; type: string; isDraft: boolean; deleted: boolean }[]> {
  return (await lookupsRepo.listTcaseKinds(db, tenantId, projectId, ids)).map((r) => ({
    id: r.id,
    type: r.type,
    isDraft: r.is_draft === 1,
    deleted: r.deleted_at !== null,
  }));
}

/** A test case in a few words (latest version), for lists that only name cases; in the order of `ids`, unknown ids absent. */
export async function listTcaseSummaries(
  db: Db,
  tenantId: string,
  ids: string[],
): Promise<{ id: string; seq: number; title: string; folderId: number; priority: string }[]> {
  const byId = new Map((await lookupsRepo.listSummariesByIds(db, tenantId, ids)).map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ id: r.id, seq: r.seq, title: r.title, folderId: r.folder_id, priority: r.priority }] : [];
  });
}

/** A step of a version as a result may name it (extensions.md §8): a standalone step or a shared step, by id. */
export interface VersionStep {
  id: number;
  type: 'standalone' | 'shared';
}

/** The steps of each (case, version) pair, in the version's order, keyed `<tcaseId>@<version>`; pairs not found absent. */
export async function listVersionSteps(
  db: Db,
  tenantId: string,
  refs: { tcaseId: string; version: number }[],
): Promise<Map<string, VersionStep[]>> {
  if (refs.length === 0) return new Map();
  const rows = await repo.listCasesAtVersions(db, tenantId, refs);
  return new Map(
    rows.map((r) => [
      `${r.id}@${r.version}`,
      parseJson<StepRef[]>(r.steps, []).map((s) => ({ id: s.id, type: s.type })),
    ]),
  );
}
