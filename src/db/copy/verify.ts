import type { Db } from '../create-db.js';
import type { TableInfo } from './catalog.js';
import { allRows } from './keyset.js';
import { rowDigest, TableChecksum } from './values.js';

export interface TableCheck {
  table: string;
  sourceRows: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  ok: boolean;
}

async function checksum(
  db: Db,
  table: TableInfo,
  columns: string[],
  chunkRows: number,
): Promise<TableChecksum> {
  const sum = new TableChecksum();
  for await (const rows of allRows(db, table, chunkRows))
    for (const row of rows) sum.add(rowDigest(row, columns));
  return sum;
}

/**
 * Reads the table on both sides again, each in its own key order, and compares row counts and checksums over
 * every column (dialect-neutral: values.ts).
 */
export async function verifyTable(
  source: Db,
  target: Db,
  sourceTable: TableInfo,
  targetTable: TableInfo,
  chunkRows: number,
): Promise<TableCheck> {
  const columns = sourceTable.columns.map((c) => c.name).sort();
  const [a, b] = await Promise.all([
    checksum(source, sourceTable, columns, chunkRows),
    checksum(target, targetTable, columns, chunkRows),
  ]);
  return {
    table: sourceTable.name,
    sourceRows: a.rows,
    targetRows: b.rows,
    sourceChecksum: a.hex(),
    targetChecksum: b.hex(),
    ok: a.rows === b.rows && a.hex() === b.hex(),
  };
}
