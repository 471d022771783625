import type { Db } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../../http/auth.js';
import { AppError, badRequest, conflict, notFound, type ErrorDetail } from '../../errors.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { nowIso } from '../../lib/time.js';
import { resolveProject } from '../projects/projects.service.js';
import * as repo from './shared-steps.repository.js';
import {
  SHARED_STEP_SORT_FIELDS,
  type CreateSharedStepBody,
  type SharedStep,
  type SharedStepListItem,
  type SharedStepListQuery,
  type SubStepInput,
  type UpdateSharedStepBody,
} from './shared-steps.schemas.js';

export const SHARED_STEP_TITLE_MAX = 255;
export const SUB_STEPS_MAX = 100;

type Head = NonNullable<Awaited<ReturnType<typeof repo.findHead>>>;
interface StepRef {
  id: number;
  version: number;
}
interface Content {
  title: string;
  subSteps: { description: string; expected: string }[];
}

/** Loads shared steps at exact versions and maps them to the API shape; missing pairs are absent. */
async function loadSteps(
  db: Db,
  tenantId: string,
  heads: Head[],
  refs: StepRef[],
): Promise<Map<string, SharedStep>> {
  const out = new Map<string, SharedStep>();
  if (refs.length === 0) return out;
  const ids = [...new Set(refs.map((r) => r.id))];
  const versions = [...new Set(refs.map((r) => r.version))];
  const [versionRows, subRows] = await Promise.all([
    repo.findVersions(db, tenantId, ids, versions),
    repo.findSubSteps(db, tenantId, ids, versions),
  ]);
  const headById = new Map(heads.map((h) => [h.id, h]));
  const titleOf = new Map(versionRows.map((v) => [`${v.shared_step_id}@${v.version}`, v.title]));
  const subsOf = new Map<string, typeof subRows>();
  for (const s of subRows) {
    const k = `${s.shared_step_id}@${s.version}`;
    subsOf.set(k, [...(subsOf.get(k) ?? []), s]);
  }
  for (const ref of refs) {
    const k = `${ref.id}@${ref.version}`;
    const head = headById.get(ref.id);
    const title = titleOf.get(k);
    if (!head || title === undefined) continue;
    const isLatest = head.version === ref.version;
    const deleted = head.deleted_at ? { deletedAt: head.deleted_at } : {};
    out.set(k, {
      id: head.id,
      version: ref.version,
      isLatest,
      type: 'shared',
      title,
      subSteps: (subsOf.get(k) ?? []).map((s) => ({
        id: s.id,
        type: 'shared_sub_step' as const,
        version: ref.version,
        isLatest,
        description: s.description,
        expected: s.expected,
        ...deleted,
      })),
      ...deleted,
    });
  }
  return out;
}

/**
 * 400 unless every id names a live shared step of this project (unknown, deleted or another project's
 * are refused). Returns each id's latest version, so a caller can record which version it showed.
 */
export async function assertSharedStepsUsable(
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
): Promise<Map<number, number>> {
  const distinct = [...new Set(ids)];
  // Locked: a concurrent delete waits for this transaction, then finds the step in use (409).
  const heads = distinct.length > 0 ? await repo.lockHeadsForUse(db, tenantId, distinct) : [];
  const byId = new Map(heads.map((h) => [h.id, h]));
  for (const id of distinct) {
    const head = byId.get(id);
    if (!head || head.project_id !== projectId) {
      throw badRequest(`shared step ${id} does not exist in this project`, '/steps');
    }
    if (head.deleted_at) throw badRequest(`shared step ${id} was deleted`, '/steps');
  }
  return new Map(heads.map((h) => [h.id, h.version]));
}

/** The latest version of each shared step with its sub-steps, keyed by id; deleted ones carry `deletedAt`. */
export async function getSharedStepsForDisplay(
  db: Db,
  tenantId: string,
  ids: number[],
): Promise<Map<number, SharedStep>> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return new Map();
  const heads = await repo.findHeads(db, tenantId, distinct);
  const steps = await loadSteps(
    db,
    tenantId,
    heads,
    heads.map((h) => ({ id: h.id, version: h.version })),
  );
  return new Map([...steps.values()].map((s) => [s.id, s]));
}

/** Shared steps as they were at given versions (for old test-case versions); `result[i]` answers `refs[i]`. */
export async function getSharedStepsAtVersions(
  db: Db,
  tenantId: string,
  refs: StepRef[],
): Promise<(SharedStep | undefined)[]> {
  if (refs.length === 0) return [];
  const heads = await repo.findHeads(db, tenantId, [...new Set(refs.map((r) => r.id))]);
  const steps = await loadSteps(db, tenantId, heads, refs);
  return refs.map((r) => steps.get(`${r.id}@${r.version}`));
}

function validateContent(input: { title: string; subSteps: SubStepInput[] }): Content {
  const errors: ErrorDetail[] = [];
  const title = input.title.trim();
  if (title === '' || title.length > SHARED_STEP_TITLE_MAX) {
    errors.push({ path: '/title', message: `title must be 1-${SHARED_STEP_TITLE_MAX} characters` });
  }
  if (input.subSteps.length === 0 || input.subSteps.length > SUB_STEPS_MAX) {
    errors.push({ path: '/subSteps', message: `a shared step needs 1-${SUB_STEPS_MAX} sub-steps` });
  }
  const subSteps = input.subSteps.map((s, i) => {
    const description = sanitizeHtmlField(s.description ?? '');
    const expected = sanitizeHtmlField(s.expected ?? '');
    if (description.trim() === '' && expected.trim() === '') {
      errors.push({
        path: `/subSteps/${i}`,
        message: `sub-step ${i + 1} needs a description or an expected result`,
      });
    }
    return { description, expected };
  });
  if (errors.length > 0)
    throw new AppError('VALIDATION_FAILED', errors.map((e) => e.message).join('; '), errors);
  return { title, subSteps };
}

const titleTaken = (title: string, id: number) =>
  conflict(`a shared step titled "${title}" exists in this project: shared step ${id}`);

async function assertTitleFree(db: Db, tenantId: string, projectId: string, title: string, self?: number) {
  const other = await repo.findLiveByTitle(db, tenantId, projectId, title);
  if (other && other.id !== self) throw titleTaken(title, other.id);
}

async function writeVersion(
  db: Db,
  tenantId: string,
  id: number,
  version: number,
  content: Content,
  at: string,
) {
  await repo.insertVersion(db, {
    tenant_id: tenantId,
    shared_step_id: id,
    version,
    title: content.title,
    created_at: at,
  });
  await repo.insertSubSteps(
    db,
    content.subSteps.map((s, pos) => ({
      tenant_id: tenantId,
      shared_step_id: id,
      version,
      pos,
      description: s.description,
      expected: s.expected,
    })),
  );
}

/** Runs a write; a unique-title race lost to another writer becomes the same 409 the pre-check gives. */
async function withTitleRace<T>(
  db: Db,
  tenantId: string,
  projectId: string,
  title: string,
  fn: () => Promise<T>,
) {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) {
      const other = await repo.findLiveByTitle(db, tenantId, projectId, title);
      if (other) throw titleTaken(title, other.id);
    }
    throw err;
  }
}

async function findInProject(db: Db, tenantId: string, projectId: string, id: number): Promise<Head> {
  const head = await repo.findHead(db, tenantId, id);
  if (!head || head.project_id !== projectId) throw notFound(`shared step ${id} not found`);
  return head;
}

/** Lists a project's live shared steps at their latest version (by id unless `sortField` says otherwise). */
export async function listSharedSteps(
  db: Db,
  actor: Actor,
  projectRef: string,
  query: SharedStepListQuery,
): Promise<SharedStepListItem[]> {
  const project = await resolveProject(db, actor, projectRef);
  if (query.sortOrder && !query.sortField) throw badRequest('sortOrder needs sortField', '/sortOrder');
  const sortColumn = query.sortField
    ? SHARED_STEP_SORT_FIELDS[query.sortField as keyof typeof SHARED_STEP_SORT_FIELDS]
    : 'id';
  const withCount = (query.include ?? []).includes('tcaseCount');
  const heads = await repo.listLiveHeads(db, actor.tenantId, project.id, {
    sortColumn,
    desc: query.sortOrder === 'desc',
    withCount,
  });
  const steps = await loadSteps(
    db,
    actor.tenantId,
    heads,
    heads.map((h) => ({ id: h.id, version: h.version })),
  );
  return heads.map((h) => {
    const item: SharedStepListItem = { ...steps.get(`${h.id}@${h.version}`)! };
    if (withCount) item.tcaseCount = Number((h as { tcase_count?: number }).tcase_count ?? 0);
    return item;
  });
}

/** One shared step of the project at its latest version, or at `version` (old versions stay readable). */
export async function getSharedStep(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  version?: number,
): Promise<SharedStep> {
  const project = await resolveProject(db, actor, projectRef);
  const head = await findInProject(db, actor.tenantId, project.id, id);
  const v = version ?? head.version;
  const step = (await loadSteps(db, actor.tenantId, [head], [{ id, version: v }])).get(`${id}@${v}`);
  if (!step) throw notFound(`shared step ${id} has no version ${v}`);
  return step;
}

/** Creates a shared step at version 1; its title is unique among the project's live shared steps (409). */
export async function createSharedStep(
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateSharedStepBody,
): Promise<{ id: number }> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const content = validateContent(input);
  await assertTitleFree(db, actor.tenantId, project.id, content.title);
  const at = nowIso();
  const id = await withTitleRace(db, actor.tenantId, project.id, content.title, () =>
    db.transaction().execute(async (trx) => {
      const newId = await repo.insertHead(trx, {
        tenant_id: actor.tenantId,
        project_id: project.id,
        title: content.title,
        version: 1,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      });
      await writeVersion(trx, actor.tenantId, newId, 1, content, at);
      return newId;
    }),
  );
  return { id };
}

const sameContent = (a: Content, b: Content) =>
  a.title === b.title &&
  a.subSteps.length === b.subSteps.length &&
  a.subSteps.every(
    (s, i) => s.description === b.subSteps[i].description && s.expected === b.subSteps[i].expected,
  );

/**
 * Changes a shared step: a changed title or sub-step list makes version n+1 (old versions stay readable);
 * an update that changes nothing makes no version. 404 for a deleted one; 409 for a taken title.
 */
export async function updateSharedStep(
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  input: UpdateSharedStepBody,
): Promise<SharedStep> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  const head = await findInProject(db, actor.tenantId, project.id, id);
  if (head.deleted_at) throw notFound(`shared step ${id} was deleted`);
  const current = (await loadSteps(db, actor.tenantId, [head], [{ id, version: head.version }])).get(
    `${id}@${head.version}`,
  )!;
  const next = validateContent({
    title: input.title ?? current.title,
    subSteps:
      input.subSteps ?? current.subSteps.map((s) => ({ description: s.description, expected: s.expected })),
  });
  if (!sameContent(next, { title: current.title, subSteps: current.subSteps })) {
    if (next.title !== current.title) await assertTitleFree(db, actor.tenantId, project.id, next.title, id);
    const at = nowIso();
    const version = head.version + 1;
    await withTitleRace(db, actor.tenantId, project.id, next.title, () =>
      db.transaction().execute(async (trx) => {
        const moved = await repo.advanceHead(trx, actor.tenantId, id, head.version, {
          title: next.title,
          version,
          updated_at: at,
        });
        if (!moved)
          throw conflict(`shared step ${id} was changed or deleted meanwhile; read it again and retry`);
        await writeVersion(trx, actor.tenantId, id, version, next, at);
      }),
    );
  }
  return getSharedStep(db, actor, project.id, id);
}

/** Soft-deletes a shared step; 409 while the latest version of a live test case uses it. */
export async function deleteSharedStep(db: Db, actor: Actor, projectRef: string, id: number): Promise<void> {
  const project = await resolveProject(db, actor, projectRef, { write: true });
  await db.transaction().execute(async (trx) => {
    // Locked first, so a test case that starts using it meanwhile is counted below (or waits and gets a 400).
    const head = await repo.lockHeadForDelete(trx, actor.tenantId, id);
    if (!head || head.project_id !== project.id) throw notFound(`shared step ${id} not found`);
    if (head.deleted_at) throw notFound(`shared step ${id} was deleted`);
    const used = await repo.countUsingTcases(trx, actor.tenantId, id);
    if (used > 0) throw conflict(`shared step ${id} is used by ${used} test case${used === 1 ? '' : 's'}`);
    await repo.markDeleted(trx, actor.tenantId, id, nowIso());
  });
}
