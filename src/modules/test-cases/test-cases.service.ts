import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../http/auth.js';
import { AppError, badRequest, conflict, notFound, type ErrorDetail } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { newTcaseId } from '../../lib/ids.js';
import { nowIso } from '../../lib/time.js';
import {
  listFieldsBySystemName,
  normalizeTcaseCustomFields,
} from '../custom-fields/custom-fields.service.js';
import { assertFilesExist } from '../files/files.service.js';
import { getFolder, subtreeFolderIds, upsertFolderPaths } from '../folders/folders.service.js';
import { allocateTcaseSeqs, resolveProject } from '../projects/projects.service.js';
import type { Project } from '../projects/projects.schemas.js';
import { ensureRequirementIds } from '../requirements/requirements.service.js';
import { onTcasesChanged } from '../runs/runs.service.js';
import {
  assertSharedPreconditionsUsable,
  getSharedPreconditions,
} from '../shared-preconditions/shared-preconditions.service.js';
import { assertSharedStepsUsable } from '../shared-steps/shared-steps.service.js';
import { ensureTagIds } from '../tags/tags.service.js';
import {
  fillPlaceholders,
  isBlankHtml,
  placeholdersOf,
  sameContent,
  templateTexts,
  titleSuffix,
  type PreconditionRef,
  type Spec,
  type StepRef,
  type StepSpec,
  type Stored,
} from './test-cases.content.js';
import * as repo from './test-cases.repository.js';
import type { SortColumn, TcaseFilter, TcaseRow } from './test-cases.repository.js';
import {
  TCASE_INCLUDES,
  TCASE_SORT_FIELDS,
  type BulkCreateBody,
  type CreateTcaseBody,
  type Priority,
  type SeqLookupBody,
  type TCase,
  type TCaseList,
  type TcaseCountQuery,
  type TcaseInclude,
  type TcaseListQuery,
  type UpdateTcaseBody,
} from './test-cases.schemas.js';
import { storedOf, toTcases } from './test-cases.view.js';
import { isHttpUrl } from '../../lib/urls.js';

export const TITLE_MAX = 511;
/**
 * Page size when a list request names none: the maximum. Clients that page (the CLI, the MCP server)
 * always send `limit`; a bare request gets every case of a normal project in one answer, and is still
 * bounded for very large ones.
 */
export const DEFAULT_LIMIT = 5000;

/** systemName → field id, for `cf_` filters and the `tcase_custom_values` rows. */
const customFieldIdsBySystemName = async (db: Db, tenantId: string): Promise<Map<string, string>> =>
  new Map([...(await listFieldsBySystemName(db, tenantId))].map(([name, f]) => [name, f.id]));

const fail = (errors: ErrorDetail[]) =>
  new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);

const inTransaction = <T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> =>
  db.isTransaction ? work(db) : db.transaction().execute(work);

/**
 * Serialises the test-case writes of one project. Taking the project row lock (an update of zero
 * sequence numbers) first makes positions and versions computed afterwards safe against concurrent
 * writers on PostgreSQL; SQLite runs one writer at a time anyway.
 */
const lockProject = (trx: Db, projectId: string) => allocateTcaseSeqs(trx, projectId, 0);

// ---------------------------------------------------------------------------------------------------
// Lookups for other modules
// ---------------------------------------------------------------------------------------------------

/**
 * Finds a test case of the project by id, seq (all digits, zero-padding allowed) or legacy id
 * (extensions.md §1). Deleted cases are found only with `includeDeleted` (runs keep their results).
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

async function findByRef(
  db: Db,
  tenantId: string,
  projectId: string,
  ref: string,
  options: { includeDeleted?: boolean } = {},
): Promise<TcaseRow | undefined> {
  if (/^\d+$/.test(ref)) {
    const seq = Number(ref);
    const bySeq = Number.isSafeInteger(seq)
      ? await repo.findTcaseBy(db, tenantId, projectId, { seq }, options)
      : undefined;
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
 * restrict; filters combine with AND (public-api.md query plans). `onlyAmong` narrows to those ids.
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
  for (const part of repo.chunks(ids)) {
    found.push(...(await repo.listMatchingIds(db, tenantId, projectId, { ...filter, ids: part })));
  }
  return found.sort((a, b) => a.seq - b.seq).map((r) => r.id);
}

const FULL: Set<TcaseInclude> = new Set(['precondition', 'steps', 'tags', 'requirements', 'customFields']);

/** A test case (live or deleted) with every relation as of one version (D15); NOT_FOUND when there is no such version. */
export async function getTcaseAtVersion(
  db: Db,
  tenantId: string,
  tcaseId: string,
  version: number,
): Promise<TCase> {
  const [tcase] = await getTcasesAtVersions(db, tenantId, [{ tcaseId, version }]);
  if (!tcase) throw notFound(`test case ${tcaseId} has no version ${version}`);
  return tcase;
}

/** Batch form of getTcaseAtVersion: answers in the order of `refs`; pairs that do not exist are left out. */
export async function getTcasesAtVersions(
  db: Db,
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
  return toTcases(db, tenantId, ordered, { include: FULL });
}

// ---------------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------------

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
  const column = (TCASE_SORT_FIELDS as Record<string, SortColumn>)[field];
  if (!column) {
    throw badRequest(
      `unknown sortField "${field}": use one of ${[...new Set(Object.values(TCASE_SORT_FIELDS))].join(', ')}`,
      '/sortField',
    );
  }
  return { column, order: order ?? ('asc' as const) };
}

/** extensions.md §1: offset wins over page; page = floor(offset/limit)+1, and 1 when limit is 0. */
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

/** Lists a project's test cases: SQL filters (AND across, OR within), sorting and the full envelope (extensions.md §4). */
export async function listTestCases(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: TcaseListQuery,
): Promise<TCaseList> {
  const project = await resolveProject(db, actor, projectRef);
  const include = parseIncludes(query.include);
  const sort = parseSort(query.sortField, query.sortOrder);
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
  const { offset, limit, page } = pageWindow(query);
  const total = await repo.countTcases(db, actor.tenantId, project.id, filter);
  const rows =
    limit === 0 || offset >= total
      ? []
      : await repo.listTcases(db, actor.tenantId, project.id, filter, sort, offset, limit);
  const data = await toTcases(db, actor.tenantId, rows, { include, project });
  return { total, offset, limit, page, data };
}

/** Counts a project's test cases; `recursive` counts the folders' subfolders too (extensions.md §4). */
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

async function requireTcase(db: Db, tenantId: string, project: Project, ref: string): Promise<TcaseRow> {
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

/** One test case with every relation (extensions.md §4); `include` may add folder, path and project. */
export async function getTestCase(
  db: Db,
  actor: Actor,
  projectRef: string,
  ref: string,
  include: string[] = [],
): Promise<TCase> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await requireTcase(db, actor.tenantId, project, ref);
  const inc = new Set([...ONE, ...parseIncludes(include)]);
  const [tcase] = await toTcases(db, actor.tenantId, [row], { include: inc, project });
  return tcase;
}

/** An old (or the latest) version of a test case, as it was (D15). */
export async function getTestCaseVersion(
  db: Db,
  actor: Actor,
  projectRef: string,
  ref: string,
  version: number,
): Promise<TCase> {
  const project = await resolveProject(db, actor, projectRef);
  const row = await requireTcase(db, actor.tenantId, project, ref);
  const [at] = await repo.listCasesAtVersions(db, actor.tenantId, [{ tcaseId: row.id, version }]);
  if (!at) throw notFound(`test case ${project.code}-${row.seq} has no version ${version}`);
  const [tcase] = await toTcases(db, actor.tenantId, [at], { include: new Set(ONE), project });
  return tcase;
}

const MARKER = /^([A-Za-z0-9]+)-(\d+)$/;

/** Looks test cases up by markers like `PRJ-007` (code in any case); unknown markers are absent (extensions.md §4). */
export async function findTestCasesBySeq(
  db: Db,
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
  for (const part of repo.chunks([...seqs].filter(Number.isSafeInteger))) {
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
  const data = await toTcases(db, actor.tenantId, rows, { include: new Set(), project });
  return { total: found.length, offset, limit, page, data };
}

// ---------------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------------

type EditInput = Partial<Omit<CreateTcaseBody, 'type' | 'folderId' | 'parameterValues'>>;

/** Shape checks that need no database; collects every problem. */
function validateInput(input: EditInput, errors: ErrorDetail[]): void {
  if (input.title !== undefined && (input.title.trim() === '' || input.title.trim().length > TITLE_MAX)) {
    errors.push({ path: '/title', message: `title must be 1-${TITLE_MAX} characters and not blank` });
  }
  if (input.precondition) {
    const { text, sharedPreconditionId } = input.precondition;
    if ((text === undefined) === (sharedPreconditionId === undefined)) {
      errors.push({
        path: '/precondition',
        message: 'precondition takes exactly one of text and sharedPreconditionId',
      });
    }
  }
  (input.steps ?? []).forEach((s, i) => {
    const standalone = s.description !== undefined || s.expected !== undefined;
    if (s.sharedStepId !== undefined && standalone) {
      errors.push({
        path: `/steps/${i}`,
        message: `step ${i + 1} takes either sharedStepId or description/expected, not both`,
      });
    } else if (s.sharedStepId === undefined && !standalone) {
      errors.push({
        path: `/steps/${i}`,
        message: `step ${i + 1} needs a description, an expected result or a sharedStepId`,
      });
    }
  });
  (input.links ?? []).forEach((l, i) => {
    if (l.text.trim() === '')
      errors.push({ path: `/links/${i}/text`, message: 'link text must not be blank' });
    if (!isHttpUrl(l.url)) {
      errors.push({ path: `/links/${i}/url`, message: 'link url must be an absolute http(s) URL' });
    }
  });
}

interface Resolved {
  tagIds?: number[];
  requirementIds?: string[];
  sharedSteps: Map<number, number>;
  sharedPrecondition?: { id: number; version: number; text: string };
}

/** Creates tags and requirements on demand and checks every referenced resource (inside the transaction). */
async function resolveReferences(
  trx: Db,
  tenantId: string,
  projectId: string,
  input: EditInput,
): Promise<Resolved> {
  const out: Resolved = { sharedSteps: new Map() };
  if (input.tags) out.tagIds = [...new Set(await ensureTagIds(trx, tenantId, projectId, input.tags))];
  if (input.requirements) {
    const ids = await ensureRequirementIds(trx, tenantId, projectId, input.requirements);
    const seen = new Map<string, number>();
    ids.forEach((id, i) => {
      if (seen.has(id)) {
        throw conflict(
          `requirement "${input.requirements![i].text}" is listed twice (entries ${seen.get(id)! + 1} and ${i + 1})`,
        );
      }
      seen.set(id, i);
    });
    out.requirementIds = ids;
  }
  const sharedStepIds = (input.steps ?? []).flatMap((s) =>
    s.sharedStepId !== undefined ? [s.sharedStepId] : [],
  );
  if (sharedStepIds.length > 0)
    out.sharedSteps = await assertSharedStepsUsable(trx, tenantId, projectId, sharedStepIds);
  const sharedPre = input.precondition?.sharedPreconditionId;
  if (sharedPre !== undefined) {
    const versions = await assertSharedPreconditionsUsable(trx, tenantId, projectId, [sharedPre]);
    const shown = (await getSharedPreconditions(trx, tenantId, [sharedPre])).get(sharedPre);
    out.sharedPrecondition = {
      id: sharedPre,
      version: versions.get(sharedPre) ?? 1,
      text: shown?.text ?? '',
    };
  }
  if (input.files?.length) await assertFilesExist(trx, tenantId, input.files);
  return out;
}

/** The steps a write asks for, with HTML sanitised (D22) and shared steps at their latest version. */
function stepSpecs(input: EditInput, resolved: Resolved): StepSpec[] | undefined {
  return input.steps?.map((s) =>
    s.sharedStepId !== undefined
      ? { type: 'shared', id: s.sharedStepId, version: resolved.sharedSteps.get(s.sharedStepId) ?? 1 }
      : {
          type: 'standalone',
          description: sanitizeHtmlField(s.description ?? ''),
          expected: sanitizeHtmlField(s.expected ?? ''),
        },
  );
}

/** Applies the given fields of a write to a spec (create: an empty spec; update: the current content). */
function applyInput(
  base: Spec,
  input: EditInput,
  resolved: Resolved,
  customFields: Spec['customFields'],
): Spec {
  const spec: Spec = { ...base, customFields };
  if (input.title !== undefined) spec.title = input.title.trim();
  if (input.priority !== undefined) spec.priority = input.priority;
  if (resolved.sharedPrecondition) {
    spec.precondition = { type: 'shared', ...resolved.sharedPrecondition };
  } else if (input.precondition?.text !== undefined) {
    spec.precondition = { type: 'standalone', text: sanitizeHtmlField(input.precondition.text) };
  } else if (input.comment !== undefined && input.precondition === undefined) {
    // The deprecated `comment` sets the standalone precondition text.
    spec.precondition = { type: 'standalone', text: sanitizeHtmlField(input.comment) };
  }
  const steps = stepSpecs(input, resolved);
  if (steps) spec.steps = steps;
  if (resolved.tagIds) spec.tagIds = resolved.tagIds;
  if (resolved.requirementIds) spec.requirementIds = resolved.requirementIds;
  if (input.links) spec.links = input.links.map((l) => ({ text: l.text.trim(), url: l.url }));
  if (input.files) spec.fileIds = [...new Set(input.files)];
  if (input.filledTCaseTitleSuffixParams) {
    spec.templateData = { ...spec.templateData, suffixParams: [...input.filledTCaseTitleSuffixParams] };
  }
  return spec;
}

/** The spec of a filled case: the template's content with `${name}` replaced and the title suffix added. */
function filledSpec(template: Spec, values: Record<string, string>, priority: Priority): Spec {
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
function checkValues(
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

interface Previous {
  stored: Stored;
  stepTexts: Map<number, { description: string; expected: string }>;
  preconditionText?: string;
}

/** Loads what is needed to reuse step and precondition ids of the current versions. */
async function loadPrevious(db: Db, tenantId: string, rows: TcaseRow[]): Promise<Map<string, Previous>> {
  const stored = rows.map(storedOf);
  const stepIds = stored.flatMap((s) => s.steps.flatMap((r) => (r.type === 'standalone' ? [r.id] : [])));
  const preIds = stored.flatMap((s) => (s.precondition.type === 'standalone' ? [s.precondition.id] : []));
  const steps = new Map((await repo.listStepsByIds(db, tenantId, stepIds)).map((s) => [s.id, s]));
  const pres = new Map((await repo.listPreconditionsByIds(db, tenantId, preIds)).map((p) => [p.id, p.text]));
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
function specOf(prev: Previous): Spec {
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

const emptySpec = (priority: Priority): Spec => ({
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
      const [id] = await repo.insertPreconditions(trx, tenantId, projectId, [{ tcaseId, text: comment }], at);
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
    const ids = await repo.insertSteps(
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

/** Rewrites the latest-version link rows (tags, requirements, shared steps/preconditions, custom values). */
async function syncLinks(
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
  await repo.replaceLatestLinks(
    trx,
    tenantId,
    fresh,
    cases.map(({ id, stored: s }) => ({
      tcaseId: id,
      tagIds: s.tagIds,
      requirementIds: s.requirementIds,
      sharedStepIds: s.steps.flatMap((r) => (r.type === 'shared' ? [r.id] : [])),
      sharedPreconditionIds: s.precondition.type === 'shared' ? [s.precondition.id] : [],
      customValues: Object.entries(s.customFields).flatMap(([name, v]) =>
        fieldIds.has(name) && v.value.length <= FILTERABLE_VALUE_MAX
          ? [{ fieldId: fieldIds.get(name)!, value: v.value }]
          : [],
      ),
    })),
  );
}

async function assertPosFree(
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

interface NewCase {
  id: string;
  seq: number;
  type: 'standalone' | 'template' | 'filled';
  folderId: number;
  pos: number;
  isDraft: boolean;
  templateId: string | null;
  spec: Spec;
}

/** Inserts new test cases at version 1 with their steps, preconditions and link rows. */
async function insertCases(
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
      legacy_id: '',
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
  await repo.insertVersions(
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
  const preIds = await repo.insertPreconditions(trx, tenantId, projectId, preItems, at);
  const stepItems = cases.flatMap((c) =>
    c.spec.steps.flatMap((s) =>
      s.type === 'standalone' ? [{ tcaseId: c.id, description: s.description, expected: s.expected }] : [],
    ),
  );
  const stepIds = await repo.insertSteps(trx, tenantId, stepItems, at);
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

/**
 * Creates a standalone or template test case (extensions.md §4); a template's `parameterValues` each
 * make one filled case. Seqs come from the project counter in the same transaction (gap-free, unique).
 */
export async function createTestCase(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateTcaseBody,
): Promise<{ id: string; seq: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const errors: ErrorDetail[] = [];
  validateInput(input, errors);
  const isTemplate = input.type === 'template';
  if (!isTemplate) {
    if (input.parameterValues !== undefined) {
      errors.push({ path: '/parameterValues', message: 'parameterValues are for templates only' });
    }
    if (input.filledTCaseTitleSuffixParams !== undefined) {
      errors.push({
        path: '/filledTCaseTitleSuffixParams',
        message: 'filledTCaseTitleSuffixParams are for templates only',
      });
    }
  }
  if (errors.length > 0) throw fail(errors);
  await getFolder(db, actor.tenantId, project.id, input.folderId);

  const at = nowIso();
  const result = await inTransaction(db, async (trx) => {
    const filledCount = input.parameterValues?.length ?? 0;
    const firstSeq = await allocateTcaseSeqs(trx, project.id, 1 + filledCount);
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
    let nextPos =
      filledCount === 0
        ? pos + 1
        : Math.max(pos, await repo.maxPosInFolder(trx, actor.tenantId, project.id, input.folderId)) + 1;
    (input.parameterValues ?? []).forEach(({ values }, i) => {
      cases.push({
        id: newTcaseId(),
        seq: firstSeq + 1 + i,
        type: 'filled',
        folderId: input.folderId,
        pos: nextPos++,
        isDraft,
        templateId: id,
        spec: filledSpec(spec, values, input.priority),
      });
    });
    await insertCases(trx, actor, project, cases, at);
    await onTcasesChanged(
      trx,
      actor.tenantId,
      project.id,
      cases.map((c) => c.id),
    );
    return { id, seq: firstSeq };
  });
  return result;
}

/**
 * Creates standalone, published, medium-priority cases in the leaf of `folderPath`, which is created as
 * needed (extensions.md §4, the result uploader's `--create-tcases`); answers in request order.
 */
export async function bulkCreateTestCases(
  db: Db,
  actor: Actor,
  projectRef: string,
  body: BulkCreateBody,
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
    await onTcasesChanged(
      trx,
      actor.tenantId,
      project.id,
      cases.map((c) => c.id),
    );
    return { tcases: cases.map((c) => ({ id: c.id, seq: c.seq })) };
  });
}

/** Writes version n+1 when the content changed (D15); answers whether it did. */
async function commitVersion(
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
  await repo.insertVersions(trx, [versionRow(actor.tenantId, row.id, version, stored, actor.userId, at)]);
  await repo.updateTcase(trx, actor.tenantId, row.id, {
    version,
    title: stored.title,
    priority: stored.priority,
    updated_at: at,
  });
  return stored;
}

const FILLED_ALLOWED = new Set(['priority']);

/**
 * Updates the given fields (extensions.md §4): versioned changes make version n+1 (D15), folder, pos and
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
  validateInput(input, errors);
  if (found.type !== 'template') {
    if (input.parameterValues !== undefined) {
      errors.push({ path: '/parameterValues', message: 'parameterValues are for templates only' });
    }
    if (input.filledTCaseTitleSuffixParams !== undefined) {
      errors.push({
        path: '/filledTCaseTitleSuffixParams',
        message: 'filledTCaseTitleSuffixParams are for templates only',
      });
    }
  }
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
    await onTcasesChanged(trx, actor.tenantId, project.id, [...changed]);
  });
  return { message: 'Test case updated' };
}

/** Brings a template's filled cases in line with it and applies `parameterValues` (extensions.md §4). */
async function updateFilled(
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
    await repo.removeLatestLinks(trx, actor.tenantId, removed);
    for (const id of removed) changed.add(id);
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
    const isDraft = (move.is_draft ?? template.is_draft) === 1;
    const cases: NewCase[] = [];
    for (let i = 0; i < create.length; i++) {
      cases.push({
        id: newTcaseId(),
        seq: firstSeq + i,
        type: 'filled',
        folderId,
        pos: await posInFolder(),
        isDraft,
        templateId: template.id,
        spec: filledSpec(spec, create[i], spec.priority),
      });
    }
    await insertCases(trx, actor, project, cases, at);
    for (const c of cases) changed.add(c.id);
  }
}

/** Deletes a test case (soft: results in runs keep pointing at it); a template takes its filled cases along. */
export async function deleteTestCase(
  db: Db,
  actor: Actor,
  projectRef: string,
  ref: string,
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
    await repo.removeLatestLinks(trx, actor.tenantId, ids);
    await onTcasesChanged(trx, actor.tenantId, project.id, ids);
  });
  return { message: 'Test case deleted' };
}

/** A test case in a few words (latest version), for lists that only name cases; in the order of `ids`, unknown ids absent. */
export async function listTcaseSummaries(
  db: Db,
  tenantId: string,
  ids: string[],
): Promise<{ id: string; seq: number; title: string; folderId: number; priority: string }[]> {
  const byId = new Map((await repo.listSummariesByIds(db, tenantId, ids)).map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ id: r.id, seq: r.seq, title: r.title, folderId: r.folder_id, priority: r.priority }] : [];
  });
}
