import type { Actor } from '../../../auth/actor.js';
import type { Db } from '../../../db/create-db.js';
import { AppError, badRequest, type ErrorDetail } from '../../../errors.js';
import { newTcaseId } from '../../../lib/ids.js';
import {
  listFieldsBySystemName,
  normalizeTcaseCustomFields,
} from '../../custom-fields/custom-fields.service.js';
import type { FilesContext } from '../../files/files.service.js';
import type { Project } from '../../projects/projects.schemas.js';
import { allocateTcaseSeqs } from '../../projects/projects.service.js';
import { REQUIREMENT_TEXT_MAX, REQUIREMENT_URL_MAX } from '../../requirements/requirements.service.js';
import { ensureTagIds, TAG_TITLE_MAX } from '../../tags/tags.service.js';
import { isHttpUrl } from '../../../lib/urls.js';
import type { Spec, Stored } from '../content/content.model.js';
import { applyInput, resolveReferences, validateWrite } from '../content/content.input.js';
import { storedOf, toTcases } from '../content/content.view.js';
import * as repo from '../test-cases.repository.js';
import type { TcasesChanged } from '../test-cases.common.js';
import { fail, lockProject } from '../test-cases.common.js';
import type { Priority, TCase } from '../test-cases.schemas.js';
import {
  commitVersion,
  emptySpec,
  insertCases,
  loadPrevious,
  specOf,
  syncLinks,
  type NewCase,
} from '../versions/versions.service.js';
import { enqueueEvents, type NewEvent } from '../../webhooks/webhook-events.service.js';
import {
  checkValues,
  filledCases,
  pairFilledByValues,
  updateFilled,
  type FilledChanges,
} from '../templates/templates.service.js';
import * as importedRepo from './imported.repository.js';

/*
 * Test cases written by an import (src/modules/imports/): the same rules as the API's writes (validateWrite,
 * references created on demand, custom fields normalised, D15 versions only when content changed, D17 runs told),
 * many cases per transaction. The import pipeline decides what to write; this file writes it.
 */

/** Everything an import sets on a case; the file is the truth, so absent lists mean "none". */
export interface ImportedContent {
  title: string;
  priority: Priority;
  precondition: string;
  /** Standalone steps, or one of the project's shared steps by id (checked when written). */
  steps: ({ description: string; expected: string } | { sharedStepId: number })[];
  tags: string[];
  requirements: { text: string; url: string }[];
  links: { text: string; url: string }[];
  customFields: Record<string, string>;
  /** Ids of the tenant's files to attach; absent keeps a changed case's attachments as they are. */
  files?: string[];
  /**
   * A template's: the values of each of its filled cases (the whole set: a changed template's filled cases become
   * these, as PATCH's `parameterValues` does) and the parameters whose values end a filled title. Absent: standalone.
   */
  template?: { parameterValues?: Record<string, string>[]; suffixParams: string[] };
}

export interface ImportWrite {
  folderId: number;
  legacyId?: string;
  isDraft: boolean;
  content: ImportedContent;
}

const inputOf = (c: ImportedContent) => ({
  title: c.title,
  priority: c.priority,
  precondition: { text: c.precondition },
  steps: c.steps,
  tags: c.tags,
  requirements: c.requirements,
  links: c.links,
  customFields: Object.fromEntries(Object.entries(c.customFields).map(([k, value]) => [k, { value }])),
  ...(c.files ? { files: c.files } : {}),
  ...(c.template ? { filledTCaseTitleSuffixParams: c.template.suffixParams } : {}),
});

/** A template's spec as created from this content, for checking its value sets (no references resolved). */
function templateSpec(content: ImportedContent): Spec {
  const spec = applyInput(emptySpec(content.priority), inputOf(content), { sharedSteps: new Map() }, {});
  spec.templateData = { suffixParams: content.template?.suffixParams ?? [] };
  return spec;
}

/** Each value set checked as creating the template checks it (placeholders and suffix parameters, title length). */
function checkValueSets(spec: Spec, content: ImportedContent, errors: ErrorDetail[]): void {
  (content.template?.parameterValues ?? []).forEach((values, i) =>
    checkValues(spec, values, `/parameterValues/${i}/values`, errors, ` (Parameter Values entry ${i + 1})`),
  );
}

/** Every reason the API would refuse this content, custom fields aside (checkImportedCustomFields); no database. */
export function checkImportedContent(content: ImportedContent): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  validateWrite(inputOf(content), content.template !== undefined, errors);
  if (content.template && errors.length === 0) checkValueSets(templateSpec(content), content, errors);
  content.tags.forEach((t, i) => {
    if (t.trim() === '' || t.trim().length > TAG_TITLE_MAX)
      errors.push({ path: `/tags/${i}`, message: `tag titles must be 1-${TAG_TITLE_MAX} characters` });
  });
  const seen = new Set<string>();
  content.requirements.forEach(({ text, url }, i) => {
    if (text.trim() === '' || text.trim().length > REQUIREMENT_TEXT_MAX)
      errors.push({
        path: `/requirements/${i}/text`,
        message: `requirement text must be 1-${REQUIREMENT_TEXT_MAX} characters`,
      });
    if (url !== '' && (url.length > REQUIREMENT_URL_MAX || !isHttpUrl(url)))
      errors.push({
        path: `/requirements/${i}/url`,
        message: `requirement url must be "" or an absolute http(s) URL of at most ${REQUIREMENT_URL_MAX} characters`,
      });
    const key = JSON.stringify([text.trim(), url.trim()]);
    if (seen.has(key))
      errors.push({ path: `/requirements/${i}`, message: `requirement "${text}" is listed twice` });
    seen.add(key);
  });
  return errors;
}

/**
 * The custom-field values as the API would check them (fields read, nothing written); `isNew` adds the
 * create-only rule that required fields have a value.
 */
export async function checkImportedCustomFields(
  db: Db,
  tenantId: string,
  projectId: string,
  values: Record<string, string>,
  isNew: boolean,
): Promise<ErrorDetail[]> {
  const input = Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }]));
  try {
    await normalizeTcaseCustomFields(db, tenantId, projectId, input, isNew ? undefined : {});
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.details ?? [{ path: '/customFields', message: err.message }];
  }
}

/** legacy id → the live case holding it: id and type. */
export const findCasesByLegacyIds = (db: Db, tenantId: string, projectId: string, legacyIds: string[]) =>
  importedRepo.findLiveByLegacyIds(db, tenantId, projectId, legacyIds);

/** What one chunk of an import wrote: what taking it back needs, and the counts of the file's rows. */
export interface ImportWritten {
  /** Every case created, the filled cases of templates included (taking back deletes them). */
  created: string[];
  /** Cases given a new version, with the version they had before (taking back returns to it). */
  versioned: { id: string; version: number }[];
  /** Filled cases deleted because their template's value sets no longer list them (taking back restores them). */
  removed: string[];
  /** Rows (standalone and template cases: a template counts once, whatever its filled cases) created and changed. */
  rows: { created: number; updated: number };
  /** What became of each item, in the order given. */
  outcomes: ('created' | 'updated' | 'unchanged')[];
}

/**
 * Writes one chunk of an import inside the caller's transaction: a case whose legacy id matches a live case
 * updates it (a new version only when something changed; a draft is published when the file says so), the others
 * are created at the end of their folders. A template is written as the API writes one: created with a filled case
 * per value set after it, or changed with its filled cases brought in line and its value sets replacing the filled
 * set (the filled case holding the same values is kept). Answers what it wrote (ImportWritten).
 */
export async function writeImportedCases(
  trx: Db,
  actor: Actor,
  project: Project,
  items: ImportWrite[],
  tcasesChanged: TcasesChanged,
  at: string,
  importId: number,
): Promise<ImportWritten> {
  const tenantId = actor.tenantId;
  await lockProject(trx, project.id);
  const matches = await importedRepo.findLiveByLegacyIds(
    trx,
    tenantId,
    project.id,
    items.flatMap((i) => (i.legacyId === undefined ? [] : [i.legacyId])),
  );
  const fresh = items.filter((i) => i.legacyId === undefined || !matches.has(i.legacyId));
  const valueSets = (i: ImportWrite) => i.content.template?.parameterValues ?? [];
  let seq = await allocateTcaseSeqs(
    trx,
    project.id,
    fresh.reduce((n, i) => n + 1 + valueSets(i).length, 0),
  );
  // The chunk's tags and the tenant's custom fields are read once, not once a case: three queries a case were
  // most of a PostgreSQL import's time. (Tag titles were checked in the first pass.)
  const titles = [...new Set(items.flatMap((i) => i.content.tags).map((t) => t.trim()))];
  const tagIds = await ensureTagIds(trx, tenantId, project.id, titles);
  const knownTags = new Map(titles.map((t, i) => [t, tagIds[i]]));
  const fields = await listFieldsBySystemName(trx, tenantId);
  const nextPos = new Map<number, number>();
  const cases: NewCase[] = [];
  for (const item of fresh) {
    const input = inputOf(item.content);
    const resolved = await resolveReferences(trx, tenantId, project.id, input, knownTags);
    const customFields = await normalizeTcaseCustomFields(
      trx,
      tenantId,
      project.id,
      input.customFields,
      undefined,
      fields,
    );
    let pos = nextPos.get(item.folderId);
    if (pos === undefined) pos = (await repo.maxPosInFolder(trx, tenantId, project.id, item.folderId)) + 1;
    const spec = applyInput(emptySpec(item.content.priority), input, resolved, customFields);
    const id = newTcaseId();
    const base = { id, folderId: item.folderId, isDraft: item.isDraft, legacyId: item.legacyId };
    if (!item.content.template) {
      cases.push({ ...base, seq: seq++, type: 'standalone', pos: pos++, templateId: null, spec });
    } else {
      spec.templateData = { suffixParams: spec.templateData.suffixParams ?? [] };
      const errors: ErrorDetail[] = [];
      checkValueSets(spec, item.content, errors);
      if (errors.length > 0) throw fail(errors);
      cases.push({ ...base, seq: seq++, type: 'template', pos: pos++, templateId: null, spec });
      const sets = valueSets(item);
      const positions = sets.map((_, i) => pos! + i);
      cases.push(
        ...filledCases({ id, spec, folderId: item.folderId, isDraft: item.isDraft }, sets, seq, positions),
      );
      seq += sets.length;
      pos += sets.length;
    }
    nextPos.set(item.folderId, pos);
  }
  if (cases.length > 0) await insertCases(trx, actor, project, cases, at);

  const changed = new Set(cases.map((c) => c.id));
  const linkUpdates: { id: string; stored: Stored }[] = [];
  const filled: FilledChanges = { created: [], versioned: [], removed: [] };
  const versioned: { id: string; version: number }[] = [];
  let updated = 0;
  const outcomes: ImportWritten['outcomes'] = items.map((i) =>
    i.legacyId === undefined || !matches.has(i.legacyId) ? 'created' : 'unchanged',
  );
  for (const [index, item] of items.entries()) {
    const id = item.legacyId === undefined ? undefined : matches.get(item.legacyId)?.id;
    if (id === undefined) continue;
    const row = await repo.findTcaseBy(trx, tenantId, project.id, { id });
    if (!row) continue;
    const isTemplate = item.content.template !== undefined;
    // Checked before the first write; another writer may have changed the case since.
    if ((row.type === 'template') !== isTemplate || row.type === 'filled')
      throw badRequest(
        `legacy id "${item.legacyId}" is now on a ${row.type} test case, not a ${isTemplate ? 'template' : 'standalone'} one`,
      );
    const prev = (await loadPrevious(trx, tenantId, [row])).get(row.id)!;
    const input = inputOf(item.content);
    const resolved = await resolveReferences(trx, tenantId, project.id, input, knownTags);
    const customFields = await normalizeTcaseCustomFields(
      trx,
      tenantId,
      project.id,
      input.customFields,
      prev.stored.customFields,
      fields,
    );
    const spec = applyInput(specOf(prev), input, resolved, customFields);
    const stored = await commitVersion(trx, actor, row, prev, spec, at, project.id);
    let touched = stored !== undefined;
    if (stored) {
      linkUpdates.push({ id: row.id, stored });
      versioned.push({ id: row.id, version: row.latest_version });
    }
    // D16: publishing is not versioned, and a published case never goes back to draft.
    const publish = !item.isDraft && row.is_draft === 1;
    if (publish) {
      await repo.updateTcase(trx, tenantId, row.id, { is_draft: 0, updated_at: at });
      touched = true;
    }
    if (item.content.template) {
      const before = filled.created.length + filled.versioned.length + filled.removed.length;
      // No value sets in the file: the filled cases stay, only brought in line with the template.
      const given = item.content.template.parameterValues;
      const parameterValues =
        given === undefined ? undefined : await pairFilledByValues(trx, tenantId, row.id, given);
      await updateFilled(
        trx,
        actor,
        project,
        row,
        spec,
        { parameterValues },
        publish ? { is_draft: 0 } : {},
        at,
        changed,
        linkUpdates,
        filled,
      );
      if (filled.created.length + filled.versioned.length + filled.removed.length > before) touched = true;
    }
    if (touched) {
      updated++;
      outcomes[index] = 'updated';
      changed.add(row.id);
    }
  }
  await syncLinks(trx, tenantId, linkUpdates);
  await tcasesChanged(trx, tenantId, project.id, [...changed]);
  // The events bulk writes of the API send, one of each kind per chunk (docs/api-decisions.md#imports-and-exports).
  const events: NewEvent[] = [];
  const made = [...cases, ...filled.created];
  if (made.length > 0)
    events.push({
      tenantId,
      projectId: project.id,
      type: 'tcases_created',
      object: {
        importId,
        tcases: made.map((c) => ({ id: c.id, seq: c.seq, title: c.spec.title, folderId: c.folderId })),
      },
    });
  const madeIds = new Set(made.map((c) => c.id));
  const edited = [...changed].filter((id) => !madeIds.has(id));
  if (edited.length > 0)
    events.push({
      tenantId,
      projectId: project.id,
      type: 'tcases_edited',
      object: { action: 'imported', importId, count: edited.length, tcaseIds: edited },
    });
  await enqueueEvents(trx, events);
  return {
    created: [...madeIds],
    versioned: [...versioned, ...filled.versioned],
    removed: filled.removed,
    rows: { created: fresh.length, updated },
    outcomes,
  };
}

/**
 * Takes back what an import changed in existing cases (inside the caller's transaction): each case gets its content
 * of `version` again, as a new version (D15: versions are never removed, and a run may already point at the
 * import's). A case deleted meanwhile stays deleted, and one already as it was gets no version. Answers the ids of
 * the cases changed back.
 */
export async function revertImportedCases(
  trx: Db,
  actor: Actor,
  project: Project,
  items: { id: string; version: number }[],
  tcasesChanged: TcasesChanged,
  at: string,
): Promise<string[]> {
  const tenantId = actor.tenantId;
  await lockProject(trx, project.id);
  const before = new Map(
    (
      await repo.listCasesAtVersions(
        trx,
        tenantId,
        items.map((i) => ({ tcaseId: i.id, version: i.version })),
      )
    ).map((r) => [r.id, r]),
  );
  const linkUpdates: { id: string; stored: Stored }[] = [];
  for (const item of items) {
    const row = await repo.findTcaseBy(trx, tenantId, project.id, { id: item.id });
    const old = before.get(item.id);
    if (!row || !old) continue;
    // One id, two versions: loaded apart (loadPrevious answers by id).
    const current = (await loadPrevious(trx, tenantId, [row])).get(row.id)!;
    const wanted = specOf((await loadPrevious(trx, tenantId, [old])).get(old.id)!);
    const stored = await commitVersion(trx, actor, row, current, wanted, at, project.id);
    if (stored) linkUpdates.push({ id: row.id, stored });
  }
  await syncLinks(trx, tenantId, linkUpdates);
  await tcasesChanged(
    trx,
    tenantId,
    project.id,
    linkUpdates.map((u) => u.id),
  );
  return linkUpdates.map((u) => u.id);
}

/**
 * Takes back the deletion of filled cases an import made (inside the caller's transaction): each is live again,
 * as it was, in its template's folder (at its old position unless another case holds it now). A filled case whose
 * template is gone meanwhile stays deleted with it. Answers the ids of those that came back.
 */
export async function restoreImportedRemovals(
  trx: Db,
  actor: Actor,
  project: Project,
  ids: string[],
  tcasesChanged: TcasesChanged,
  at: string,
): Promise<string[]> {
  const tenantId = actor.tenantId;
  await lockProject(trx, project.id);
  const restored: { id: string; stored: Stored }[] = [];
  for (const id of ids) {
    const row = await repo.findTcaseBy(trx, tenantId, project.id, { id }, { includeDeleted: true });
    if (!row || row.deleted_at === null || row.template_id === null) continue;
    const template = await repo.findTcaseBy(trx, tenantId, project.id, { id: row.template_id });
    if (!template) continue;
    const other = await repo.findCaseAtPos(trx, tenantId, project.id, template.folder_id, row.pos);
    const pos =
      template.folder_id === row.folder_id && !other
        ? row.pos
        : (await repo.maxPosInFolder(trx, tenantId, project.id, template.folder_id)) + 1;
    await repo.updateTcase(trx, tenantId, id, {
      deleted_at: null,
      folder_id: template.folder_id,
      pos,
      // D16: a filled case is published with its template.
      ...(template.is_draft === 0 ? { is_draft: 0 } : {}),
      updated_at: at,
    });
    restored.push({ id, stored: storedOf(row) });
  }
  await syncLinks(trx, tenantId, restored);
  await tcasesChanged(
    trx,
    tenantId,
    project.id,
    restored.map((r) => r.id),
  );
  return restored.map((r) => r.id);
}

/**
 * One page of a folder's standalone and template cases for an export, by position after `after`, with steps,
 * precondition, tags, requirements, custom fields and parameter values.
 */
export async function exportFolderPage(
  db: Db,
  tenantId: string,
  projectId: string,
  folderId: number,
  after: { pos: number; seq: number } | undefined,
  limit: number,
  files: FilesContext,
): Promise<TCase[]> {
  const page = await importedRepo.listFolderPage(db, tenantId, projectId, folderId, after, limit);
  if (page.length === 0) return [];
  const rows = await repo.listLatestByIds(
    db,
    tenantId,
    page.map((p) => p.id),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ordered = page.flatMap((p) => (byId.has(p.id) ? [byId.get(p.id)!] : []));
  return toTcases(db, tenantId, ordered, {
    include: new Set(['steps', 'precondition', 'tags', 'requirements', 'customFields', 'parameterValues']),
    files,
  });
}

/** The most steps a live standalone or template case of the project has. */
export const maxImportStepCount = (db: Db, tenantId: string, projectId: string) =>
  importedRepo.maxStepCount(db, tenantId, projectId);
