import { sql, type Kysely } from 'kysely';
import type { Db } from '../create-db.js';
import { COPY_STATE_TABLE } from './catalog.js';

/**
 * The copy's progress marker, a table in the TARGET (no migration: only `casebook copy` creates or reads it).
 * One row per table copied so far (`last_key` is the JSON key of the last row copied, `phase` says whether its
 * rows are done) and one row named '' for the whole copy: its source and whether it finished. Each chunk's rows
 * and its marker are written in one transaction, so after an interruption the marker says exactly where to go on.
 */

export interface TableState {
  table_name: string;
  source: string;
  /** rows: copying rows; links: setting self-references; done. */
  phase: 'rows' | 'links' | 'done';
  last_key: string | null;
  rows_done: number;
  updated_at: string;
}

type StateDb = Kysely<{ [COPY_STATE_TABLE]: TableState }>;

export const stateDb = (db: Db | Kysely<never>): StateDb => db as unknown as StateDb;

/** The whole copy's row. */
export const WHOLE_COPY = '';

export async function createStateTable(db: Db): Promise<void> {
  await db.schema
    .createTable(COPY_STATE_TABLE)
    .ifNotExists()
    .addColumn('table_name', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('last_key', 'text')
    .addColumn('rows_done', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

/** Every row of the marker, or an empty list when the target has none (no copy ever wrote to it). */
export async function readState(db: Db): Promise<TableState[]> {
  try {
    const rows = await stateDb(db).selectFrom(COPY_STATE_TABLE).selectAll().execute();
    return rows.map((r) => ({ ...r, rows_done: Number(r.rows_done) }));
  } catch (err) {
    if (new RegExp(COPY_STATE_TABLE).test(String((err as Error).message))) return [];
    throw err;
  }
}

/** Writes one table's marker (inside the chunk's transaction). */
export async function saveState(
  db: Db | Kysely<never>,
  state: Omit<TableState, 'updated_at'>,
): Promise<void> {
  const row = { ...state, updated_at: new Date().toISOString() };
  await stateDb(db)
    .insertInto(COPY_STATE_TABLE)
    .values(row)
    .onConflict((oc) =>
      oc.column('table_name').doUpdateSet({
        phase: row.phase,
        last_key: row.last_key,
        rows_done: row.rows_done,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Whether any table of the target other than the bookkeeping holds a row. */
export async function holdsData(db: Db, tables: string[]): Promise<string | undefined> {
  for (const table of tables) {
    const row = await sql<{ one: number }>`select 1 as one from ${sql.table(table)} limit 1`.execute(db);
    if (row.rows.length > 0) return table;
  }
  return undefined;
}
