import type { Db } from '../../db/create-db.js';
import type { Actor } from '../../auth/actor.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import * as items from '../shared-items/shared-items.service.js';
import { refKey, type ItemLoader, type ItemRef } from '../shared-items/shared-items.service.js';
import * as repo from './shared-preconditions.repository.js';
import { SHARED_PRECONDITION_KIND as KIND } from './shared-preconditions.repository.js';
import {
  type CreateSharedPreconditionBody,
  type SharedPrecondition,
  type SharedPreconditionListItem,
  type SharedPreconditionListQuery,
  type UpdateSharedPreconditionBody,
} from './shared-preconditions.schemas.js';

export const SHARED_PRECONDITION_TITLE_MAX = items.SHARED_ITEM_TITLE_MAX;

interface Content {
  title: string;
  text: string;
}

/** Loads shared preconditions at exact versions in the API shape; missing pairs are absent. */
const loadPreconditions: ItemLoader<SharedPrecondition> = async (db, tenantId, heads, refs) => {
  const out = new Map<string, SharedPrecondition>();
  if (refs.length === 0) return out;
  const rows = await repo.findVersions(
    db,
    tenantId,
    [...new Set(refs.map((r) => r.id))],
    [...new Set(refs.map((r) => r.version))],
  );
  const headById = new Map(heads.map((h) => [h.id, h]));
  const byKey = new Map(rows.map((r) => [refKey(r.shared_precondition_id, r.version), r]));
  for (const ref of refs) {
    const k = refKey(ref.id, ref.version);
    const head = headById.get(ref.id);
    const row = byKey.get(k);
    if (!head || !row) continue;
    out.set(k, {
      projectId: head.project_id,
      id: head.id,
      version: row.version,
      isLatest: row.version === head.version,
      type: 'shared',
      title: row.title,
      text: row.text,
      createdAt: head.created_at,
      updatedAt: row.created_at,
      ...(head.deleted_at ? { deletedAt: head.deleted_at } : {}),
    });
  }
  return out;
};

/**
 * 400 unless every id names a live shared precondition of this project (unknown, deleted or another
 * project's are refused). Returns each id's latest version.
 */
export const assertSharedPreconditionsUsable = (
  db: Db,
  tenantId: string,
  projectId: string,
  ids: number[],
): Promise<Map<number, number>> =>
  items.assertUsable(KIND, db, tenantId, projectId, ids, '/precondition/sharedPreconditionId');

/** The latest version of each shared precondition, keyed by id; deleted ones carry `deletedAt`. */
export const getSharedPreconditions = (
  db: Db,
  tenantId: string,
  ids: number[],
): Promise<Map<number, SharedPrecondition>> => items.getLatest(KIND, loadPreconditions, db, tenantId, ids);

/** Shared preconditions as they were at given versions; `result[i]` answers `refs[i]`. */
export const getSharedPreconditionsAtVersions = (
  db: Db,
  tenantId: string,
  refs: ItemRef[],
): Promise<(SharedPrecondition | undefined)[]> =>
  items.getAtVersions(KIND, loadPreconditions, db, tenantId, refs);

function validateContent(input: Content): Content {
  return items.validateContent<Content>(input.title, (errors) => {
    const text = sanitizeHtmlField(input.text);
    if (text.trim() === '') errors.push({ path: '/text', message: 'text must not be empty' });
    return { text };
  });
}

/** Writes one version's title and text. */
const versionWriter =
  (tenantId: string, content: Content): items.VersionWriter =>
  async (trx, id, version, at) => {
    await repo.insertVersion(trx, {
      tenant_id: tenantId,
      shared_precondition_id: id,
      version,
      title: content.title,
      text: content.text,
      created_at: at,
    });
  };

/** Lists a project's live shared preconditions at their latest version (by id unless `sortField` says otherwise). */
export const listSharedPreconditions = (
  db: Db,
  actor: Actor,
  projectRef: string,
  query: SharedPreconditionListQuery,
): Promise<SharedPreconditionListItem[]> =>
  items.listItems(KIND, loadPreconditions, db, actor, projectRef, query);

/** One shared precondition of the project at its latest version, or at `version`. */
export const getSharedPrecondition = (
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  version?: number,
): Promise<SharedPrecondition> => items.getItem(KIND, loadPreconditions, db, actor, projectRef, id, version);

const content: items.ItemContent<Content, Content, SharedPrecondition> = {
  load: loadPreconditions,
  validate: validateContent,
  write: versionWriter,
  contentOf: (p) => ({ title: p.title, text: p.text }),
  same: (a, b) => a.title === b.title && a.text === b.text,
};

/** Creates a shared precondition at version 1; its title is unique among the project's live ones (409). */
export const createSharedPrecondition = (
  db: Db,
  actor: Actor,
  projectRef: string,
  input: CreateSharedPreconditionBody,
): Promise<{ id: number }> => items.createWithContent(KIND, content, db, actor, projectRef, input);

/** Changes a shared precondition: a changed title or text makes version n+1 (shared-items updateWithContent). */
export const updateSharedPrecondition = (
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
  input: UpdateSharedPreconditionBody,
): Promise<SharedPrecondition> => items.updateWithContent(KIND, content, db, actor, projectRef, id, input);

/** Soft-deletes a shared precondition; 409 while the latest version of a live test case uses it. */
export const deleteSharedPrecondition = (
  db: Db,
  actor: Actor,
  projectRef: string,
  id: number,
): Promise<void> => items.deleteItem(KIND, db, actor, projectRef, id);

/** The live test cases using a shared precondition (their latest version does), by seq: what an edit of it changes. */
export const listSharedPreconditionUsers = (db: Db, actor: Actor, projectRef: string, id: number) =>
  items.listUsers(KIND, db, actor, projectRef, id);
