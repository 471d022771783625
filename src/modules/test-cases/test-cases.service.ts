import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { badRequest, conflict, notFound, type ErrorDetail } from '../../errors.js';
import { newTcaseId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import { normalizeTcaseCustomFields } from '../custom-fields/custom-fields.service.js';
import { getFolder, upsertFolderPaths } from '../folders/folders.service.js';
import { allocateTcaseSeqs, resolveProject } from '../projects/projects.service.js';
import { ensureTagIds } from '../tags/tags.service.js';
import { type Stored } from './content/content.model.js';
import * as repo from './test-cases.repository.js';
import * as contentRepo from './content/content.repository.js';
import { type BulkCreateBody, type CreateTcaseBody, type UpdateTcaseBody } from './test-cases.schemas.js';
import { auditCases, fail, inTransaction, lockProject } from './test-cases.common.js';
import { requireTcase } from './listing/listing.service.js';
import { applyInput, resolveReferences, validateWrite } from './content/content.input.js';
import { checkValues, filledCases, updateFilled } from './templates/templates.service.js';
import {
  NewCase,
  assertPosFree,
  commitVersion,
  emptySpec,
  insertCases,
  loadPrevious,
  specOf,
  syncLinks,
} from './versions/versions.service.js';
import { enqueueEvent } from '../webhooks/webhook-events.service.js';

/*
 * The test-case service: the writes live here; lookups for other modules, listing, write input, templates and
 * versions each have their own folder (lookups/, listing/, content/, templates/, versions/, bulk/), and other
 * modules reach them through this one.
 */
export {
  getTcaseAtVersion,
  getTcasesAtVersions,
  listTcaseKinds,
  listTcaseSummaries,
  listVersionSteps,
  resolveTcaseRef,
  selectMatchingTcaseIds,
  type SelectionPlan,
  type VersionStep,
} from './lookups/lookups.service.js';
export {
  bulkDeleteTestCases,
  bulkMoveTestCases,
  bulkTagTestCases,
  deleteCasesById,
  liveCasesInFolders,
  lockTcaseWrites,
} from './bulk/bulk.service.js';
export {
  countTestCases,
  findTestCasesBySeq,
  getTestCase,
  getTestCaseVersion,
  listTestCases,
  listTestCaseVersions,
} from './listing/listing.service.js';

export {
  checkImportedContent,
  checkImportedCustomFields,
  exportFolderPage,
  findCasesByLegacyIds,
  maxImportStepCount,
  restoreImportedRemovals,
  revertImportedCases,
  writeImportedCases,
  type ImportedContent,
  type ImportWrite,
  type ImportWritten,
} from './imported/imported.service.js';

import type { TcasesChanged } from './test-cases.common.js';
export type { TcasesChanged };
/** The longest title a test case takes (importers check names against it before creating anything). */
export { TITLE_MAX } from './test-cases.common.js';

/**
 * Creates a standalone or template test case (docs/api-decisions.md#endpoints-beyond-the-public-api); a template's `parameterValues` each
 * make one filled case. Seqs come from the project counter in the same transaction (gap-free, unique).
 */
export async function createTestCase(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateTcaseBody,
  tcasesChanged: TcasesChanged,
): Promise<{ id: string; seq: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const errors: ErrorDetail[] = [];
  const isTemplate = input.type === 'template';
  validateWrite(input, isTemplate, errors);
  if (errors.length > 0) throw fail(errors);
  await getFolder(db, actor.tenantId, project.id, input.folderId);

  const at = nowIso();
  const result = await inTransaction(db, async (trx) => {
    const filledCount = input.parameterValues?.length ?? 0;
    const firstSeq = await allocateTcaseSeqs(trx, project.id, 1 + filledCount);
    // Again under the project lock: a folder deleted meanwhile (folder-delete/ takes the same lock) is gone.
    await getFolder(trx, actor.tenantId, project.id, input.folderId);
    let pos: number;
    if (input.pos !== undefined) {
      await assertPosFree(trx, actor.tenantId, project, input.folderId, input.pos);
      pos = input.pos;
    } else {
      pos = (await repo.maxPosInFolder(trx, actor.tenantId, project.id, input.folderId)) + 1;
    }
    const resolved = await resolveReferences(trx, actor.tenantId, project.id, input);
    const customFields = await normalizeTcaseCustomFields(
      trx,
      actor.tenantId,
      project.id,
      input.customFields ?? {},
    );
    const spec = applyInput(emptySpec(input.priority), input, resolved, customFields);
    if (isTemplate) spec.templateData = { suffixParams: spec.templateData.suffixParams ?? [] };

    const id = newTcaseId();
    const isDraft = input.isDraft ?? false;
    const cases: NewCase[] = [
      { id, seq: firstSeq, type: input.type, folderId: input.folderId, pos, isDraft, templateId: null, spec },
    ];
    const valueErrors: ErrorDetail[] = [];
    (input.parameterValues ?? []).forEach(({ values }, i) =>
      checkValues(spec, values, `/parameterValues/${i}/values`, valueErrors),
    );
    if (valueErrors.length > 0) throw fail(valueErrors);
    // Filled cases go after the template and after everything in the folder (input.pos may be anywhere).
    const nextPos =
      filledCount === 0
        ? pos + 1
        : Math.max(pos, await repo.maxPosInFolder(trx, actor.tenantId, project.id, input.folderId)) + 1;
    cases.push(
      ...filledCases(
        { id, spec, folderId: input.folderId, isDraft },
        (input.parameterValues ?? []).map((p) => p.values),
        firstSeq + 1,
        Array.from({ length: filledCount }, (_, i) => nextPos + i),
      ),
    );
    await insertCases(trx, actor, project, cases, at);
    await tcasesChanged(
      trx,
      actor.tenantId,
      project.id,
      cases.map((c) => c.id),
    );
    await enqueueEvent(trx, {
      tenantId: actor.tenantId,
      projectId: project.id,
      type: 'tcase_created',
      object: { id, seq: firstSeq, title: spec.title, folderId: input.folderId },
    });
    await auditCases(
      trx,
      actor,
      project,
      'tcase.created',
      cases.map((c) => c.id),
      { title: spec.title, folder_id: input.folderId },
    );
    return { id, seq: firstSeq };
  });
  return result;
}

/**
 * Creates standalone, published, medium-priority cases in the leaf of `folderPath`, which is created as
 * needed (docs/api-decisions.md#endpoints-beyond-the-public-api, the result uploader's `--create-tcases`); answers in request order.
 */
export async function bulkCreateTestCases(
  db: Db,
  actor: Actor,
  projectRef: string,
  body: BulkCreateBody,
  tcasesChanged: TcasesChanged,
): Promise<{ tcases: { id: string; seq: number }[] }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const errors: ErrorDetail[] = [];
  body.tcases.forEach((t, i) => {
    if (t.title.trim() === '')
      errors.push({ path: `/tcases/${i}/title`, message: 'title must not be blank' });
  });
  if (errors.length > 0) throw fail(errors);
  const at = nowIso();
  return inTransaction(db, async (trx) => {
    const firstSeq = await allocateTcaseSeqs(trx, project.id, body.tcases.length);
    const [chain] = await upsertFolderPaths(trx, actor.tenantId, project.id, [{ path: body.folderPath }], {
      pointer: () => '/folderPath',
    });
    const folderId = chain[chain.length - 1];
    let pos = (await repo.maxPosInFolder(trx, actor.tenantId, project.id, folderId)) + 1;
    const allTitles = body.tcases.flatMap((t) => t.tags ?? []);
    const allTagIds = await ensureTagIds(trx, actor.tenantId, project.id, allTitles);
    let k = 0;
    const cases: NewCase[] = body.tcases.map((t, i) => {
      const tagIds = [...new Set(allTagIds.slice(k, (k += (t.tags ?? []).length)))];
      return {
        id: newTcaseId(),
        seq: firstSeq + i,
        type: 'standalone',
        folderId,
        pos: pos++,
        isDraft: false,
        templateId: null,
        spec: { ...emptySpec('medium'), title: t.title.trim(), tagIds },
      };
    });
    await insertCases(trx, actor, project, cases, at);
    await tcasesChanged(
      trx,
      actor.tenantId,
      project.id,
      cases.map((c) => c.id),
    );
    await enqueueEvent(trx, {
      tenantId: actor.tenantId,
      projectId: project.id,
      type: 'tcases_created',
      object: { folderId, tcases: cases.map((c) => ({ id: c.id, seq: c.seq, title: c.spec.title })) },
    });
    await auditCases(
      trx,
      actor,
      project,
      'tcase.created',
      cases.map((c) => c.id),
      { folder_id: folderId },
    );
    return { tcases: cases.map((c) => ({ id: c.id, seq: c.seq })) };
  });
}

const FILLED_ALLOWED = new Set(['priority']);

/**
 * `If-Match` of a test-case update (docs/api-decisions.md#test-case-version-precondition): the version the
 * client last read, as the ETag a GET sends (`"3"`; a weak `W/"3"` and a bare `3` are read the same). `*`, or no
 * header, sets no precondition. Several tags: the update goes ahead when any of them is the current version.
 */
export function parseIfMatch(header: string | undefined): number[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const versions = header.split(',').map((part) => {
    const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(part);
    if (!m)
      throw badRequest('If-Match must name a test case version, like "3" (the ETag of a GET)', '/If-Match');
    return Number(m[1]);
  });
  return versions;
}

export interface UpdateOptions {
  /** If-Match: the update happens only while the case is at one of these versions (else 409). */
  ifVersion?: number[];
}

/**
 * Updates the given fields (docs/api-decisions.md#endpoints-beyond-the-public-api): versioned changes make version n+1 (D15), folder, pos and
 * isDraft do not; `isDraft: false` publishes and a published case cannot go back to draft (D16);
 * a template's edits reach its filled cases, and `parameterValues` replaces their set; filled cases
 * take only `priority`.
 */
export async function updateTestCase(
  db: Db,
  actor: Actor,
  projectRef: string,
  ref: string,
  input: UpdateTcaseBody,
  tcasesChanged: TcasesChanged,
  options: UpdateOptions = {},
): Promise<{ message: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const found = await requireTcase(db, actor.tenantId, project, ref);
  const errors: ErrorDetail[] = [];
  const given = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
  if (found.type === 'filled') {
    const refused = given.filter((k) => !FILLED_ALLOWED.has(k));
    if (refused.length > 0) {
      throw badRequest(
        `a filled test case takes only priority; change ${refused.join(', ')} on its template ${found.template_id}`,
        `/${refused[0]}`,
      );
    }
  }
  validateWrite(input, found.type === 'template', errors);
  if (input.isDraft === true && found.is_draft === 0) {
    errors.push({ path: '/isDraft', message: 'a published test case cannot become a draft again (D16)' });
  }
  if (errors.length > 0) throw fail(errors);
  if (input.folderId !== undefined) await getFolder(db, actor.tenantId, project.id, input.folderId);

  const at = nowIso();
  await inTransaction(db, async (trx) => {
    await lockProject(trx, project.id);
    // Re-read under the lock: another writer may have made a version meanwhile.
    const row = await repo.findTcaseBy(trx, actor.tenantId, project.id, { id: found.id });
    if (!row) throw notFound(`test case "${ref}" not found in project ${project.code}`);
    if (input.folderId !== undefined) await getFolder(trx, actor.tenantId, project.id, input.folderId);
    if (options.ifVersion !== undefined && !options.ifVersion.includes(row.latest_version)) {
      throw conflict(
        `test case ${project.code}-${String(row.seq).padStart(3, '0')} is at version ${row.latest_version}, ` +
          `not ${options.ifVersion.join(' or ')}: it was changed since it was read`,
      );
    }
    const changed = new Set<string>();
    const prevs = await loadPrevious(trx, actor.tenantId, [row]);
    const prev = prevs.get(row.id)!;
    const resolved = await resolveReferences(trx, actor.tenantId, project.id, input);
    const customFields =
      input.customFields !== undefined
        ? await normalizeTcaseCustomFields(
            trx,
            actor.tenantId,
            project.id,
            input.customFields,
            prev.stored.customFields,
          )
        : prev.stored.customFields;
    const spec = applyInput(specOf(prev), input, resolved, customFields);
    const linkUpdates: { id: string; stored: Stored }[] = [];

    // Moves and publishing are not versioned (D15).
    const move: { folder_id?: number; pos?: number; is_draft?: number } = {};
    const folderId = input.folderId ?? row.folder_id;
    if (input.folderId !== undefined && input.folderId !== row.folder_id) move.folder_id = input.folderId;
    if (input.pos !== undefined && (input.pos !== row.pos || move.folder_id !== undefined)) {
      await assertPosFree(trx, actor.tenantId, project, folderId, input.pos, row.id);
      move.pos = input.pos;
    } else if (move.folder_id !== undefined) {
      move.pos = (await repo.maxPosInFolder(trx, actor.tenantId, project.id, folderId)) + 1;
    }
    if (input.isDraft === false && row.is_draft === 1) move.is_draft = 0;
    if (Object.keys(move).length > 0) {
      await repo.updateTcase(trx, actor.tenantId, row.id, { ...move, updated_at: at });
      changed.add(row.id);
    }

    const stored = await commitVersion(trx, actor, row, prev, spec, at, project.id);
    if (stored) {
      changed.add(row.id);
      linkUpdates.push({ id: row.id, stored });
    }

    if (row.type === 'template') {
      await updateFilled(trx, actor, project, row, spec, input, move, at, changed, linkUpdates);
    }
    await syncLinks(trx, actor.tenantId, linkUpdates);
    await tcasesChanged(trx, actor.tenantId, project.id, [...changed]);
    if (changed.size > 0)
      await enqueueEvent(trx, {
        tenantId: actor.tenantId,
        projectId: project.id,
        type: 'tcase_edited',
        object: {
          id: row.id,
          seq: row.seq,
          title: stored?.title ?? row.title,
          version: stored ? row.latest_version + 1 : row.latest_version,
        },
      });
    // A move alone is a move; anything else is an edit that may also have moved the case.
    const onlyMoved = !stored && move.folder_id !== undefined;
    await auditCases(trx, actor, project, onlyMoved ? 'tcase.moved' : 'tcase.updated', [...changed], {
      title: stored?.title ?? row.title,
      version: stored ? row.latest_version + 1 : row.latest_version,
      fields: given,
      ...(move.folder_id !== undefined ? { folder_id: move.folder_id } : {}),
    });
  });
  return { message: 'Test case updated' };
}

/** Deletes a test case (soft: results in runs keep pointing at it); a template takes its filled cases along. */
export async function deleteTestCase(
  db: Db,
  actor: Actor,
  projectRef: string,
  ref: string,
  tcasesChanged: TcasesChanged,
): Promise<{ message: string }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const row = await requireTcase(db, actor.tenantId, project, ref);
  const at = nowIso();
  await inTransaction(db, async (trx) => {
    await lockProject(trx, project.id);
    const ids = [row.id];
    if (row.type === 'template') {
      ids.push(...(await repo.listFilledOf(trx, actor.tenantId, [row.id])).map((f) => f.id));
    }
    await repo.softDeleteTcases(trx, actor.tenantId, ids, at);
    await contentRepo.removeLatestLinks(trx, actor.tenantId, ids);
    await tcasesChanged(trx, actor.tenantId, project.id, ids);
    await auditCases(trx, actor, project, 'tcase.deleted', ids, { title: row.title });
  });
  return { message: 'Test case deleted' };
}
