import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { SharedStepsTable, SharedSubStepsTable } from '../../db/tables/repository.js';
import type { SharedStepSortColumn } from './shared-steps.schemas.js';
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
    .selectFrom('shared_steps')
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
      .selectFrom('shared_steps')
      .select(HEAD_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .orderBy('id'),
  ).execute();

/** The head, locked until the transaction ends: a test case cannot start using it meanwhile (lockHeadsForUse). */
export const lockHeadForDelete = (db: Db, tenantId: string, id: number) =>
  forUpdate(
    db,
    db.selectFrom('shared_steps').select(HEAD_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', id),
  ).executeTakeFirst();

export const findHeads = (db: Db, tenantId: string, ids: number[]) =>
  db
    .selectFrom('shared_steps')
    .select(HEAD_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();

/** The live shared step holding a title in the project, if any (titles are unique among live ones). */
export const findLiveByTitle = (db: Db, tenantId: string, projectId: string, title: string) =>
  db
    .selectFrom('shared_steps')
    .select(['id'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('title', '=', title)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export interface ListOptions {
  sortColumn: SharedStepSortColumn;
  desc: boolean;
  withCount: boolean;
}

/** Live shared steps of a project; with `withCount`, the live test cases whose latest version uses each. */
export const listLiveHeads = (db: Db, tenantId: string, projectId: string, o: ListOptions) =>
  db
    .selectFrom('shared_steps as s')
    .select(['s.id', 's.project_id', 's.title', 's.version', 's.created_at', 's.updated_at', 's.deleted_at'])
    .$if(o.withCount, (q) =>
      q.select((eb) =>
        eb
          .selectFrom('tcase_shared_steps as ts')
          .innerJoin('tcases as c', 'c.id', 'ts.tcase_id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('ts.shared_step_id', '=', 's.id')
          .where('ts.tenant_id', '=', tenantId)
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

/** Titles of these shared steps at these versions (callers pick the exact pairs they asked for). */
export const findVersions = (db: Db, tenantId: string, ids: number[], versions: number[]) =>
  db
    .selectFrom('shared_step_versions')
    .select(['shared_step_id', 'version', 'title', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('shared_step_id', 'in', ids)
    .where('version', 'in', versions)
    .execute();

/** Sub-steps of these shared steps at these versions, in order (callers pick the exact pairs). */
export const findSubSteps = (db: Db, tenantId: string, ids: number[], versions: number[]) =>
  db
    .selectFrom('shared_sub_steps')
    .select(['id', 'shared_step_id', 'version', 'pos', 'description', 'expected'])
    .where('tenant_id', '=', tenantId)
    .where('shared_step_id', 'in', ids)
    .where('version', 'in', versions)
    .orderBy('shared_step_id')
    .orderBy('version')
    .orderBy('pos')
    .execute();

/** How many live test cases' latest versions use the shared step. */
export const countUsingTcases = async (db: Db, tenantId: string, id: number): Promise<number> => {
  const row = await db
    .selectFrom('tcase_shared_steps as ts')
    .innerJoin('tcases as c', 'c.id', 'ts.tcase_id')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('ts.tenant_id', '=', tenantId)
    .where('ts.shared_step_id', '=', id)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

export const insertHead = async (db: Db, row: Insertable<SharedStepsTable>): Promise<number> => {
  const inserted = await db.insertInto('shared_steps').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
};

export const insertVersion = (
  db: Db,
  row: { tenant_id: string; shared_step_id: number; version: number; title: string; created_at: string },
) => db.insertInto('shared_step_versions').values(row).execute();

export const insertSubSteps = async (db: Db, rows: Insertable<SharedSubStepsTable>[]) => {
  if (rows.length > 0) await db.insertInto('shared_sub_steps').values(rows).execute();
};

/** Moves the head to a new version only if nobody else did first; returns whether it did. */
export const advanceHead = async (
  db: Db,
  tenantId: string,
  id: number,
  fromVersion: number,
  values: { title: string; version: number; updated_at: string },
): Promise<boolean> => {
  const res = await db
    .updateTable('shared_steps')
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
    .updateTable('shared_steps')
    .set({ deleted_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
