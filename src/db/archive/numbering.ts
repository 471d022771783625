import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../create-db.js';
import type { Database } from '../schema.js';
import type { ArchiveRecord } from './format.js';

/* What the parts of the archive's export share: archive numbers, pages of rows, the context. */

export const PAGE = 1000;
export type Row = Record<string, unknown>;

/**
 * Stored id → archive number (1-based, in the order the records are written). Integer ids come in increasing
 * order (keyset pages), so they are kept in a sorted typed array (8 bytes each, found by binary search) rather than
 * a Map (several times that): a project's steps, results and runs are its most numerous rows. Other ids (random
 * strings, or integers out of order) are kept in a Map.
 */
export class Numbering<K extends string | number> {
  private sorted = new Float64Array(256);
  private map: Map<K, number> | undefined;
  private count = 0;

  add(id: K): number {
    const n = ++this.count;
    if (!this.map && typeof id === 'number' && (n === 1 || id > this.sorted[n - 2])) {
      if (n > this.sorted.length) {
        const grown = new Float64Array(this.sorted.length * 2);
        grown.set(this.sorted);
        this.sorted = grown;
      }
      this.sorted[n - 1] = id;
      return n;
    }
    if (!this.map) {
      this.map = new Map();
      for (let i = 0; i < n - 1; i++) this.map.set(this.sorted[i] as K, i + 1);
      this.sorted = new Float64Array(0);
    }
    this.map.set(id, n);
    return n;
  }

  of(id: K | null | undefined): number | null {
    if (id === null || id === undefined) return null;
    if (this.map) return this.map.get(id) ?? null;
    if (typeof id !== 'number') return null;
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.sorted[mid];
      if (at === id) return mid + 1;
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  get size(): number {
    return this.count;
  }

  /** The stored ids in number order. */
  ids(): K[] {
    return this.map ? [...this.map.keys()] : (Array.from(this.sorted.subarray(0, this.count)) as K[]);
  }
}

/** Pages of an integer-keyed query in key order (`id` unless told): keyset pages of PAGE rows. */
export async function* pageLists<R>(
  page: (after: number) => Promise<R[]>,
  keyOf: (row: R) => unknown = (row) => (row as { id: unknown }).id,
): AsyncGenerator<R[]> {
  let after = 0;
  for (;;) {
    const rows = await page(after);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    after = Number(keyOf(rows[rows.length - 1]));
  }
}

/** Rows of an integer-keyed query, a page at a time in key order (`id` unless told). */
export async function* pages<R>(
  page: (after: number) => Promise<R[]>,
  keyOf?: (row: R) => unknown,
): AsyncGenerator<R> {
  for await (const rows of pageLists(page, keyOf)) yield* rows;
}

type AnyDb = Kysely<Record<string, Row>>;

/** Where a table's rows hang from the project: its own project_id, or a parent's (a case's, a run's). */
export interface ProjectRowsOptions {
  /** The parent table whose project_id counts, and the column naming the parent. */
  through?: { parent: 'tcases' | 'runs'; column: string };
  /** The integer key of the pages: `id`, or `seq` (cases). */
  key?: 'id' | 'seq';
}

/** The rows of `table` under the project, a page at a time (keyset pages on `key`, in its order). */
export function projectPages<T extends keyof Database>(
  db: Db,
  projectId: string,
  table: T,
  { through, key = 'id' }: ProjectRowsOptions = {},
): AsyncGenerator<Selectable<Database[T]>[]> {
  const any = db as unknown as AnyDb;
  const name: string = table;
  const lists = pageLists<Row>(
    (after) => {
      const from = any.selectFrom(`${name} as x`);
      const scoped = through
        ? from
            .innerJoin(`${through.parent} as p`, 'p.id', `x.${through.column}`)
            .where('p.project_id', '=', projectId)
        : from.where('x.project_id', '=', projectId);
      return scoped.selectAll('x').where(`x.${key}`, '>', after).orderBy(`x.${key}`).limit(PAGE).execute();
    },
    (row) => row[key],
  );
  return lists as AsyncGenerator<Selectable<Database[T]>[]>;
}

/** Every row of `table` under the project, read a page at a time (projectPages). */
export async function* projectRows<T extends keyof Database>(
  db: Db,
  projectId: string,
  table: T,
  options: ProjectRowsOptions = {},
): AsyncGenerator<Selectable<Database[T]>> {
  for await (const rows of projectPages(db, projectId, table, options)) yield* rows;
}

export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** What the parts of the export share: the writers, and the numbers given so far. */
export interface ExportContext {
  db: Db;
  projectId: string;
  out: (record: ArchiveRecord) => string;
  line: (record: ArchiveRecord) => string;
  person: (id: unknown) => string | null;
  html: (text: string) => string;
  folders: Numbering<number>;
  tags: Numbering<number>;
  milestones: Numbering<number>;
  configurations: Numbering<string>;
  requirements: Numbering<string>;
  sharedSteps: Numbering<number>;
  sharedPreconditions: Numbering<number>;
  fieldNames: Map<string, string>;
  files: Numbering<string>;
}
