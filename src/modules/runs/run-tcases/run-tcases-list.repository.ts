import { sql } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import {
  containsInsensitive,
  fingerprintText,
  jsonIdNameOrNull,
  selectJsonArray,
  type JsonBody,
  tableIndexedBy,
  type JsonField,
} from '../../../db/dialect.js';

/*
 * A run's list of test cases (`GET /project/{p}/run/{r}/tcase`), THE hot read: `run_tcases` joined with `tcases`
 * and the shown version in `tcase_versions` (and the assignee's name), as rows or as the JSON body the database
 * writes, and the fingerprint of those rows for the run list cache (run-list-cache.ts). Only reads of those tables
 * (docs/architecture.md, "Which module owns which table").
 */

export interface RunTcaseListFilter {
  search?: string;
  priorities?: string[];
  /** Needed to filter by tags and custom fields of the shown version. */
  withVersionData: boolean;
  sort?: { column: 'title' | 'created_at'; order: 'asc' | 'desc' };
  /** Only the cases assigned to this user; null: only the cases nobody is assigned (run_tcases_assignee_idx). */
  assigneeId?: number | null;
  /** Only when no filter runs after the query. */
  limit?: number;
}

/**
 * THE hot path: the cases of a run with the version each one shows (pinned, or the latest while open),
 * folder and position (frozen once closed, else live) — one query over run_tcases → tcases →
 * tcase_versions. (Folders for `include=folder` come from the folders service afterwards: a run spans
 * few folders, and joining them to every row costs more than one small extra query.)
 *
 * The run's cases as the run shows them, in the list's order (sort field first when asked, then folder,
 * position and seq): ONE query over run_tcases, tcases and the shown version (the list index, which holds
 * what a list shows of a version). Also answers the sort keys, which listRunTcasesJson selects as s1..s5.
 */
const runTcasesQuery = (db: Db, tenantId: string, runId: number, filter: RunTcaseListFilter) => {
  const versions = tableIndexedBy(
    db,
    'tcase_versions',
    'v',
    'tcase_versions_list_idx',
  ) as unknown as 'tcase_versions as v';
  let q = db
    .selectFrom('run_tcases as rt')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .innerJoin(versions, (j) =>
      j
        .onRef('v.tcase_id', '=', 'rt.tcase_id')
        .on('v.version', '=', sql<number>`coalesce(rt.version, t.version)`),
    )
    // The assignee's name (a deactivated person keeps theirs); a key lookup for the few assigned rows.
    .leftJoin('users as au', 'au.id', 'rt.assignee_id')
    .select([
      't.id',
      'v.version',
      't.legacy_id',
      't.type',
      sql<number>`coalesce(rt.frozen_folder_id, t.folder_id)`.as('folder_id'),
      sql<number>`coalesce(rt.frozen_pos, t.pos)`.as('pos'),
      't.seq',
      'v.title',
      'v.priority',
      'rt.status',
      'rt.is_automated',
      'v.is_empty',
      't.template_id',
      'rt.assignee_id',
      'au.name as assignee_name',
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.in_run', '=', 1);
  if (filter.assigneeId !== undefined)
    q = q.where('rt.assignee_id', filter.assigneeId === null ? 'is' : '=', filter.assigneeId);
  if (filter.search) q = q.where(containsInsensitive('v.title', filter.search));
  if (filter.priorities && filter.priorities.length > 0) q = q.where('v.priority', 'in', filter.priorities);
  // Titles sort case-insensitively, so both databases agree whatever their collation.
  const keys: { expr: ReturnType<typeof sql<unknown>>; desc: boolean }[] = [];
  if (filter.sort?.column === 'title') {
    keys.push({ expr: sql`lower(v.title)`, desc: filter.sort.order === 'desc' });
    keys.push({ expr: sql`v.title`, desc: filter.sort.order === 'desc' });
  }
  if (filter.sort?.column === 'created_at') {
    keys.push({ expr: sql`t.created_at`, desc: filter.sort.order === 'desc' });
  }
  keys.push({ expr: sql`coalesce(rt.frozen_folder_id, t.folder_id)`, desc: false });
  keys.push({ expr: sql`coalesce(rt.frozen_pos, t.pos)`, desc: false });
  keys.push({ expr: sql`t.seq`, desc: false });
  return { q, keys };
};

export const listRunTcases = (db: Db, tenantId: string, runId: number, filter: RunTcaseListFilter) => {
  const { q, keys } = runTcasesQuery(db, tenantId, runId, filter);
  let ordered = q;
  for (const k of keys) ordered = ordered.orderBy(k.expr, k.desc ? 'desc' : 'asc');
  return ordered
    .$if(filter.limit !== undefined, (qb) => qb.limit(filter.limit!))
    .$if(filter.withVersionData, (qb) => qb.select(['v.tag_ids', 'v.custom_fields']))
    .execute();
};

/**
 * listRunTcases as the JSON of the response body `{"tcases": [...]}`, built by the database (selectJsonArray): for a
 * run of 10,000 or 50,000 cases this is a fraction of the time and memory of row objects mapped and
 * serialised in Node. The same query, the same order, the same items (run-tcases.test.ts compares both).
 */
export const listRunTcasesJson = async (
  db: Db,
  tenantId: string,
  runId: number,
  filter: Omit<RunTcaseListFilter, 'withVersionData'>,
  /** PostgreSQL: also the fingerprint of the listed rows (runTcasesFingerprint's), with the body, for the run list cache. */
  fingerprint?: { maxBytes: number; done: (fingerprint: string, pieces?: string[]) => void },
): Promise<JsonBody> => {
  const { q, keys } = runTcasesQuery(db, tenantId, runId, { ...filter, withVersionData: false });
  const rows = q
    .select(jsonIdNameOrNull(db, 'rt.assignee_id', 'au.name').as('assignee'))
    .select(keys.map((k, i) => k.expr.as(`s${i + 1}`)))
    .$if(fingerprint !== undefined, (qb) => qb.select(ROW_VERSIONS_HASH.as('h')));
  const order = keys.map((k, i) => ({ column: `s${i + 1}`, desc: k.desc }));
  return selectJsonArray(db, rows, RUN_TCASE_JSON_FIELDS, order, {
    limit: filter.limit,
    wrapIn: 'tcases',
    fingerprint: fingerprint && { column: 'h', ...fingerprint },
  });
};

/**
 * PostgreSQL: a hash of the row versions a list item is made of. Every insert or update of a row writes a new
 * version stamped with its transaction's id (xmin), so the sum of these hashes over a list's rows, with their
 * count, changes when anything the list shows changes (a result, a case edited or moved, a case added to or taken
 * from the run, an assignee renamed), whichever process or path wrote it. Row locks leave xmin as it is.
 */
const ROW_VERSIONS_HASH = sql<string>`hashtextextended(rt.tcase_id || ':' || rt.xmin::text || ':' || t.xmin::text || ':' || v.xmin::text || ':' || coalesce(au.xmin::text, ''), 0)`;

/**
 * PostgreSQL: the fingerprint of the rows listRunTcasesJson lists with this filter (see ROW_VERSIONS_HASH): the
 * same joins without the sort and the JSON, under half the work of the list. The run list cache
 * (run-list-cache.ts) compares it with the one its copy of the body was made with.
 */
export const runTcasesFingerprint = async (
  db: Db,
  tenantId: string,
  runId: number,
  filter: Omit<RunTcaseListFilter, 'withVersionData' | 'limit' | 'sort'>,
): Promise<string> => {
  const { q } = runTcasesQuery(db, tenantId, runId, { ...filter, withVersionData: false });
  const row = await db
    .selectFrom(q.select(ROW_VERSIONS_HASH.as('h')).as('w'))
    // The sum as text: numerics are read as numbers (create-db.ts), which would round a sum of 64-bit hashes.
    .select([sql<number>`count(*)`.as('n'), sql<string | null>`sum(w.h)::text`.as('s')])
    .executeTakeFirstOrThrow();
  return fingerprintText(Number(row.n), row.s);
};

/** The keys of a run list item (runs.schemas.ts RunTcaseListItem) and the columns they come from. */
const RUN_TCASE_JSON_FIELDS: JsonField[] = [
  { key: 'id', column: 'id', type: 'token' },
  { key: 'version', column: 'version', type: 'integer' },
  { key: 'legacyId', column: 'legacy_id', type: 'text' },
  { key: 'type', column: 'type', type: 'token' },
  { key: 'folderId', column: 'folder_id', type: 'integer' },
  { key: 'pos', column: 'pos', type: 'integer' },
  { key: 'seq', column: 'seq', type: 'integer' },
  { key: 'title', column: 'title', type: 'text' },
  { key: 'priority', column: 'priority', type: 'token' },
  { key: 'status', column: 'status', type: 'token' },
  { key: 'isAutomated', column: 'is_automated', type: 'boolean' },
  { key: 'isEmpty', column: 'is_empty', type: 'boolean' },
  { key: 'assignee', column: 'assignee', type: 'json' },
  { key: 'templateTCaseId', column: 'template_id', type: 'token', optional: true },
];
