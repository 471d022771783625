import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../create-db.js';
import type { TableInfo } from './catalog.js';

export type Row = Record<string, unknown>;

/** A row's key as the marker stores it: the JSON array of its key columns' values. */
export const keyOf = (table: TableInfo, row: Row): unknown[] => table.key.map((k) => row[k]);

/**
 * The next `limit` rows of a table after `after` (a key, or undefined for the start) in key order: the keyset
 * reads each chunk through the primary key's index, so chunk 200 costs what chunk 1 did.
 */
export async function readChunk(
  db: Db,
  table: TableInfo,
  after: unknown[] | undefined,
  limit: number,
  columns: RawBuilder<unknown> = sql`*`,
): Promise<Row[]> {
  const keys = table.key.map((k) => sql.ref(k));
  const keyList = sql.join(keys);
  const where =
    after === undefined
      ? sql``
      : keys.length === 1
        ? sql`where ${keys[0]} > ${after[0]}`
        : sql`where (${keyList}) > (${sql.join(after.map((v) => sql`${v}`))})`;
  const result = await sql<Row>`select ${columns} from ${sql.table(table.name)} ${where}
    order by ${keyList} limit ${limit}`.execute(db);
  return result.rows;
}

/** Every row of a table, chunk by chunk in key order. */
export async function* allRows(db: Db, table: TableInfo, chunkRows: number): AsyncGenerator<Row[]> {
  let after: unknown[] | undefined;
  for (;;) {
    const rows = await readChunk(db, table, after, chunkRows);
    if (rows.length === 0) return;
    yield rows;
    after = keyOf(table, rows.at(-1)!);
  }
}

export async function countRows(db: Db, table: string): Promise<number> {
  const result = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(result.rows[0].n);
}
