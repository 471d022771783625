/**
 * Turns test-case rows into API objects. Every relation is loaded for the whole page at once (one query
 * per relation per page, never per row), so lists scale to pages of 5,000 cases.
 */
import type { Db } from '../../../db/create-db.js';
import { parseJson } from '../../../lib/json.js';
import { currentValues, listFieldsBySystemName } from '../../custom-fields/custom-fields.service.js';
import { getFilesByIds, type FilesContext } from '../../files/files.service.js';
import type { Folder } from '../../folders/folders.schemas.js';
import { listFoldersByIds } from '../../folders/folders.service.js';
import type { Project } from '../../projects/projects.schemas.js';
import { getRequirementsByIds } from '../../requirements/requirements.service.js';
import {
  getSharedPreconditions,
  getSharedPreconditionsAtVersions,
} from '../../shared-preconditions/shared-preconditions.service.js';
import {
  getSharedStepsAtVersions,
  getSharedStepsForDisplay,
} from '../../shared-steps/shared-steps.service.js';
import { getTagsByIds } from '../../tags/tags.service.js';
import type { Stored, StepRef, PreconditionRef } from './content.model.js';
import * as repo from '../test-cases.repository.js';
import * as contentRepo from './content.repository.js';
import type { TcaseRow } from '../test-cases.repository.js';
import type { Precondition, Priority, Step, TCase, TcaseInclude, TcaseType } from '../test-cases.schemas.js';

/** The columns of a row (a case's or a stored version's) that hold its versioned content. */
export type ContentColumns = Pick<
  TcaseRow,
  | 'title'
  | 'priority'
  | 'comment'
  | 'is_empty'
  | 'precondition'
  | 'steps'
  | 'tag_ids'
  | 'requirement_ids'
  | 'links'
  | 'custom_fields'
  | 'file_ids'
  | 'template_data'
>;

/** Parses the versioned content of a row. */
export function storedOf(row: ContentColumns): Stored {
  return {
    title: row.title,
    priority: row.priority as Priority,
    comment: row.comment,
    isEmpty: row.is_empty === 1,
    precondition: parseJson<PreconditionRef>(row.precondition, { type: 'standalone', id: 0 }),
    steps: parseJson<StepRef[]>(row.steps, []),
    tagIds: parseJson<number[]>(row.tag_ids, []),
    requirementIds: parseJson<string[]>(row.requirement_ids, []),
    links: parseJson(row.links, []),
    customFields: parseJson(row.custom_fields, {}),
    fileIds: parseJson<string[]>(row.file_ids, []),
    templateData: parseJson(row.template_data, {}),
  };
}

export interface ViewOptions {
  include: Set<TcaseInclude>;
  /** Where file URLs point (the `files` of every case). */
  files: FilesContext;
  /** The project of the rows, for `include=project`. */
  project?: Project;
}

const isLatest = (row: TcaseRow) => row.version === row.latest_version;
const key = (id: number, version: number) => `${id}@${version}`;

/**
 * The API objects of the rows, in row order. Shared steps and preconditions show their latest version on
 * a case's latest version (edits to a shared step reach every case using it) and the version that was
 * recorded on older case versions (D15: old versions stay as they were).
 */
export async function toTcases(
  db: Db,
  tenantId: string,
  rows: TcaseRow[],
  opts: ViewOptions,
): Promise<TCase[]> {
  if (rows.length === 0) return [];
  const inc = opts.include;
  const stored = rows.map(storedOf);

  // A value is shown only under the field it was saved under (custom-fields.service.ts currentValues).
  const fields = inc.has('customFields') ? await listFieldsBySystemName(db, tenantId) : undefined;
  const files = new Map(
    (await getFilesByIds(db, opts.files, tenantId, [...new Set(stored.flatMap((s) => s.fileIds))])).map(
      (f) => [f.id, f],
    ),
  );

  // Preconditions: the latest shared text is needed for `comment` even when the object is not included.
  const sharedPreLatestIds: number[] = [];
  const sharedPreAtRefs: { id: number; version: number }[] = [];
  const standalonePreIds: number[] = [];
  rows.forEach((row, i) => {
    const p = stored[i].precondition;
    if (p.type === 'shared') {
      if (isLatest(row)) sharedPreLatestIds.push(p.id);
      else if (inc.has('precondition')) sharedPreAtRefs.push({ id: p.id, version: p.version });
    } else if (inc.has('precondition')) standalonePreIds.push(p.id);
  });
  const sharedPreLatest = await getSharedPreconditions(db, tenantId, sharedPreLatestIds);
  const sharedPreAt = new Map<string, Precondition>();
  const atVersions = await getSharedPreconditionsAtVersions(db, tenantId, dedupeRefs(sharedPreAtRefs));
  for (const p of atVersions) if (p) sharedPreAt.set(key(p.id, p.version), p);
  const standalonePre = new Map(
    (await contentRepo.listPreconditionsByIds(db, tenantId, [...new Set(standalonePreIds)])).map((p) => [
      p.id,
      p,
    ]),
  );

  // Steps.
  const stepsById = new Map<number, { description: string; expected: string }>();
  const sharedStepsLatest = new Map<number, Step>();
  const sharedStepsAt = new Map<string, Step>();
  if (inc.has('steps')) {
    const standaloneIds: number[] = [];
    const latestShared: number[] = [];
    const atShared: { id: number; version: number }[] = [];
    rows.forEach((row, i) => {
      for (const s of stored[i].steps) {
        if (s.type === 'standalone') standaloneIds.push(s.id);
        else if (isLatest(row)) latestShared.push(s.id);
        else atShared.push({ id: s.id, version: s.version });
      }
    });
    for (const s of await contentRepo.listStepsByIds(db, tenantId, [...new Set(standaloneIds)]))
      stepsById.set(s.id, s);
    for (const [id, s] of await getSharedStepsForDisplay(db, tenantId, latestShared))
      sharedStepsLatest.set(id, s);
    for (const s of await getSharedStepsAtVersions(db, tenantId, dedupeRefs(atShared))) {
      if (s) sharedStepsAt.set(key(s.id, s.version), s);
    }
  }

  const tags = inc.has('tags')
    ? await getTagsByIds(db, tenantId, [...new Set(stored.flatMap((s) => s.tagIds))])
    : new Map();
  const requirements = inc.has('requirements')
    ? await getRequirementsByIds(db, tenantId, [...new Set(stored.flatMap((s) => s.requirementIds))])
    : new Map();

  const templateIds = rows.filter((r) => r.type === 'template').map((r) => r.id);
  const filledCounts = await repo.countFilledOf(db, tenantId, templateIds);
  const filledOf = new Map<string, TcaseRow[]>();
  if (inc.has('parameterValues') && templateIds.length > 0) {
    for (const f of await repo.listFilledOf(db, tenantId, templateIds)) {
      filledOf.set(f.template_id!, [...(filledOf.get(f.template_id!) ?? []), f]);
    }
  }

  const folders = new Map<number, Folder>();
  if (inc.has('folder') || inc.has('path')) {
    const byProject = new Map<string, Set<number>>();
    for (const r of rows)
      byProject.set(r.project_id, (byProject.get(r.project_id) ?? new Set()).add(r.folder_id));
    for (const [projectId, ids] of byProject) {
      let wanted = [...ids];
      // One query per tree level: each round fetches the parents not seen yet.
      while (wanted.length > 0) {
        const found = await listFoldersByIds(db, tenantId, projectId, wanted);
        for (const f of found) folders.set(f.id, f);
        wanted = inc.has('path')
          ? [...new Set(found.map((f) => f.parentId).filter((p) => p !== 0 && !folders.has(p)))]
          : [];
      }
    }
  }

  return rows.map((row, i) => {
    const s = stored[i];
    const latest = isLatest(row);
    let precondition: Precondition | undefined;
    let comment = s.comment;
    if (s.precondition.type === 'shared') {
      const p = latest
        ? sharedPreLatest.get(s.precondition.id)
        : sharedPreAt.get(key(s.precondition.id, s.precondition.version));
      if (p && latest) comment = p.text;
      precondition = p;
    } else {
      const p = standalonePre.get(s.precondition.id);
      if (p) {
        precondition = {
          projectId: p.project_id,
          id: p.id,
          version: 1,
          isLatest: true,
          type: 'standalone',
          text: p.text,
          createdAt: p.created_at,
          updatedAt: p.created_at,
        };
      }
    }
    const tcase: TCase = {
      id: row.id,
      legacyId: row.legacy_id,
      version: row.version,
      type: row.type as TcaseType,
      title: s.title,
      seq: row.seq,
      projectId: row.project_id,
      folderId: row.folder_id,
      pos: row.pos,
      priority: s.priority,
      comment,
      files: s.fileIds.flatMap((id) => (files.has(id) ? [files.get(id)!] : [])),
      links: s.links,
      authorId: row.author_id,
      isDraft: row.is_draft === 1,
      isLatestVersion: latest,
      isEmpty: s.isEmpty,
      createdAt: row.created_at,
      // An old version was last changed when it was made; the latest also moves with folder, pos and draft.
      updatedAt: latest ? row.updated_at : row.version_created_at,
    };
    if (inc.has('precondition') && precondition) tcase.precondition = precondition;
    if (inc.has('steps')) {
      tcase.steps = s.steps.flatMap((ref): Step[] => {
        if (ref.type === 'standalone') {
          const st = stepsById.get(ref.id);
          return st
            ? [
                {
                  id: ref.id,
                  version: 1,
                  isLatest: true,
                  type: 'standalone',
                  description: st.description,
                  expected: st.expected,
                },
              ]
            : [];
        }
        const shared = latest ? sharedStepsLatest.get(ref.id) : sharedStepsAt.get(key(ref.id, ref.version));
        return shared ? [shared] : [];
      });
    }
    if (inc.has('tags')) tcase.tags = s.tagIds.flatMap((id) => (tags.has(id) ? [tags.get(id)!] : []));
    if (inc.has('requirements')) {
      tcase.requirements = s.requirementIds.flatMap((id) =>
        requirements.has(id) ? [requirements.get(id)!] : [],
      );
    }
    if (fields) tcase.customFields = currentValues(fields, s.customFields);
    if (row.type === 'template') {
      if (inc.has('parameterValues')) {
        tcase.parameterValues = (filledOf.get(row.id) ?? []).map((f) => ({
          tcaseId: f.id,
          tcaseVersion: f.version,
          values: parseJson<{ values?: Record<string, string> }>(f.template_data, {}).values ?? {},
        }));
      }
      tcase.filledTCaseTitleSuffixParams = s.templateData.suffixParams ?? [];
      tcase.numFilledTCases = filledCounts.get(row.id) ?? 0;
    }
    if (row.type === 'filled' && row.template_id) tcase.templateTCaseId = row.template_id;
    if (inc.has('folder') && folders.has(row.folder_id)) tcase.folder = folders.get(row.folder_id);
    if (inc.has('path')) tcase.path = pathOf(folders, row.folder_id);
    if (inc.has('project') && opts.project) tcase.project = opts.project;
    return tcase;
  });
}

function pathOf(folders: Map<number, Folder>, folderId: number): Folder[] {
  const path: Folder[] = [];
  const seen = new Set<number>();
  for (let f = folders.get(folderId); f && !seen.has(f.id); f = folders.get(f.parentId)) {
    seen.add(f.id);
    path.push(f);
  }
  return path.reverse();
}

function dedupeRefs(refs: { id: number; version: number }[]): { id: number; version: number }[] {
  const seen = new Map<string, { id: number; version: number }>();
  for (const r of refs) seen.set(key(r.id, r.version), r);
  return [...seen.values()];
}
