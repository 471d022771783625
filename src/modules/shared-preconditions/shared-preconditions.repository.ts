import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { SharedPreconditionsTable } from '../../db/tables/repository.js';
import type { SharedPreconditionSortColumn } from './shared-preconditions.schemas.js';
import { forShare, forUpdate } from '../../db/dialect.js';

const HEAD_COLUMNS = [
  'id',
  'project_id',
  'title',
  'version',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

export const findHead = (db: Db, tenantId: string, id: number) =>
  db
    .selectFrom('shared_preconditions')
    .select(HEAD_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * The heads a test case is about to reference, locked against deletion until the transaction ends (FOR SHARE;
 * the delete takes lockHeadForDelete first), in id order so that writers never wait for each other in a cycle.
 */
export const lockHeadsForUse = (db: Db, tenantId: string, ids: number[]) =>
  forShare(
    db,
    db
      .selectFrom('shared_preconditions')
      .select(HEAD_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .orderBy('id'),
  ).execute();

/** The head, locked until the transaction ends: a test case cannot start using it meanwhile (lockHeadsForUse). */
export const lockHeadForDelete = (db: Db, tenantId: string, id: number) =>
  forUpdate(
    db,
    db
      .selectFrom('shared_preconditions')
      .select(HEAD_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id),
  ).executeTakeFirst();

export const findHeads = (db: Db, tenantId: string, ids: number[]) =>
  db
    .selectFrom('shared_preconditions')
    .select(HEAD_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();

export const findLiveByTitle = (db: Db, tenantId: string, projectId: string, title: string) =>
  db
    .selectFrom('shared_preconditions')
    .select(['id'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('title', '=', title)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export interface ListOptions {
  sortColumn: SharedPreconditionSortColumn;
  desc: boolean;
  withCount: boolean;
}

/** Live shared preconditions of a project; with `withCount`, the live test cases whose latest version uses each. */
export const listLiveHeads = (db: Db, tenantId: string, projectId: string, o: ListOptions) =>
  db
    .selectFrom('shared_preconditions as s')
    .select(['s.id', 's.project_id', 's.title', 's.version', 's.created_at', 's.updated_at', 's.deleted_at'])
    .$if(o.withCount, (q) =>
      q.select((eb) =>
        eb
          .selectFrom('tcase_shared_preconditions as tp')
          .innerJoin('tcases as c', 'c.id', 'tp.tcase_id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('tp.shared_precondition_id', '=', 's.id')
          .where('tp.tenant_id', '=', tenantId)
          .where('c.deleted_at', 'is', null)
          .as('tcase_count'),
      ),
    )
    .where('s.tenant_id', '=', tenantId)
    .where('s.project_id', '=', projectId)
    .where('s.deleted_at', 'is', null)
    .orderBy(`s.${o.sortColumn}`, o.desc ? 'desc' : 'asc')
    .orderBy('s.id', o.desc ? 'desc' : 'asc')
    .execute();

/** These shared preconditions at these versions (callers pick the exact pairs they asked for). */
export const findVersions = (db: Db, tenantId: string, ids: number[], versions: number[]) =>
  db
    .selectFrom('shared_precondition_versions')
    .select(['shared_precondition_id', 'version', 'title', 'text', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('shared_precondition_id', 'in', ids)
    .where('version', 'in', versions)
    .execute();

export const countUsingTcases = async (db: Db, tenantId: string, id: number): Promise<number> => {
  const row = await db
    .selectFrom('tcase_shared_preconditions as tp')
    .innerJoin('tcases as c', 'c.id', 'tp.tcase_id')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('tp.tenant_id', '=', tenantId)
    .where('tp.shared_precondition_id', '=', id)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

export const insertHead = async (db: Db, row: Insertable<SharedPreconditionsTable>): Promise<number> => {
  const inserted = await db
    .insertInto('shared_preconditions')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
};

export const insertVersion = (
  db: Db,
  row: {
    tenant_id: string;
    shared_precondition_id: number;
    version: number;
    title: string;
    text: string;
    created_at: string;
  },
) => db.insertInto('shared_precondition_versions').values(row).execute();

/** Moves the head to a new version only if nobody else did first; returns whether it did. */
export const advanceHead = async (
  db: Db,
  tenantId: string,
  id: number,
  fromVersion: number,
  values: { title: string; version: number; updated_at: string },
): Promise<boolean> => {
  const res = await db
    .updateTable('shared_preconditions')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('version', '=', fromVersion)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
};

export const markDeleted = (db: Db, tenantId: string, id: number, at: string) =>
  db
    .updateTable('shared_preconditions')
    .set({ deleted_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
