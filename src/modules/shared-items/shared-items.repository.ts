import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import { forShare, forUpdate } from '../../db/dialect.js';
import type { SharedStepsTable } from '../../db/tables/repository.js';

/**
 * A kind of versioned, soft-deleted item of a project that test cases use (shared steps, shared
 * preconditions): its head table, the table recording which test cases use it, and its name in messages.
 */
export interface SharedItemKind {
  headTable: 'shared_steps' | 'shared_preconditions';
  usageTable: 'tcase_shared_steps' | 'tcase_shared_preconditions';
  /** The usage table's column naming the item. */
  usageColumn: 'shared_step_id' | 'shared_precondition_id';
  /** As in "shared step 5 not found". */
  label: string;
}

export type SharedItemSortColumn = 'id' | 'title' | 'created_at' | 'updated_at';

const HEAD_COLUMNS = [
  'id',
  'project_id',
  'title',
  'version',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

/** A head row: the item's latest version and whether it was deleted (both head tables have these columns). */
export type SharedItemHead = Pick<Selectable<SharedStepsTable>, (typeof HEAD_COLUMNS)[number]>;

// Kysely cannot type a table chosen at run time; the casts stay in this file, the results are typed by hand.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the table name is a value here, not a type
const anyDb = (db: Db) => db as unknown as Kysely<any>;

const selectHeads = (k: SharedItemKind, db: Db, tenantId: string) =>
  anyDb(db).selectFrom(k.headTable).select(HEAD_COLUMNS).where('tenant_id', '=', tenantId);

export const findHead = (k: SharedItemKind, db: Db, tenantId: string, id: number) =>
  selectHeads(k, db, tenantId).where('id', '=', id).executeTakeFirst() as Promise<SharedItemHead | undefined>;

export const findHeads = (k: SharedItemKind, db: Db, tenantId: string, ids: number[]) =>
  selectHeads(k, db, tenantId).where('id', 'in', ids).execute() as Promise<SharedItemHead[]>;

/**
 * The heads a test case is about to reference, locked against deletion until the transaction ends (FOR SHARE;
 * the delete takes lockHeadForDelete first), in id order so that writers never wait for each other in a cycle.
 */
export const lockHeadsForUse = (k: SharedItemKind, db: Db, tenantId: string, ids: number[]) =>
  forShare(db, selectHeads(k, db, tenantId).where('id', 'in', ids).orderBy('id')).execute() as Promise<
    SharedItemHead[]
  >;

/** The head, locked until the transaction ends: a test case cannot start using it meanwhile (lockHeadsForUse). */
export const lockHeadForDelete = (k: SharedItemKind, db: Db, tenantId: string, id: number) =>
  forUpdate(db, selectHeads(k, db, tenantId).where('id', '=', id)).executeTakeFirst() as Promise<
    SharedItemHead | undefined
  >;

/** The live item holding a title in the project, if any (titles are unique among live ones). */
export const findLiveByTitle = (
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  title: string,
) =>
  anyDb(db)
    .selectFrom(k.headTable)
    .select(['id'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('title', '=', title)
    .where('deleted_at', 'is', null)
    .executeTakeFirst() as Promise<{ id: number } | undefined>;

export interface ListOptions {
  sortColumn: SharedItemSortColumn;
  desc: boolean;
  withCount: boolean;
}

/** Live items of a project; with `withCount`, the live test cases whose latest version uses each. */
export const listLiveHeads = (
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  projectId: string,
  o: ListOptions,
) =>
  anyDb(db)
    .selectFrom(`${k.headTable} as s`)
    .select(HEAD_COLUMNS.map((c) => `s.${c}` as const))
    .$if(o.withCount, (q) =>
      q.select((eb) =>
        eb
          .selectFrom(`${k.usageTable} as u`)
          .innerJoin('tcases as c', 'c.id', 'u.tcase_id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef(`u.${k.usageColumn}`, '=', 's.id')
          .where('u.tenant_id', '=', tenantId)
          .where('c.deleted_at', 'is', null)
          .as('tcase_count'),
      ),
    )
    .where('s.tenant_id', '=', tenantId)
    .where('s.project_id', '=', projectId)
    .where('s.deleted_at', 'is', null)
    .orderBy(`s.${o.sortColumn}`, o.desc ? 'desc' : 'asc')
    .orderBy('s.id', o.desc ? 'desc' : 'asc')
    .execute() as Promise<(SharedItemHead & { tcase_count?: number })[]>;

/** How many live test cases' latest versions use the item. */
export const countUsingTcases = async (k: SharedItemKind, db: Db, tenantId: string, id: number) => {
  const row = await anyDb(db)
    .selectFrom(`${k.usageTable} as u`)
    .innerJoin('tcases as c', 'c.id', 'u.tcase_id')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('u.tenant_id', '=', tenantId)
    .where(`u.${k.usageColumn}`, '=', id)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

/** The live test cases whose latest version uses the item, by seq: what an edit changes. */
export const listUsingTcases = (k: SharedItemKind, db: Db, tenantId: string, id: number) =>
  anyDb(db)
    .selectFrom(`${k.usageTable} as u`)
    .innerJoin('tcases as c', 'c.id', 'u.tcase_id')
    .select(['c.id', 'c.seq', 'c.title', 'c.folder_id'])
    .where('u.tenant_id', '=', tenantId)
    .where(`u.${k.usageColumn}`, '=', id)
    .where('c.deleted_at', 'is', null)
    .orderBy('c.seq')
    .execute() as Promise<{ id: string; seq: number; title: string; folder_id: number }[]>;

export const insertHead = async (
  k: SharedItemKind,
  db: Db,
  row: { tenant_id: string } & Omit<SharedItemHead, 'id'>,
): Promise<number> => {
  const inserted = await anyDb(db)
    .insertInto(k.headTable)
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id as number;
};

/** Moves the head to a new version only if nobody else did first; returns whether it did. */
export const advanceHead = async (
  k: SharedItemKind,
  db: Db,
  tenantId: string,
  id: number,
  fromVersion: number,
  values: { title: string; version: number; updated_at: string },
): Promise<boolean> => {
  const res = await anyDb(db)
    .updateTable(k.headTable)
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('version', '=', fromVersion)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
};

export const markDeleted = (k: SharedItemKind, db: Db, tenantId: string, id: number, at: string) =>
  anyDb(db)
    .updateTable(k.headTable)
    .set({ deleted_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
