import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { conflict } from '../../../errors.js';
import type { Project } from '../../projects/projects.schemas.js';
import {
  isBlankHtml,
  sameContent,
  type PreconditionRef,
  type Spec,
  type StepRef,
  type StepSpec,
  type Stored,
} from '../content/content.model.js';
import * as repo from '../test-cases.repository.js';
import * as contentRepo from '../content/content.repository.js';
import * as versionsRepo from './versions.repository.js';
import type { TcaseRow } from '../test-cases.repository.js';
import { type Priority } from '../test-cases.schemas.js';
import { storedOf } from '../content/content.view.js';
import { customFieldIdsBySystemName } from '../test-cases.common.js';

/* Versions (D15): stored content, new versions when content changed, link rows of the latest version, inserts. */

interface Previous {
  stored: Stored;
  stepTexts: Map<number, { description: string; expected: string }>;
  preconditionText?: string;
}

/** Loads what is needed to reuse step and precondition ids of the current versions. */
export async function loadPrevious(
  db: Db,
  tenantId: string,
  rows: TcaseRow[],
): Promise<Map<string, Previous>> {
  const stored = rows.map(storedOf);
  const stepIds = stored.flatMap((s) => s.steps.flatMap((r) => (r.type === 'standalone' ? [r.id] : [])));
  const preIds = stored.flatMap((s) => (s.precondition.type === 'standalone' ? [s.precondition.id] : []));
  const steps = new Map((await contentRepo.listStepsByIds(db, tenantId, stepIds)).map((s) => [s.id, s]));
  const pres = new Map(
    (await contentRepo.listPreconditionsByIds(db, tenantId, preIds)).map((p) => [p.id, p.text]),
  );
  const out = new Map<string, Previous>();
  rows.forEach((row, i) => {
    const s = stored[i];
    const stepTexts = new Map<number, { description: string; expected: string }>();
    for (const r of s.steps)
      if (r.type === 'standalone' && steps.has(r.id)) stepTexts.set(r.id, steps.get(r.id)!);
    out.set(row.id, {
      stored: s,
      stepTexts,
      preconditionText: s.precondition.type === 'standalone' ? pres.get(s.precondition.id) : undefined,
    });
  });
  return out;
}

/** The spec that reproduces a stored version (standalone texts filled back in). */
export function specOf(prev: Previous): Spec {
  const s = prev.stored;
  return {
    title: s.title,
    priority: s.priority,
    precondition:
      s.precondition.type === 'shared'
        ? { type: 'shared', id: s.precondition.id, version: s.precondition.version, text: s.comment }
        : { type: 'standalone', text: prev.preconditionText ?? s.comment },
    steps: s.steps.map((r): StepSpec => {
      if (r.type === 'shared') return r;
      const t = prev.stepTexts.get(r.id) ?? { description: '', expected: '' };
      return { type: 'standalone', description: t.description, expected: t.expected };
    }),
    tagIds: s.tagIds,
    requirementIds: s.requirementIds,
    links: s.links,
    customFields: s.customFields,
    fileIds: s.fileIds,
    templateData: s.templateData,
  };
}

export const emptySpec = (priority: Priority): Spec => ({
  title: '',
  priority,
  precondition: { type: 'standalone', text: '' },
  steps: [],
  tagIds: [],
  requirementIds: [],
  links: [],
  customFields: {},
  fileIds: [],
  templateData: {},
});

/**
 * Gives a spec its stored form: standalone steps and preconditions whose text did not change keep their
 * ids (D15: "reuse step ids across versions"); new texts get new rows.
 */
async function materialize(
  trx: Db,
  tenantId: string,
  projectId: string,
  tcaseId: string,
  spec: Spec,
  prev: Previous | undefined,
  at: string,
): Promise<Stored> {
  let precondition: PreconditionRef;
  let comment: string;
  if (spec.precondition.type === 'shared') {
    precondition = { type: 'shared', id: spec.precondition.id, version: spec.precondition.version };
    comment = spec.precondition.text;
  } else {
    comment = spec.precondition.text;
    const old = prev?.stored.precondition;
    if (old?.type === 'standalone' && prev?.preconditionText === comment) {
      precondition = old;
    } else {
      const [id] = await contentRepo.insertPreconditions(
        trx,
        tenantId,
        projectId,
        [{ tcaseId, text: comment }],
        at,
      );
      precondition = { type: 'standalone', id };
    }
  }
  const free = new Map<string, number[]>();
  const textKey = (d: string, e: string) => `${d}\u0000${e}`;
  for (const r of prev?.stored.steps ?? []) {
    const t = r.type === 'standalone' ? prev!.stepTexts.get(r.id) : undefined;
    if (!t) continue;
    const k = textKey(t.description, t.expected);
    free.set(k, [...(free.get(k) ?? []), r.id]);
  }
  const steps: (StepRef | undefined)[] = [];
  const toInsert: { index: number; description: string; expected: string }[] = [];
  spec.steps.forEach((s, index) => {
    if (s.type === 'shared') {
      steps.push({ type: 'shared', id: s.id, version: s.version });
      return;
    }
    const reuse = free.get(textKey(s.description, s.expected))?.shift();
    if (reuse !== undefined) steps.push({ type: 'standalone', id: reuse });
    else {
      steps.push(undefined);
      toInsert.push({ index, description: s.description, expected: s.expected });
    }
  });
  if (toInsert.length > 0) {
    const ids = await contentRepo.insertSteps(
      trx,
      tenantId,
      toInsert.map((s) => ({ tcaseId, description: s.description, expected: s.expected })),
      at,
    );
    toInsert.forEach((s, i) => (steps[s.index] = { type: 'standalone', id: ids[i] }));
  }
  return {
    title: spec.title,
    priority: spec.priority,
    comment,
    isEmpty: isBlankHtml(comment) && spec.steps.length === 0,
    precondition,
    steps: steps as StepRef[],
    tagIds: spec.tagIds,
    requirementIds: spec.requirementIds,
    links: spec.links,
    customFields: spec.customFields,
    fileIds: spec.fileIds,
    templateData: spec.templateData,
  };
}

function versionRow(
  tenantId: string,
  tcaseId: string,
  version: number,
  s: Stored,
  authorId: number,
  at: string,
) {
  return {
    tenant_id: tenantId,
    tcase_id: tcaseId,
    version,
    title: s.title,
    priority: s.priority,
    comment: s.comment,
    is_empty: s.isEmpty ? 1 : 0,
    precondition: JSON.stringify(s.precondition),
    steps: JSON.stringify(s.steps),
    tag_ids: JSON.stringify(s.tagIds),
    requirement_ids: JSON.stringify(s.requirementIds),
    links: JSON.stringify(s.links),
    custom_fields: JSON.stringify(s.customFields),
    file_ids: JSON.stringify(s.fileIds),
    template_data: JSON.stringify(s.templateData),
    author_id: authorId,
    created_at: at,
  };
}

/**
 * `cf_` filters compare whole values; longer values (rich text) are not indexed, which also keeps the
 * (field_id, value) index under PostgreSQL's index-row size limit.
 */
const FILTERABLE_VALUE_MAX = 512;

/** Rewrites the latest-version link rows (tags, requirements, shared steps/preconditions, custom values) and the full-text document. */
export async function syncLinks(
  trx: Db,
  tenantId: string,
  cases: { id: string; stored: Stored }[],
  /** The cases were inserted in this transaction: they have no link rows to remove. */
  fresh = false,
): Promise<void> {
  if (cases.length === 0) return;
  const fieldIds = cases.some((c) => Object.keys(c.stored.customFields).length > 0)
    ? await customFieldIdsBySystemName(trx, tenantId)
    : new Map<string, string>();
  await contentRepo.replaceLatestLinks(
    trx,
    tenantId,
    fresh,
    cases.map(({ id, stored: s }) => ({
      tcaseId: id,
      tagIds: s.tagIds,
      requirementIds: s.requirementIds,
      sharedStepIds: s.steps.flatMap((r) => (r.type === 'shared' ? [r.id] : [])),
      sharedPreconditionIds: s.precondition.type === 'shared' ? [s.precondition.id] : [],
      // Only a value saved under the current field of its name (no id: stored before ids were kept).
      customValues: Object.entries(s.customFields).flatMap(([name, v]) => {
        const fieldId = fieldIds.get(name);
        return fieldId !== undefined &&
          (v.fieldId ?? fieldId) === fieldId &&
          v.value.length <= FILTERABLE_VALUE_MAX
          ? [{ fieldId, value: v.value }]
          : [];
      }),
    })),
  );
  // Every new case and new version passes here: the full-text index follows in the same transaction.
  await contentRepo.reindexCases(
    trx,
    tenantId,
    cases.map((c) => c.id),
  );
}

export async function assertPosFree(
  trx: Db,
  tenantId: string,
  project: Project,
  folderId: number,
  pos: number,
  self?: string,
): Promise<void> {
  const other = await repo.findCaseAtPos(trx, tenantId, project.id, folderId, pos);
  if (other && other.id !== self) {
    throw conflict(
      `position ${pos} in folder ${folderId} is taken by test case ${project.code}-${String(other.seq).padStart(3, '0')}`,
    );
  }
}

export interface NewCase {
  id: string;
  seq: number;
  type: 'standalone' | 'template' | 'filled';
  folderId: number;
  pos: number;
  isDraft: boolean;
  templateId: string | null;
  spec: Spec;
  /** The source's id of an imported case (imports match it on the next import). */
  legacyId?: string;
}

/** Inserts new test cases at version 1 with their steps, preconditions and link rows. */
export async function insertCases(
  trx: Db,
  actor: Actor,
  project: Project,
  cases: NewCase[],
  at: string,
): Promise<void> {
  const tenantId = actor.tenantId;
  await repo.insertTcases(
    trx,
    cases.map((c) => ({
      id: c.id,
      tenant_id: tenantId,
      project_id: project.id,
      seq: c.seq,
      legacy_id: c.legacyId ?? '',
      type: c.type,
      folder_id: c.folderId,
      pos: c.pos,
      is_draft: c.isDraft ? 1 : 0,
      template_id: c.templateId,
      version: 1,
      title: c.spec.title,
      priority: c.spec.priority,
      author_id: actor.userId,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    })),
  );
  const stored = await materializeMany(
    trx,
    tenantId,
    project.id,
    cases.map((c) => ({ id: c.id, spec: c.spec })),
    at,
  );
  await versionsRepo.insertVersions(
    trx,
    cases.map((c, i) => versionRow(tenantId, c.id, 1, stored[i], actor.userId, at)),
  );
  await syncLinks(
    trx,
    tenantId,
    cases.map((c, i) => ({ id: c.id, stored: stored[i] })),
    true,
  );
}

/**
 * materialize() for many new cases at once: one insert for all preconditions and one for all steps, so
 * bulk creation and template expansion stay a handful of statements.
 */
async function materializeMany(
  trx: Db,
  tenantId: string,
  projectId: string,
  cases: { id: string; spec: Spec }[],
  at: string,
): Promise<Stored[]> {
  const preItems = cases.flatMap((c) =>
    c.spec.precondition.type === 'standalone' ? [{ tcaseId: c.id, text: c.spec.precondition.text }] : [],
  );
  const preIds = await contentRepo.insertPreconditions(trx, tenantId, projectId, preItems, at);
  const stepItems = cases.flatMap((c) =>
    c.spec.steps.flatMap((s) =>
      s.type === 'standalone' ? [{ tcaseId: c.id, description: s.description, expected: s.expected }] : [],
    ),
  );
  const stepIds = await contentRepo.insertSteps(trx, tenantId, stepItems, at);
  let p = 0;
  let q = 0;
  return cases.map(({ spec }) => {
    const precondition: PreconditionRef =
      spec.precondition.type === 'standalone'
        ? { type: 'standalone', id: preIds[p++] }
        : { type: 'shared', id: spec.precondition.id, version: spec.precondition.version };
    const steps: StepRef[] = spec.steps.map((s) =>
      s.type === 'standalone'
        ? { type: 'standalone', id: stepIds[q++] }
        : { type: 'shared', id: s.id, version: s.version },
    );
    return {
      title: spec.title,
      priority: spec.priority,
      comment: spec.precondition.text,
      isEmpty: isBlankHtml(spec.precondition.text) && spec.steps.length === 0,
      precondition,
      steps,
      tagIds: spec.tagIds,
      requirementIds: spec.requirementIds,
      links: spec.links,
      customFields: spec.customFields,
      fileIds: spec.fileIds,
      templateData: spec.templateData,
    };
  });
}

/** Writes version n+1 when the content changed (D15); answers whether it did. */
export async function commitVersion(
  trx: Db,
  actor: Actor,
  row: TcaseRow,
  prev: Previous,
  spec: Spec,
  at: string,
  projectId: string,
): Promise<Stored | undefined> {
  const stored = await materialize(trx, actor.tenantId, projectId, row.id, spec, prev, at);
  if (sameContent(stored, prev.stored)) return undefined;
  const version = row.latest_version + 1;
  await versionsRepo.insertVersions(trx, [
    versionRow(actor.tenantId, row.id, version, stored, actor.userId, at),
  ]);
  await repo.updateTcase(trx, actor.tenantId, row.id, {
    version,
    title: stored.title,
    priority: stored.priority,
    updated_at: at,
  });
  return stored;
}
