import {
  sql,
  type ExpressionBuilder,
  type Insertable,
  type Selectable,
  type SelectQueryBuilder,
  type Updateable,
} from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { Database, TcasesTable, TcaseVersionsTable } from '../../db/schema.js';
import { containsInsensitive } from '../../db/dialect.js';
import { matchingCaseIds, rankedMatches } from '../../db/full-text.js';
import { chunks } from '../../lib/chunks.js';

/*
 * The `tcases` table: the filtered, sorted and counted reads of a project's cases (at their latest version or a
 * given one) and the case rows' writes. A version's content is in versions/versions.repository.ts (`tcase_versions`)
 * and content/content.repository.ts (standalone steps and preconditions, the latest version's link rows).
 */

/** The columns of a test case joined with one of its versions (the latest unless said otherwise). */
const CASE_COLUMNS = [
  't.id',
  't.project_id',
  't.seq',
  't.legacy_id',
  't.type',
  't.folder_id',
  't.pos',
  't.is_draft',
  't.template_id',
  't.version as latest_version',
  't.author_id',
  't.created_at',
  't.updated_at',
  't.deleted_at',
  'v.version',
  'v.title',
  'v.priority',
  'v.comment',
  'v.is_empty',
  'v.precondition',
  'v.steps',
  'v.tag_ids',
  'v.requirement_ids',
  'v.links',
  'v.custom_fields',
  'v.file_ids',
  'v.template_data',
  'v.created_at as version_created_at',
] as const;

/** A test case joined with one of its versions (CASE_COLUMNS): the two table types, as selected. */
export type TcaseRow = Omit<Selectable<TcasesTable>, 'tenant_id' | 'version' | 'title' | 'priority'> & {
  /** tcases.version: the latest version number; `version` is the version of this row. */
  latest_version: number;
} & Omit<Selectable<TcaseVersionsTable>, 'id' | 'tenant_id' | 'tcase_id' | 'author_id' | 'created_at'> & {
    version_created_at: string;
  };

/** Filters of the list, count and run-selection queries: AND across filters, OR within one. */
export interface TcaseFilter {
  ids?: string[];
  seqs?: number[];
  folderIds?: number[];
  tagIds?: number[];
  priorities?: string[];
  search?: string;
  types?: string[];
  draft?: boolean;
  templateIds?: string[];
  requirementIds?: string[];
  customValues?: { fieldId: string; values: string[] }[];
  /** Full text (`q`): cases whose document holds every word; `seq` is also matched, or left out. */
  text?: TextFilter;
}

export interface TextFilter {
  /** Folded words (lib/search-text.ts); none: only the identifier matches. */
  words: string[];
  seq?: number;
  /** `with`: the case numbered `seq` matches too; `without`: it is left out (listed first by the caller). */
  seqMode: 'with' | 'without';
}

export type SortColumn =
  | 'id'
  | 'seq'
  | 'folder_id'
  | 'author_id'
  | 'pos'
  | 'title'
  | 'priority'
  | 'created_at'
  | 'updated_at'
  | 'legacy_id';

type Eb = ExpressionBuilder<Database & { t: TcasesTable }, 't'>;

/** Live cases of the project. Filters, sorting and counting need this table only (title and priority are mirrored). */
function liveCases(db: Db, tenantId: string, projectId: string) {
  return db
    .selectFrom('tcases as t')
    .where('t.tenant_id', '=', tenantId)
    .where('t.project_id', '=', projectId)
    .where('t.deleted_at', 'is', null);
}

/** A query over the project's live cases (liveCases), whatever it selects. */
type LiveCasesQuery<O> = SelectQueryBuilder<Database & { t: TcasesTable }, 't', O>;

function applyFilter<O>(db: Db, projectId: string, q: LiveCasesQuery<O>, f: TcaseFilter): LiveCasesQuery<O> {
  let out = f.text ? joinText(db, projectId, q, f.text) : q;
  // Empty lists mean "no restriction" (docs/api-decisions.md#query-plans), except explicit id/seq lists.
  if (f.ids) out = f.ids.length === 0 ? out.where(sql<boolean>`1 = 0`) : out.where('t.id', 'in', f.ids);
  if (f.seqs) out = f.seqs.length === 0 ? out.where(sql<boolean>`1 = 0`) : out.where('t.seq', 'in', f.seqs);
  if (f.folderIds?.length) out = out.where('t.folder_id', 'in', f.folderIds);
  if (f.priorities?.length) out = out.where('t.priority', 'in', f.priorities);
  if (f.types?.length) out = out.where('t.type', 'in', f.types);
  if (f.draft !== undefined) out = out.where('t.is_draft', '=', f.draft ? 1 : 0);
  if (f.templateIds?.length) out = out.where('t.template_id', 'in', f.templateIds);
  if (f.search !== undefined && f.search !== '') out = out.where(containsInsensitive('t.title', f.search));
  if (f.tagIds?.length) {
    const tagIds = f.tagIds;
    out = out.where((eb: Eb) =>
      eb(
        't.id',
        'in',
        eb.selectFrom('tcase_tags as tt').select('tt.tcase_id').where('tt.tag_id', 'in', tagIds),
      ),
    );
  }
  if (f.requirementIds?.length) {
    const reqIds = f.requirementIds;
    out = out.where((eb: Eb) =>
      eb(
        't.id',
        'in',
        eb
          .selectFrom('tcase_requirements as tr')
          .select('tr.tcase_id')
          .where('tr.requirement_id', 'in', reqIds),
      ),
    );
  }
  for (const { fieldId, values } of f.customValues ?? []) {
    if (values.length === 0) continue;
    out = out.where((eb: Eb) =>
      eb(
        't.id',
        'in',
        eb
          .selectFrom('tcase_custom_values as cv')
          .select('cv.tcase_id')
          .where('cv.field_id', '=', fieldId)
          .where('cv.value', 'in', values),
      ),
    );
  }
  return out;
}

/**
 * The cases `q` matches, joined as `m`: the index drives the query (a `t.id in (…)` would walk every case of the
 * project: 100 ms of 50,000 on SQLite). `with` adds the named case (a union), `without` leaves it out.
 */
function joinText<O>(db: Db, projectId: string, q: LiveCasesQuery<O>, t: TextFilter): LiveCasesQuery<O> {
  const words = t.words.length > 0 ? sql`${matchingCaseIds(db, projectId, t.words)}` : undefined;
  const named =
    t.seq !== undefined && t.seqMode === 'with'
      ? sql`select id as tcase_id from tcases where project_id = ${projectId} and seq = ${t.seq}`
      : undefined;
  const ids =
    words && named
      ? sql`${words} union ${named}`
      : (words ?? named ?? sql`select null as tcase_id where 1 = 0`);
  let out = q.innerJoin(sql<{ tcase_id: string }>`(${ids})`.as('m'), (j) =>
    j.onRef('m.tcase_id', '=', 't.id'),
  ) as unknown as LiveCasesQuery<O>;
  if (t.seq !== undefined && t.seqMode === 'without') out = out.where('t.seq', '<>', t.seq);
  return out;
}

/**
 * One page of the cases matching `filter.text` (which must have words), best first: rank (a title word above a
 * step's), then seq, and how many match in all. The other filters apply as in listTcases. The total rides on the
 * page's rows (a window count), so the matches are found and ranked once, not once more to count them; a page past
 * the last match has no row to carry it and counts on its own.
 */
export async function listRankedTcases(
  db: Db,
  tenantId: string,
  projectId: string,
  filter: TcaseFilter & { text: TextFilter },
  offset: number,
  limit: number,
): Promise<{ rows: TcaseRow[]; total: number }> {
  const { text, ...rest } = filter;
  const q = applyFilter(
    db,
    projectId,
    liveCases(db, tenantId, projectId).select(['t.id', sql<number>`count(*) over ()`.as('total')]),
    rest,
  )
    .innerJoin(rankedMatches(db, projectId, text.words).as('m'), (j) => j.onRef('m.tcase_id', '=', 't.id'))
    .$if(text.seq !== undefined && text.seqMode === 'without', (qb) => qb.where('t.seq', '<>', text.seq!))
    .orderBy('m.rank')
    .orderBy('t.seq');
  const page = limit > 0 ? await q.offset(offset).limit(limit).execute() : [];
  const total = page.length > 0 ? Number(page[0].total) : await countTcases(db, tenantId, projectId, filter);
  const ids = page.map((r) => r.id);
  const rows = await listLatestByIds(db, tenantId, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { rows: ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])), total };
}

/** The stored full-text documents (title and body as plain text) of these cases, for highlighting. */
export async function listSearchDocs(
  db: Db,
  tenantId: string,
  ids: string[],
): Promise<Map<string, { title: string; body: string }>> {
  const out = new Map<string, { title: string; body: string }>();
  for (const part of chunks(ids)) {
    const rows = await db
      .selectFrom('tcase_search_docs')
      .select(['tcase_id', 'title', 'body'])
      .where('tenant_id', '=', tenantId)
      .where('tcase_id', 'in', part)
      .execute();
    for (const r of rows) out.set(r.tcase_id, { title: r.title, body: r.body });
  }
  return out;
}

/**
 * One page of live test cases at their latest version: the page's ids are chosen on `tcases` alone
 * (filters, sort, offset, limit), then only those rows are joined with their versions.
 */
export async function listTcases(
  db: Db,
  tenantId: string,
  projectId: string,
  filter: TcaseFilter,
  sort: { column: SortColumn; order: 'asc' | 'desc' },
  offset: number,
  limit: number,
): Promise<TcaseRow[]> {
  let q = applyFilter(db, projectId, liveCases(db, tenantId, projectId).select('t.id'), filter);
  const dir = sort.order;
  if (sort.column === 'priority') {
    // Ascending is low → medium → high, a ranking rather than the alphabet.
    q = q.orderBy(sql`case ${sql.ref('t.priority')} when 'low' then 1 when 'medium' then 2 else 3 end`, dir);
  } else {
    q = q.orderBy(`t.${sort.column}`, dir);
  }
  if (sort.column !== 'seq') q = q.orderBy('t.seq', dir);
  const ids = (await q.offset(offset).limit(limit).execute()).map((r) => r.id);
  const rows = await listLatestByIds(db, tenantId, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/** Test cases (live or deleted) at their latest version, by id, in no particular order. */
export async function listLatestByIds(db: Db, tenantId: string, ids: string[]): Promise<TcaseRow[]> {
  const out: TcaseRow[] = [];
  for (const part of chunks(ids)) {
    out.push(
      ...((await db
        .selectFrom('tcases as t')
        .innerJoin('tcase_versions as v', (j) =>
          j.onRef('v.tcase_id', '=', 't.id').onRef('v.version', '=', 't.version'),
        )
        .select(CASE_COLUMNS)
        .where('t.tenant_id', '=', tenantId)
        .where('t.id', 'in', part)
        .execute()) as TcaseRow[]),
    );
  }
  return out;
}

export async function countTcases(
  db: Db,
  tenantId: string,
  projectId: string,
  filter: TcaseFilter,
): Promise<number> {
  const q = applyFilter(
    db,
    projectId,
    liveCases(db, tenantId, projectId).select((eb) => eb.fn.countAll<number>().as('n')),
    filter,
  );
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ids (in seq order) of live test cases matching the filter. */
export async function listMatchingIds(
  db: Db,
  tenantId: string,
  projectId: string,
  filter: TcaseFilter,
): Promise<{ id: string; seq: number }[]> {
  if (filter.ids) {
    // Named ids are looked up by key, and the project and the order are checked here: with the project or
    // the order in SQL, SQLite (no statistics) walks every case of the project instead (5 ms for 20 of 10,000).
    const rows = await applyFilter(
      db,
      projectId,
      db
        .selectFrom('tcases as t')
        .select(['t.id', 't.seq', 't.project_id'])
        .where('t.tenant_id', '=', tenantId)
        .where('t.deleted_at', 'is', null),
      filter,
    ).execute();
    return rows
      .filter((r) => r.project_id === projectId)
      .map((r) => ({ id: r.id, seq: r.seq }))
      .sort((a, b) => a.seq - b.seq);
  }
  const q = applyFilter(db, projectId, liveCases(db, tenantId, projectId).select(['t.id', 't.seq']), filter);
  return q.orderBy('t.seq').execute();
}

/** Test cases (live or deleted) joined with the given versions; pairs not found are absent. */
export async function listCasesAtVersions(
  db: Db,
  tenantId: string,
  refs: { tcaseId: string; version: number }[],
): Promise<TcaseRow[]> {
  const wanted = new Set(refs.map((r) => `${r.tcaseId}\u0000${r.version}`));
  const ids = [...new Set(refs.map((r) => r.tcaseId))];
  const versions = [...new Set(refs.map((r) => r.version))];
  const out: TcaseRow[] = [];
  for (const part of chunks(ids)) {
    const rows = (await db
      .selectFrom('tcases as t')
      .innerJoin('tcase_versions as v', 'v.tcase_id', 't.id')
      .select(CASE_COLUMNS)
      .where('t.tenant_id', '=', tenantId)
      .where('t.id', 'in', part)
      .where('v.version', 'in', versions)
      .execute()) as TcaseRow[];
    for (const row of rows) if (wanted.has(`${row.id}\u0000${row.version}`)) out.push(row);
  }
  return out;
}

/** A test case of the project by id, seq or legacy id, at its latest version. */
export async function findTcaseBy(
  db: Db,
  tenantId: string,
  projectId: string,
  by: { id?: string; seq?: number; legacyId?: string },
  options: { includeDeleted?: boolean } = {},
): Promise<TcaseRow | undefined> {
  let q = db
    .selectFrom('tcases as t')
    .innerJoin('tcase_versions as v', (j) =>
      j.onRef('v.tcase_id', '=', 't.id').onRef('v.version', '=', 't.version'),
    )
    .select(CASE_COLUMNS)
    .where('t.tenant_id', '=', tenantId)
    .where('t.project_id', '=', projectId);
  if (!options.includeDeleted) q = q.where('t.deleted_at', 'is', null);
  if (by.id !== undefined) q = q.where('t.id', '=', by.id);
  if (by.seq !== undefined) q = q.where('t.seq', '=', by.seq);
  if (by.legacyId !== undefined) q = q.where('t.legacy_id', '=', by.legacyId).orderBy('t.seq');
  return (await q.executeTakeFirst()) as TcaseRow | undefined;
}

/** Live filled cases of the given templates, at their latest version, in seq order. */
export async function listFilledOf(db: Db, tenantId: string, templateIds: string[]): Promise<TcaseRow[]> {
  const out: TcaseRow[] = [];
  for (const part of chunks(templateIds)) {
    const rows = (await db
      .selectFrom('tcases as t')
      .innerJoin('tcase_versions as v', (j) =>
        j.onRef('v.tcase_id', '=', 't.id').onRef('v.version', '=', 't.version'),
      )
      .select(CASE_COLUMNS)
      .where('t.tenant_id', '=', tenantId)
      .where('t.template_id', 'in', part)
      .where('t.deleted_at', 'is', null)
      .orderBy('t.seq')
      .execute()) as TcaseRow[];
    out.push(...rows);
  }
  return out;
}

/** How many live filled cases each template has. */
export async function countFilledOf(
  db: Db,
  tenantId: string,
  templateIds: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const part of chunks(templateIds)) {
    const rows = await db
      .selectFrom('tcases')
      .select(['template_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tenant_id', '=', tenantId)
      .where('template_id', 'in', part)
      .where('deleted_at', 'is', null)
      .groupBy('template_id')
      .execute();
    for (const r of rows) out.set(r.template_id!, Number(r.n));
  }
  return out;
}

/** The largest position of a live case in the folder, or -1 for an empty folder. */
export async function maxPosInFolder(
  db: Db,
  tenantId: string,
  projectId: string,
  folderId: number,
): Promise<number> {
  const row = await db
    .selectFrom('tcases')
    .select((eb) => eb.fn.max<number | null>('pos').as('m'))
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('folder_id', '=', folderId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.m === null || row?.m === undefined ? -1 : Number(row.m);
}

export const findCaseAtPos = (db: Db, tenantId: string, projectId: string, folderId: number, pos: number) =>
  db
    .selectFrom('tcases')
    .select(['id', 'seq'])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('folder_id', '=', folderId)
    .where('pos', '=', pos)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export const insertTcases = async (db: Db, rows: Insertable<TcasesTable>[]) => {
  for (const part of chunks(rows, 500)) await db.insertInto('tcases').values(part).execute();
};

export const updateTcase = (db: Db, tenantId: string, id: string, values: Updateable<TcasesTable>) =>
  db.updateTable('tcases').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();

export const softDeleteTcases = (db: Db, tenantId: string, ids: string[], at: string) =>
  db
    .updateTable('tcases')
    .set({ deleted_at: at, updated_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();

/** Live test cases in the given folders: id, type and template, for folder deletion. */
export async function listLiveInFolders(
  db: Db,
  tenantId: string,
  projectId: string,
  folderIds: number[],
): Promise<{ id: string; type: string; template_id: string | null }[]> {
  const out: { id: string; type: string; template_id: string | null }[] = [];
  for (const part of chunks(folderIds)) {
    out.push(
      ...(await liveCases(db, tenantId, projectId)
        .select(['t.id', 't.type', 't.template_id'])
        .where('t.folder_id', 'in', part)
        .execute()),
    );
  }
  return out;
}
