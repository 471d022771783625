import { sql } from 'kysely';
import { dialectOf } from '../dialect.js';
import type { Db } from '../create-db.js';

/**
 * What `casebook copy` reads of a database's own catalog: its tables, their columns, primary keys and foreign
 * keys. Read from the database rather than listed by hand, so a table a later migration adds is copied without
 * anyone remembering to list it (test/scale/copy.test.ts checks that every table of the schema holds rows).
 */

export interface ColumnInfo {
  name: string;
  /** The declared type, lower-cased: `integer`, `text`, `bigint`, `boolean`, `jsonb`, `bytea`, ... */
  type: string;
  nullable: boolean;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  /** Primary-key columns in key order: the keyset of the chunked copy and the order of the checksum. */
  key: string[];
  /** Tables this one references (other than itself). */
  references: string[];
  /** Columns that reference this same table (tcases.template_id): copied as null, then set (see copy.ts). */
  selfReferences: string[];
}

/** Kysely's own tables and the copy's marker: bookkeeping, never copied. */
export const COPY_STATE_TABLE = 'casebook_copy_state';
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock', COPY_STATE_TABLE]);

/**
 * The full-text search index of test cases (migration 0024): derived from the cases, in each database's own form
 * (an FTS5 table and its shadow tables on SQLite, a tsvector column on PostgreSQL). Not copied: rebuilt in the
 * target from the copied cases (copy.ts), like the migration's backfill.
 */
const isDerived = (table: string): boolean => table.startsWith('tcase_search');

/** Tables the copy neither copies, counts nor checks. */
export const isBookkeeping = (table: string): boolean =>
  BOOKKEEPING.has(table) || table.startsWith('sqlite_') || isDerived(table);

async function sqliteTables(db: Db): Promise<TableInfo[]> {
  const names = await sql<{ name: string }>`select name from sqlite_master where type = 'table'
    order by name`.execute(db);
  const tables: TableInfo[] = [];
  for (const { name } of names.rows) {
    if (isBookkeeping(name)) continue;
    const cols = await sql<{ name: string; type: string; notnull: number; pk: number }>`select * from
      pragma_table_info(${name})`.execute(db);
    const fks = await sql<{ table: string; from: string }>`select * from
      pragma_foreign_key_list(${name})`.execute(db);
    tables.push({
      name,
      columns: cols.rows.map((c) => ({
        name: c.name,
        type: c.type.toLowerCase(),
        nullable: c.notnull === 0,
      })),
      key: cols.rows
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      references: [...new Set(fks.rows.map((f) => f.table).filter((t) => t !== name))],
      selfReferences: fks.rows.filter((f) => f.table === name).map((f) => f.from),
    });
  }
  return tables;
}

async function postgresTables(db: Db): Promise<TableInfo[]> {
  const cols = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>`
    select table_name, column_name, data_type, is_nullable from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`.execute(db);
  const keys = await sql<{ table_name: string; column_name: string }>`
    select c.conrelid::regclass::text as table_name, a.attname as column_name
    from pg_constraint c cross join lateral unnest(c.conkey) with ordinality as k(attnum, n)
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
    where c.contype = 'p' and c.connamespace = current_schema()::regnamespace
    order by 1, k.n`.execute(db);
  const fks = await sql<{ table_name: string; ref: string; column_name: string }>`
    select c.conrelid::regclass::text as table_name, c.confrelid::regclass::text as ref, a.attname as column_name
    from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`.execute(db);
  const byName = new Map<string, TableInfo>();
  for (const c of cols.rows) {
    if (isBookkeeping(c.table_name)) continue;
    let table = byName.get(c.table_name);
    if (!table) {
      table = { name: c.table_name, columns: [], key: [], references: [], selfReferences: [] };
      byName.set(c.table_name, table);
    }
    table.columns.push({
      name: c.column_name,
      type: c.data_type.toLowerCase(),
      nullable: c.is_nullable === 'YES',
    });
  }
  for (const k of keys.rows) byName.get(k.table_name)?.key.push(k.column_name);
  for (const f of fks.rows) {
    const table = byName.get(f.table_name);
    if (!table) continue;
    if (f.ref === f.table_name) table.selfReferences.push(f.column_name);
    else if (!table.references.includes(f.ref)) table.references.push(f.ref);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Every table of the database that the copy moves, in alphabetical order. */
export async function readCatalog(db: Db): Promise<TableInfo[]> {
  const tables = dialectOf(db) === 'postgres' ? await postgresTables(db) : await sqliteTables(db);
  const keyless = tables.filter((t) => t.key.length === 0).map((t) => t.name);
  // A keyset needs a key; every table of the schema has one, so a table without is not Casebook's.
  if (keyless.length > 0)
    throw new Error(`tables without a primary key cannot be copied: ${keyless.join(', ')}`);
  return tables;
}

/**
 * The tables in foreign-key order: every table after the tables it references, so each chunk's rows find the
 * rows they point at already copied. Ties stay alphabetical (the same order on every run, for resuming).
 */
export function copyOrder(unsorted: TableInfo[]): TableInfo[] {
  const tables = [...unsorted].sort((a, b) => (a.name < b.name ? -1 : 1));
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const order: TableInfo[] = [];
  while (order.length < tables.length) {
    const next = tables.find(
      (t) => !done.has(t.name) && t.references.every((r) => done.has(r) || !byName.has(r)),
    );
    if (!next) {
      const left = tables.filter((t) => !done.has(t.name)).map((t) => t.name);
      throw new Error(`foreign keys form a cycle between ${left.join(', ')}`);
    }
    done.add(next.name);
    order.push(next);
  }
  return order;
}
