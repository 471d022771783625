import { sql, type Kysely } from 'kysely';
import type { Db } from '../create-db.js';
import { parseJson } from '../../lib/json.js';
import type { ArchiveRecord } from './format.js';
import { FILE_URL } from './format.js';
import { PAGE, projectPages, type Numbering, type Row } from './numbering.js';

/* Parts of the archive's export: the files a project uses, and the per-case rows kept for the latest versions. */

type AnyDb = Kysely<Record<string, Row>>;

/** The ids in `text`'s file addresses. */
function fileIdsIn(text: string, into: Set<string>): void {
  for (const m of text.matchAll(FILE_URL)) into.add(m[1]);
}

/** A table with HTML that may link uploaded files, and how its rows belong to a project. */
interface HtmlSource {
  table: string;
  /** The HTML columns: a row is read when one of them holds a file address, as their text joined by a space. */
  columns: readonly string[];
  /** The table whose `project_id` names the row's project, and the row's column pointing at it; none: its own. */
  owner?: { table: string; via: string };
}

const HTML_SOURCES: readonly HtmlSource[] = [
  { table: 'results', columns: ['comment'], owner: { table: 'runs', via: 'run_id' } },
  { table: 'steps', columns: ['description', 'expected'], owner: { table: 'tcases', via: 'tcase_id' } },
  { table: 'preconditions', columns: ['text'] },
  {
    table: 'shared_sub_steps',
    columns: ['description', 'expected'],
    owner: { table: 'shared_steps', via: 'shared_step_id' },
  },
  {
    table: 'shared_precondition_versions',
    columns: ['text'],
    owner: { table: 'shared_preconditions', via: 'shared_precondition_id' },
  },
  { table: 'runs', columns: ['description'] },
  { table: 'plans', columns: ['description'] },
];

/** HTML columns of the project's rows that may link uploaded files, each table read a page at a time. */
async function* htmlTexts(db: Db, projectId: string): AsyncGenerator<string> {
  const like = '%/file/%';
  for (const source of HTML_SOURCES) {
    const page = (after: number) => {
      let q = (db as unknown as AnyDb).selectFrom(`${source.table} as x`);
      if (source.owner) q = q.innerJoin(`${source.owner.table} as o`, 'o.id', `x.${source.owner.via}`);
      return q
        .select([
          'x.id as id',
          sql<string>`${sql.join(
            source.columns.map((c) => sql.ref(`x.${c}`)),
            sql` || ' ' || `,
          )}`.as('text'),
        ])
        .where(source.owner ? 'o.project_id' : 'x.project_id', '=', projectId)
        .where((eb) => eb.or(source.columns.map((c) => eb(`x.${c}`, 'like', like))))
        .where('x.id', '>', after)
        .orderBy('x.id')
        .limit(PAGE)
        .execute();
    };
    for (let after = 0; ;) {
      const rows = await page(after);
      for (const r of rows) yield r.text as string;
      if (rows.length < PAGE) break;
      after = Number(rows[rows.length - 1].id);
    }
  }
  const logs = await db
    .selectFrom('run_logs as g')
    .innerJoin('runs as r', 'r.id', 'g.run_id')
    .select('g.comment')
    .where('r.project_id', '=', projectId)
    .where('g.comment', 'like', like)
    .execute();
  for (const g of logs) yield g.comment;
}

/** The distinct files the project's results name. */
async function resultFileIds(db: Db, projectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('result_files as rf')
    .innerJoin('runs as r', 'r.id', 'rf.run_id')
    .select('rf.file_id')
    .distinct()
    .where('r.project_id', '=', projectId)
    .execute();
  return rows.map((r) => r.file_id);
}

/** Every file the project's case versions list or its HTML links to (ids; files of other tenants never match). */
export async function fileIdsOfProject(db: Db, projectId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let after = 0; ;) {
    const rows = await db
      .selectFrom('tcase_versions as v')
      .innerJoin('tcases as c', 'c.id', 'v.tcase_id')
      .select(['v.id', 'v.file_ids', 'v.comment'])
      .where('c.project_id', '=', projectId)
      .where('v.id', '>', after)
      .orderBy('v.id')
      .limit(PAGE)
      .execute();
    for (const r of rows) {
      for (const id of parseJson<string[]>(r.file_ids, [])) ids.add(id);
      fileIdsIn(r.comment, ids);
    }
    if (rows.length < PAGE) break;
    after = Number(rows[rows.length - 1].id);
  }
  for await (const text of htmlTexts(db, projectId)) fileIdsIn(text, ids);
  // The files results name (extensions.md §8): archived with their bytes, as the cases' files are.
  for (const part of await resultFileIds(db, projectId)) ids.add(part);
  return ids;
}

/** A table kept beside each case for its latest version (tags, custom values, requirements, shared items). */
export interface CaseLink {
  table:
    | 'tcase_tags'
    | 'tcase_custom_values'
    | 'tcase_requirements'
    | 'tcase_shared_steps'
    | 'tcase_shared_preconditions';
  /** Its columns the record needs (besides tcase_id). */
  columns: readonly string[];
  /** The order of a case's rows. */
  key: (row: Row) => string | number;
  /** The record of a row of the case `seq`; undefined leaves the row out. */
  record: (row: Row, seq: number) => ArchiveRecord | undefined;
}

/** The last seq of each page of the project's cases (PAGE cases a page, in seq order). */
async function casePageEnds(db: Db, projectId: string): Promise<number[]> {
  const ends: number[] = [];
  for (let after = 0; ;) {
    const rows = await db
      .selectFrom('tcases')
      .select('seq')
      .where('project_id', '=', projectId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return ends;
    after = Number(rows[rows.length - 1].seq);
    ends.push(after);
    if (rows.length < PAGE) return ends;
  }
}

/**
 * The rows kept beside each case for its latest version, each table in turn, in seq order then the link's
 * key: written as they are, so an imported project filters and counts like its source. Read a page of cases at a
 * time (one query per table and page), so memory holds one page whatever the project's size.
 */
export async function* caseLinks(
  db: Db,
  projectId: string,
  links: readonly CaseLink[],
  out: (record: ArchiveRecord) => string,
): AsyncGenerator<string> {
  const ends = await casePageEnds(db, projectId);
  for (const link of links) {
    let after = 0;
    for (const last of ends) {
      const rows = await (db as unknown as AnyDb)
        .selectFrom(`${link.table as string} as x`)
        .innerJoin('tcases as c', 'c.id', 'x.tcase_id')
        .select([...link.columns.map((c) => `x.${c}`), 'c.seq as seq'])
        .where('c.project_id', '=', projectId)
        .where('c.seq', '>', after)
        .where('c.seq', '<=', last)
        .execute();
      after = last;
      const seqOf = (r: Row) => Number(r.seq);
      rows.sort((a, b) => seqOf(a) - seqOf(b) || (link.key(a) < link.key(b) ? -1 : 1));
      for (const r of rows) {
        const record = link.record(r, seqOf(r));
        if (record) yield out(record);
      }
    }
  }
}

/** Rows that belong to a shared item (its versions, its sub-steps), each written as a record after the item. */
interface SharedPart {
  table: 'shared_step_versions' | 'shared_sub_steps' | 'shared_precondition_versions';
  /** The column naming the item. */
  item: string;
  /** The order of an item's rows. */
  order: readonly string[];
  record: (row: Row, n: number) => ArchiveRecord;
}

/** A kind of versioned shared item (shared steps, shared preconditions), as the export writes it. */
export interface SharedKind {
  table: 'shared_steps' | 'shared_preconditions';
  t: 'sharedStep' | 'sharedPrecondition';
  numbering: Numbering<number>;
  parts: readonly SharedPart[];
}

/**
 * Shared items in id order, each followed by its parts' rows: a page of items at a time, with one query per part
 * table and page.
 */
export async function* sharedItems(
  db: Db,
  projectId: string,
  kinds: readonly SharedKind[],
  out: (record: ArchiveRecord) => string,
): AsyncGenerator<string> {
  for (const kind of kinds) {
    for await (const items of projectPages(db, projectId, kind.table)) {
      const ids = items.map((s) => s.id);
      // Each part's rows of the page's items, by item.
      const parts = [];
      for (const part of kind.parts) {
        let q = (db as unknown as AnyDb)
          .selectFrom(part.table)
          .selectAll()
          .where(part.item, 'in', ids)
          .orderBy(part.item);
        for (const column of part.order) q = q.orderBy(column);
        const byItem = new Map<number, Row[]>();
        for (const row of await q.execute()) {
          const id = Number(row[part.item]);
          const list = byItem.get(id);
          if (list) list.push(row);
          else byItem.set(id, [row]);
        }
        parts.push({ part, byItem });
      }
      for (const s of items) {
        const n = kind.numbering.add(s.id);
        yield out({
          t: kind.t,
          title: s.title,
          version: s.version,
          createdAt: s.created_at,
          updatedAt: s.updated_at,
          deletedAt: s.deleted_at,
        });
        for (const { part, byItem } of parts)
          for (const row of byItem.get(s.id) ?? []) yield out(part.record(row, n));
      }
    }
  }
}
