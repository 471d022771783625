import { sql } from 'kysely';
import { dialectOf } from '../dialect.js';
import type { Db } from '../create-db.js';
import { isBookkeeping } from './catalog.js';

/**
 * Id counters. Rows keep their ids, so the target's counters must start past them: PostgreSQL's sequences
 * (serial, bigserial, identity) and SQLite's sqlite_sequence (AUTOINCREMENT). A counter also moves on to where
 * the source's was when that is further (rows deleted at the end): ids are never handed out twice.
 */

interface Counter {
  table: string;
  column: string;
  /** PostgreSQL: the sequence's name. */
  sequence?: string;
}

async function counters(db: Db): Promise<Counter[]> {
  if (dialectOf(db) === 'postgres') {
    const rows = await sql<{ table_name: string; column_name: string; seq: string }>`
      select t.relname as table_name, a.attname as column_name, s.relname as seq
      from pg_class s
      join pg_depend d on d.objid = s.oid and d.deptype in ('a', 'i') and d.classid = 'pg_class'::regclass
      join pg_class t on t.oid = d.refobjid
      join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
      where s.relkind = 'S' and s.relnamespace = current_schema()::regnamespace
      order by 1`.execute(db);
    return rows.rows
      .filter((r) => !isBookkeeping(r.table_name))
      .map((r) => ({ table: r.table_name, column: r.column_name, sequence: r.seq }));
  }
  const tables = await sql<{ name: string }>`select name from sqlite_master
    where type = 'table' and upper(sql) like '%AUTOINCREMENT%' order by name`.execute(db);
  const result: Counter[] = [];
  for (const { name } of tables.rows) {
    if (isBookkeeping(name)) continue;
    const pk = await sql<{ name: string }>`select name from pragma_table_info(${name}) where pk = 1`.execute(
      db,
    );
    if (pk.rows[0]) result.push({ table: name, column: pk.rows[0].name });
  }
  return result;
}

/** Where each table's id counter of the source stands: the last id it handed out (0: none yet). */
export async function readCounters(db: Db): Promise<Map<string, number>> {
  const positions = new Map<string, number>();
  if (dialectOf(db) === 'postgres') {
    for (const c of await counters(db)) {
      const row = await sql<{ last_value: number; is_called: boolean }>`select last_value, is_called
        from ${sql.table(c.sequence!)}`.execute(db);
      const { last_value, is_called } = row.rows[0];
      positions.set(c.table, is_called ? Number(last_value) : Number(last_value) - 1);
    }
    return positions;
  }
  const exists = await sql`select 1 from sqlite_master where name = 'sqlite_sequence'`.execute(db);
  if (exists.rows.length === 0) return positions;
  const rows = await sql<{ name: string; seq: number }>`select name, seq from sqlite_sequence`.execute(db);
  for (const r of rows.rows) positions.set(r.name, Number(r.seq));
  return positions;
}

/** Sets every counter of the target past its table's largest id and the source's counter; answers them. */
export async function setCounters(
  db: Db,
  source: Map<string, number>,
): Promise<Array<{ table: string; next: number }>> {
  const set: Array<{ table: string; next: number }> = [];
  for (const c of await counters(db)) {
    const max = await sql<{ m: number | null }>`select max(${sql.ref(c.column)}) as m
      from ${sql.table(c.table)}`.execute(db);
    const last = Math.max(Number(max.rows[0].m ?? 0), source.get(c.table) ?? 0);
    if (c.sequence) {
      // setval(…, 1, false): the next id is 1, as in a sequence never used.
      await (
        last > 0
          ? sql`select setval(${c.sequence}::regclass, ${last}, true)`
          : sql`select setval(${c.sequence}::regclass, 1, false)`
      ).execute(db);
    } else {
      await sql`delete from sqlite_sequence where name = ${c.table}`.execute(db);
      if (last > 0)
        await sql`insert into sqlite_sequence (name, seq) values (${c.table}, ${last})`.execute(db);
    }
    set.push({ table: c.table, next: last + 1 });
  }
  return set;
}
