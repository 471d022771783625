import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { type ErrorDetail } from '../../../errors.js';
import { sanitizeHtmlField } from '../../../lib/html.js';
import { newTcaseId } from '../../../lib/ids.js';
import { allocateTcaseSeqs } from '../../projects/projects.service.js';
import type { Project } from '../../projects/projects.schemas.js';
import {
  fillPlaceholders,
  placeholdersOf,
  templateTexts,
  titleSuffix,
  type Spec,
  type Stored,
} from '../content/content.model.js';
import * as repo from '../test-cases.repository.js';
import * as contentRepo from '../content/content.repository.js';
import type { TcaseRow } from '../test-cases.repository.js';
import { type Priority, type UpdateTcaseBody } from '../test-cases.schemas.js';
import { TITLE_MAX, fail } from '../test-cases.common.js';
import { NewCase, commitVersion, insertCases, loadPrevious } from '../versions/versions.service.js';

/* Templates and their filled cases: filled content, parameter checks, keeping the filled set in line. */

/** The spec of a filled case: the template's content with `${name}` replaced and the title suffix added. */
export function filledSpec(template: Spec, values: Record<string, string>, priority: Priority): Spec {
  const fill = (html: string) => sanitizeHtmlField(fillPlaceholders(html, values));
  return {
    ...template,
    title:
      fillPlaceholders(template.title, values) +
      titleSuffix(template.templateData.suffixParams ?? [], values),
    priority,
    precondition:
      template.precondition.type === 'standalone'
        ? { type: 'standalone', text: fill(template.precondition.text) }
        : template.precondition,
    steps: template.steps.map((s) =>
      s.type === 'standalone'
        ? { type: 'standalone', description: fill(s.description), expected: fill(s.expected) }
        : s,
    ),
    templateData: { values: { ...values } },
  };
}

/** 400 naming the placeholder (or suffix parameter) a set of values lacks, and for over-long filled titles. */
export function checkValues(
  template: Spec,
  values: Record<string, string>,
  path: string,
  errors: ErrorDetail[],
  what = '',
): void {
  for (const name of placeholdersOf(templateTexts(template))) {
    if (!Object.prototype.hasOwnProperty.call(values, name)) {
      errors.push({ path, message: `no value for the placeholder \${${name}}${what}` });
    }
  }
  for (const name of template.templateData.suffixParams ?? []) {
    if (!Object.prototype.hasOwnProperty.call(values, name)) {
      errors.push({ path, message: `no value for the title suffix parameter "${name}"${what}` });
    }
  }
  const title =
    fillPlaceholders(template.title, values) + titleSuffix(template.templateData.suffixParams ?? [], values);
  if (title.length > TITLE_MAX) {
    errors.push({ path, message: `the filled title would be longer than ${TITLE_MAX} characters${what}` });
  }
}

/** What updateFilled did to the filled cases, for a caller that must be able to take it back (an import). */
export interface FilledChanges {
  created: NewCase[];
  /** Filled cases given a new version, with the version they had before. */
  versioned: { id: string; version: number }[];
  /** Filled cases deleted (soft) because the new set no longer lists them. */
  removed: string[];
}

/** Brings a template's filled cases in line with it and applies `parameterValues` (docs/api-decisions.md#endpoints-beyond-the-public-api). */
export async function updateFilled(
  trx: Db,
  actor: Actor,
  project: Project,
  template: TcaseRow,
  spec: Spec,
  input: UpdateTcaseBody,
  move: { folder_id?: number; is_draft?: number },
  at: string,
  changed: Set<string>,
  linkUpdates: { id: string; stored: Stored }[],
  track?: FilledChanges,
): Promise<void> {
  const filled = await repo.listFilledOf(trx, actor.tenantId, [template.id]);
  const prevs = await loadPrevious(trx, actor.tenantId, filled);
  const byId = new Map(filled.map((f) => [f.id, f]));
  const errors: ErrorDetail[] = [];

  // The values each kept filled case will have, and the new ones to create.
  const keep = new Map<string, Record<string, string>>();
  const create: Record<string, string>[] = [];
  if (input.parameterValues) {
    input.parameterValues.forEach((pv, i) => {
      if (pv.tcaseId === undefined) {
        create.push(pv.values);
        checkValues(spec, pv.values, `/parameterValues/${i}/values`, errors);
      } else if (!byId.has(pv.tcaseId)) {
        errors.push({
          path: `/parameterValues/${i}/tcaseId`,
          message: `test case ${pv.tcaseId} is not a filled test case of this template`,
        });
      } else if (keep.has(pv.tcaseId)) {
        errors.push({
          path: `/parameterValues/${i}/tcaseId`,
          message: `test case ${pv.tcaseId} is listed twice`,
        });
      } else {
        keep.set(pv.tcaseId, pv.values);
        checkValues(spec, pv.values, `/parameterValues/${i}/values`, errors);
      }
    });
  } else {
    for (const f of filled) {
      const values = prevs.get(f.id)!.stored.templateData.values ?? {};
      keep.set(f.id, values);
      checkValues(spec, values, '/parameterValues', errors, ` (filled test case ${project.code}-${f.seq})`);
    }
  }
  if (errors.length > 0) throw fail(errors);

  const removed = filled.filter((f) => !keep.has(f.id)).map((f) => f.id);
  if (removed.length > 0) {
    await repo.softDeleteTcases(trx, actor.tenantId, removed, at);
    await contentRepo.removeLatestLinks(trx, actor.tenantId, removed);
    for (const id of removed) changed.add(id);
    track?.removed.push(...removed);
  }

  const folderId = move.folder_id ?? template.folder_id;
  let nextPos: number | undefined;
  const posInFolder = async (): Promise<number> => {
    if (nextPos === undefined)
      nextPos = (await repo.maxPosInFolder(trx, actor.tenantId, project.id, folderId)) + 1;
    return nextPos++;
  };

  for (const [id, values] of keep) {
    const f = byId.get(id)!;
    const prev = prevs.get(id)!;
    const stored = await commitVersion(
      trx,
      actor,
      f,
      prev,
      filledSpec(spec, values, prev.stored.priority),
      at,
      project.id,
    );
    if (stored) {
      changed.add(id);
      linkUpdates.push({ id, stored });
      track?.versioned.push({ id, version: f.latest_version });
    }
    const follow: { folder_id?: number; pos?: number; is_draft?: number } = {};
    if (move.folder_id !== undefined && f.folder_id !== move.folder_id) {
      follow.folder_id = move.folder_id;
      follow.pos = await posInFolder();
    }
    if (move.is_draft === 0 && f.is_draft === 1) follow.is_draft = 0;
    if (Object.keys(follow).length > 0) {
      await repo.updateTcase(trx, actor.tenantId, id, { ...follow, updated_at: at });
      changed.add(id);
    }
  }

  if (create.length > 0) {
    const firstSeq = await allocateTcaseSeqs(trx, project.id, create.length);
    const positions: number[] = [];
    for (let i = 0; i < create.length; i++) positions.push(await posInFolder());
    const cases = filledCases(
      { id: template.id, spec, folderId, isDraft: (move.is_draft ?? template.is_draft) === 1 },
      create,
      firstSeq,
      positions,
    );
    await insertCases(trx, actor, project, cases, at);
    for (const c of cases) changed.add(c.id);
    track?.created.push(...cases);
  }
}

/**
 * The filled cases a template's value sets make, as creating a template and PATCHing its `parameterValues` make
 * them: seqs from `firstSeq` on, positions as given, the template's draft state and priority.
 */
export function filledCases(
  template: { id: string; spec: Spec; folderId: number; isDraft: boolean },
  valueSets: Record<string, string>[],
  firstSeq: number,
  positions: number[],
): NewCase[] {
  return valueSets.map((values, i) => ({
    id: newTcaseId(),
    seq: firstSeq + i,
    type: 'filled',
    folderId: template.folderId,
    pos: positions[i],
    isDraft: template.isDraft,
    templateId: template.id,
    spec: filledSpec(template.spec, values, template.spec.priority),
  }));
}

const valuesKey = (values: Record<string, string>) =>
  JSON.stringify(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Value sets as PATCH's `parameterValues` takes them, each paired with a live filled case of the template that
 * holds the same values (each case once): a file names no filled case, so equal values are what make the same
 * filled case. Sets without a partner make new filled cases; filled cases left over are deleted by updateFilled.
 */
export async function pairFilledByValues(
  trx: Db,
  tenantId: string,
  templateId: string,
  valueSets: Record<string, string>[],
): Promise<{ tcaseId?: string; values: Record<string, string> }[]> {
  const filled = await repo.listFilledOf(trx, tenantId, [templateId]);
  const prevs = await loadPrevious(trx, tenantId, filled);
  const free = new Map<string, string[]>();
  for (const f of filled) {
    const key = valuesKey(prevs.get(f.id)!.stored.templateData.values ?? {});
    free.set(key, [...(free.get(key) ?? []), f.id]);
  }
  return valueSets.map((values) => {
    const tcaseId = free.get(valuesKey(values))?.shift();
    return tcaseId === undefined ? { values } : { tcaseId, values };
  });
}
