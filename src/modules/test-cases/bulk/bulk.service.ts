import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { badRequest, type ErrorDetail } from '../../../errors.js';
import { chunks } from '../../../lib/chunks.js';
import { nowIso } from '../../../lib/time.js';
import { folderExists } from '../../folders/folders.service.js';
import { resolveProject } from '../../projects/projects.service.js';
import type { Project } from '../../projects/projects.schemas.js';
import { TAG_TITLE_MAX, ensureTagIds, findTagIds } from '../../tags/tags.service.js';
import type { Stored } from '../content/content.model.js';
import * as repo from '../test-cases.repository.js';
import * as contentRepo from '../content/content.repository.js';
import type { TcaseRow } from '../test-cases.repository.js';
import type { BulkDeleteBody, BulkMoveBody, BulkResult, BulkTagsBody } from '../test-cases.schemas.js';
import { auditCases, fail, inTransaction, lockProject } from '../test-cases.common.js';
import { updateFilled } from '../templates/templates.service.js';
import { enqueueEvent } from '../../webhooks/webhook-events.service.js';
import { commitVersion, loadPrevious, specOf, syncLinks } from '../versions/versions.service.js';
import type { TcasesChanged } from '../test-cases.common.js';

/*
 * Bulk operations of the repository page (docs/api-decisions.md#bulk-test-case-operations): move, tag and delete
 * many test cases, each request one transaction under the project's test-case lock, every id checked first.
 */

/**
 * The named cases, read under the project lock: 400 naming every id that is not a live test case of the
 * project (by its index in `tcaseIds`). Repeated ids count once. A filled case is accepted for a move or a tag
 * change only together with its template (it follows its template; alone it takes only priority).
 */
async function loadNamed(
  trx: Db,
  tenantId: string,
  project: Project,
  tcaseIds: string[],
  filledNeedTemplate: boolean,
): Promise<TcaseRow[]> {
  const unique = [...new Set(tcaseIds)];
  const rows = (await repo.listLatestByIds(trx, tenantId, unique)).filter(
    (r) => r.project_id === project.id && r.deleted_at === null,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const errors: ErrorDetail[] = [];
  const reported = new Set<string>();
  tcaseIds.forEach((id, i) => {
    if (reported.has(id)) return;
    const row = byId.get(id);
    if (!row) {
      reported.add(id);
      errors.push({
        path: `/tcaseIds/${i}`,
        message: `test case ${id} not found in project ${project.code}`,
      });
    } else if (filledNeedTemplate && row.type === 'filled' && !byId.has(row.template_id!)) {
      reported.add(id);
      errors.push({
        path: `/tcaseIds/${i}`,
        message: `test case ${id} is filled from template ${row.template_id}: name the template instead`,
      });
    }
  });
  if (errors.length > 0) throw fail(errors);
  return unique.map((id) => byId.get(id)!);
}

/**
 * Moves the cases to one folder (not versioned, D15), placed after its current cases in the order named; cases
 * already there stay where they are. A template's filled cases follow it.
 */
export async function bulkMoveTestCases(
  db: Db,
  actor: Actor,
  projectRef: string,
  body: BulkMoveBody,
  tcasesChanged: TcasesChanged,
): Promise<BulkResult> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const tenantId = actor.tenantId;
  const at = nowIso();
  return inTransaction(db, async (trx) => {
    await lockProject(trx, project.id);
    const rows = await loadNamed(trx, tenantId, project, body.tcaseIds, true);
    // Under the lock: a folder deleted meanwhile is gone here (D9: the body names it, so 400).
    if (!(await folderExists(trx, tenantId, project.id, body.folderId))) {
      throw badRequest(`folder ${body.folderId} not found in this project`, '/folderId');
    }
    const named = new Set(rows.map((r) => r.id));
    const templates = rows.filter((r) => r.type === 'template').map((r) => r.id);
    const followers = (await repo.listFilledOf(trx, tenantId, templates)).filter((f) => !named.has(f.id));
    let pos = (await repo.maxPosInFolder(trx, tenantId, project.id, body.folderId)) + 1;
    const changed: string[] = [];
    for (const row of [...rows, ...followers]) {
      if (row.folder_id === body.folderId) continue;
      await repo.updateTcase(trx, tenantId, row.id, { folder_id: body.folderId, pos: pos++, updated_at: at });
      changed.push(row.id);
    }
    await tcasesChanged(trx, tenantId, project.id, changed);
    await edited(trx, tenantId, project.id, 'moved', changed, { folderId: body.folderId });
    await auditCases(trx, actor, project, 'tcase.moved', changed, { folder_id: body.folderId });
    return { message: 'Test cases moved', changed: changed.length };
  });
}

/** One `tcases_edited` event per bulk request that changed cases (none when nothing changed). */
async function edited(
  trx: Db,
  tenantId: string,
  projectId: string,
  action: 'moved' | 'tagged',
  ids: string[],
  detail: Record<string, unknown>,
): Promise<void> {
  if (ids.length === 0) return;
  await enqueueEvent(trx, {
    tenantId,
    projectId,
    type: 'tcases_edited',
    object: { action, count: ids.length, tcaseIds: ids, ...detail },
  });
}

function checkTitles(titles: string[] | undefined, field: string, errors: ErrorDetail[]): void {
  (titles ?? []).forEach((title, i) => {
    const t = title.trim();
    if (t === '' || t.length > TAG_TITLE_MAX) {
      errors.push({ path: `/${field}/${i}`, message: `tag titles must be 1-${TAG_TITLE_MAX} characters` });
    }
  });
}

/**
 * Adds and removes tags (by title; added ones are created on demand, removing one a case lacks changes nothing).
 * Tags are versioned (D15): each case whose tags change gets version n+1; a template's filled cases follow it.
 */
export async function bulkTagTestCases(
  db: Db,
  actor: Actor,
  projectRef: string,
  body: BulkTagsBody,
  tcasesChanged: TcasesChanged,
): Promise<BulkResult> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const errors: ErrorDetail[] = [];
  checkTitles(body.addTags, 'addTags', errors);
  checkTitles(body.removeTags, 'removeTags', errors);
  if ((body.addTags ?? []).length + (body.removeTags ?? []).length === 0) {
    errors.push({ path: '/addTags', message: 'name at least one tag in addTags or removeTags' });
  }
  if (errors.length > 0) throw fail(errors);
  const tenantId = actor.tenantId;
  const at = nowIso();
  return inTransaction(db, async (trx) => {
    await lockProject(trx, project.id);
    const rows = (await loadNamed(trx, tenantId, project, body.tcaseIds, true)).filter(
      (r) => r.type !== 'filled', // they follow their template (named too, checked above)
    );
    const add = await ensureTagIds(trx, tenantId, project.id, body.addTags ?? []);
    const remove = new Set(await findTagIds(trx, tenantId, project.id, body.removeTags ?? []));
    const prevs = await loadPrevious(trx, tenantId, rows);
    const changed = new Set<string>();
    const linkUpdates: { id: string; stored: Stored }[] = [];
    for (const row of rows) {
      const prev = prevs.get(row.id)!;
      const spec = specOf(prev);
      // Kept order, then the new ones; a tag both added and removed ends up removed.
      spec.tagIds = [...new Set([...spec.tagIds, ...add])].filter((id) => !remove.has(id));
      const stored = await commitVersion(trx, actor, row, prev, spec, at, project.id);
      if (stored) {
        changed.add(row.id);
        linkUpdates.push({ id: row.id, stored });
        if (row.type === 'template') {
          await updateFilled(trx, actor, project, row, spec, {}, {}, at, changed, linkUpdates);
        }
      }
    }
    await syncLinks(trx, tenantId, linkUpdates);
    await tcasesChanged(trx, tenantId, project.id, [...changed]);
    await edited(trx, tenantId, project.id, 'tagged', [...changed], {
      addTags: body.addTags ?? [],
      removeTags: body.removeTags ?? [],
    });
    await auditCases(trx, actor, project, 'tcase.updated', [...changed], {
      fields: ['tags'],
      added_tags: body.addTags ?? [],
      removed_tags: body.removeTags ?? [],
    });
    return { message: 'Test cases tagged', changed: changed.size };
  });
}

/** Deletes the cases (soft, like deleting one: results in runs keep them); a template takes its filled cases along. */
export async function bulkDeleteTestCases(
  db: Db,
  actor: Actor,
  projectRef: string,
  body: BulkDeleteBody,
  tcasesChanged: TcasesChanged,
): Promise<BulkResult> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const tenantId = actor.tenantId;
  const at = nowIso();
  return inTransaction(db, async (trx) => {
    await lockProject(trx, project.id);
    const rows = await loadNamed(trx, tenantId, project, body.tcaseIds, false);
    const ids = await withFilled(trx, tenantId, rows);
    await removeCases(trx, tenantId, ids, at);
    await tcasesChanged(trx, tenantId, project.id, ids);
    await auditCases(trx, actor, project, 'tcase.deleted', ids);
    return { message: 'Test cases deleted', changed: ids.length };
  });
}

/** The cases and the live filled cases of the templates among them, each once. */
async function withFilled(
  trx: Db,
  tenantId: string,
  rows: { id: string; type: string }[],
): Promise<string[]> {
  const ids = new Set(rows.map((r) => r.id));
  const templates = rows.filter((r) => r.type === 'template').map((r) => r.id);
  for (const f of await repo.listFilledOf(trx, tenantId, templates)) ids.add(f.id);
  return [...ids];
}

async function removeCases(trx: Db, tenantId: string, ids: string[], at: string): Promise<void> {
  for (const part of chunks(ids)) {
    await repo.softDeleteTcases(trx, tenantId, part, at);
  }
  await contentRepo.removeLatestLinks(trx, tenantId, ids);
}

/**
 * For folder deletion (folder-delete/folder-delete.service.ts): the live test cases in the folders, and the filled cases
 * of templates among them wherever those are. Call inside the deleting transaction after lockTcaseWrites.
 */
export async function liveCasesInFolders(
  trx: Db,
  tenantId: string,
  projectId: string,
  folderIds: number[],
): Promise<string[]> {
  return withFilled(trx, tenantId, await repo.listLiveInFolders(trx, tenantId, projectId, folderIds));
}

/** Soft-deletes the cases (as deleting one does) and tells live runs (D17). */
export async function deleteCasesById(
  trx: Db,
  tenantId: string,
  projectId: string,
  ids: string[],
  tcasesChanged: TcasesChanged,
): Promise<void> {
  await removeCases(trx, tenantId, ids, nowIso());
  await tcasesChanged(trx, tenantId, projectId, ids);
}

/** The project's test-case write lock (test-cases.common.ts), for other modules' transactions that change cases. */
export const lockTcaseWrites = lockProject;
