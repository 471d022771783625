import type { Db } from '../../db/create-db.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import type { Actor } from '../../auth/actor.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import * as items from '../shared-items/shared-items.service.js';
import { refKey, type ItemLoader, type ItemRef } from '../shared-items/shared-items.service.js';
import * as repo from './shared-steps.repository.js';
import { SHARED_STEP_KIND as KIND } from './shared-steps.repository.js';
import {
  type CreateSharedStepBody,
  type SharedStep,
  type SharedStepListItem,
  type SharedStepListQuery,
  type SubStepInput,
  type UpdateSharedStepBody,
} from './shared-steps.schemas.js';

export const SHARED_STEP_TITLE_MAX = items.SHARED_ITEM_TITLE_MAX;
export const SUB_STEPS_MAX = 100;

interface Content {
  title: string;
  subSteps: { description: string; expected: string }[];
}

/** Loads shared steps at exact versions and maps them to the API shape; missing pairs are absent. */
const loadSteps: ItemLoader<SharedStep> = async (db, tenantId, heads, refs) => {
  const out = new Map<string, SharedStep>();
  if (refs.length === 0) return out;
  const ids = [...new Set(refs.map((r) => r.id))];
  const versions = [...new Set(refs.map((r) => r.version))];
  const [versionRows, subRows] = await Promise.all([
    repo.findVersions(db, tenantId, ids, versions),
    repo.findSubSteps(db, tenantId, ids, versions),
  ]);
  const headById = new Map(heads.map((h) => [h.id, h]));
  const titleOf = new Map(versionRows.map((v) => [refKey(v.shared_step_id, v.version), v.title]));
  const subsOf = new Map<string, typeof subRows>();
  for (const s of subRows) {
    const k = refKey(s.shared_step_id, s.version);
    subsOf.set(k, [...(subsOf.get(k) ?? []), s]);
  }
  for (const ref of refs) {
    const k = refKey(ref.id, ref.version);
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
};

/**
 * 400 unless every id names a live shared step of this project (unknown, deleted or another project's
 * are refused). Returns each id's latest version, so a caller can record which version it showed.
 */
export const assertSharedStepsUsable = (
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
): Promise<Map<number, number>> => items.assertUsable(KIND, db, tenantId, projectId, ids, '/steps');

/** The latest version of each shared step with its sub-steps, keyed by id; deleted ones carry `deletedAt`. */
export const getSharedStepsForDisplay = (
  db: Db,
  tenantId: string,
  ids: number[],
): Promise<Map<number, SharedStep>> => items.getLatest(KIND, loadSteps, db, tenantId, ids);

/** Shared steps as they were at given versions (for old test-case versions); `result[i]` answers `refs[i]`. */
export const getSharedStepsAtVersions = (
  db: Db,
  tenantId: string,
  refs: ItemRef[],
): Promise<(SharedStep | undefined)[]> => items.getAtVersions(KIND, loadSteps, db, tenantId, refs);

function validateContent(input: { title: string; subSteps: SubStepInput[] }): Content {
  return items.validateContent<Content>(input.title, (errors) => {
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
    return { subSteps };
  });
}

/** Writes one version's title and sub-steps. */
const versionWriter =
  (tenantId: string, content: Content): items.VersionWriter =>
  async (trx, id, version, at) => {
    await repo.insertVersion(trx, {
      tenant_id: tenantId,
      shared_step_id: id,
      version,
      title: content.title,
      created_at: at,
    });
    await repo.insertSubSteps(
      trx,
      content.subSteps.map((s, pos) => ({
        tenant_id: tenantId,
        shared_step_id: id,
        version,
        pos,
        description: s.description,
        expected: s.expected,
      })),
    );
  };

/** Lists a project's live shared steps at their latest version (by id unless `sortField` says otherwise). */
export const listSharedSteps = (
  db: Db,
  actor: Actor,
  projectRef: string,
  query: SharedStepListQuery,
): Promise<SharedStepListItem[]> => items.listItems(KIND, loadSteps, db, actor, projectRef, query);

/** One shared step of the project at its latest version, or at `version` (old versions stay readable). */
export const getSharedStep = (
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  version?: number,
): Promise<SharedStep> => items.getItem(KIND, loadSteps, db, actor, projectRef, id, version);

const content: items.ItemContent<{ title: string; subSteps: SubStepInput[] }, Content, SharedStep> = {
  load: loadSteps,
  validate: validateContent,
  write: versionWriter,
  contentOf: (step) => ({
    title: step.title,
    subSteps: step.subSteps.map((s) => ({ description: s.description, expected: s.expected })),
  }),
  same: (a, b) =>
    a.title === b.title &&
    a.subSteps.length === b.subSteps.length &&
    a.subSteps.every(
      (s, i) => s.description === b.subSteps[i].description && s.expected === b.subSteps[i].expected,
    ),
};

/** Creates a shared step at version 1; its title is unique among the project's live shared steps (409). */
export const createSharedStep = (
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateSharedStepBody,
): Promise<{ id: number }> => items.createWithContent(KIND, content, db, actor, projectRef, input);

/** Changes a shared step: a changed title or sub-step list makes version n+1 (shared-items updateWithContent). */
export const updateSharedStep = (
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  input: UpdateSharedStepBody,
): Promise<SharedStep> => items.updateWithContent(KIND, content, db, actor, projectRef, id, input);

/** Soft-deletes a shared step; 409 while the latest version of a live test case uses it. */
export const deleteSharedStep = (db: Db, actor: Actor, projectRef: string, id: number): Promise<void> =>
  items.deleteItem(KIND, db, actor, projectRef, id);

/** The live test cases using a shared step (their latest version does), by seq: what an edit of it changes. */
export const listSharedStepUsers = (db: Db, actor: Actor, projectRef: string, id: number) =>
  items.listUsers(KIND, db, actor, projectRef, id);

/** The ids among `ids` that name a live shared step of the project (an import checks the ids a file names). */
export const liveSharedStepIds = (db: Db, tenantId: string, projectId: string, ids: number[]) =>
  items.liveIdsInProject(KIND, db, tenantId, projectId, ids);

/**
 * An import's shared step (title and sub-steps, HTML), inside its transaction: the live one of that title (`same`
 * when its sub-steps are these), else a new one when `create`; or what is wrong with it.
 */
export async function findOrCreateSharedStep(
  trx: Db,
  tenantId: string,
  projectId: string,
  input: { title: string; subSteps: SubStepInput[] },
  create: boolean,
): Promise<{ id: number; same: boolean } | undefined | { errors: ErrorDetail[] }> {
  try {
    return await items.findOrCreateForImport(KIND, content, trx, tenantId, projectId, input, create);
  } catch (err) {
    if (!(err instanceof AppError) || !err.details) throw err;
    return { errors: err.details };
  }
}
