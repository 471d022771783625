import { createQueryId, type Compilable, type QueryResult, type RootOperationNode } from 'kysely';
import { namePreparedStatement, sqliteDirect, type Db } from './connection.js';
import { dialectOf, type DialectName } from './dialect.js';

/** Stands for the i-th argument while a prepared query is built and compiled. */
class Slot {
  constructor(readonly index: number) {}
}

interface Compiled {
  sql: string;
  query: RootOperationNode;
  /** The compiled parameters: constants of the query, and Slots where the arguments go. */
  parameters: readonly unknown[];
}

export interface PreparedQuery<A extends unknown[], R> {
  execute(db: Db, ...args: A): Promise<R[]>;
  executeTakeFirst(db: Db, ...args: A): Promise<R | undefined>;
  /** For writes: the number of rows inserted, updated or deleted. */
  executeCount(db: Db, ...args: A): Promise<number>;
}

/**
 * A query built with Kysely once per dialect and then run with new arguments: on the hot paths (every
 * request authenticates; every result resolves a project, a run and a case) building and compiling a query
 * costs several times what SQLite needs to run it. Together with the statement cache of the SQLite driver and
 * the named statements on PostgreSQL (create-db.ts) this is a prepared statement on both databases.
 *
 * `build` must use its arguments only as values (`where(col, '=', arg)`, `values({ col: arg })`): it runs
 * once with placeholders, so anything computed from an argument (`arg.toUpperCase()`, `if (arg)`) would be
 * computed once for all. An argument that does not reach the compiled parameters is caught at the first call.
 */
export function prepareQuery<A extends unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
): PreparedQuery<A, R> {
  const arity = build.length - 1;
  const compiled = new Map<DialectName, Compiled>();

  const compile = (db: Db): Compiled => {
    const dialect = dialectOf(db);
    let c = compiled.get(dialect);
    if (!c) {
      const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
      const q = build(db, ...(slots as unknown as A)).compile();
      for (const slot of slots) {
        if (!q.parameters.includes(slot)) {
          throw new Error(`prepareQuery: argument ${slot.index + 1} is not used as a value of the query`);
        }
      }
      c = { sql: q.sql, query: q.query, parameters: q.parameters };
      compiled.set(dialect, c);
      if (dialect === 'postgres') namePreparedStatement(c.sql);
    }
    return c;
  };

  const run = (db: Db, args: unknown[]): Promise<QueryResult<R>> => {
    const c = compile(db);
    const parameters = c.parameters.map((p) => (p instanceof Slot ? args[p.index] : p));
    // SQLite outside a transaction: straight to the connection, without Kysely's promises and connection mutex
    // (a third of a small request's work under load); in a transaction, or on PostgreSQL, through Kysely.
    const direct = sqliteDirect(db)?.(c.sql, parameters);
    if (direct) return Promise.resolve(direct as QueryResult<R>);
    return db.executeQuery<R>({ sql: c.sql, query: c.query, parameters, queryId: createQueryId() });
  };

  return {
    execute: async (db, ...args) => (await run(db, args)).rows,
    executeTakeFirst: async (db, ...args) => (await run(db, args)).rows[0],
    executeCount: async (db, ...args) => Number((await run(db, args)).numAffectedRows ?? 0),
  };
}

export interface PreparedRowsInsert<Row, R> {
  /** Runs the insert for `rows` (every row with every column of the statement). */
  execute(db: Db, rows: readonly Row[]): Promise<R[]>;
}

/** Row counts whose statement stays compiled (a group commit's sizes, a batch's, the last piece of a big one). */
const ROW_COUNTS_KEPT = 32;

/**
 * A multi-row insert (or upsert) compiled once per dialect and number of rows, then run with new rows: Kysely
 * parses every value of a multi-row insert anew (a quarter of a 500-result batch's CPU), though only the number of
 * rows changes its SQL. `build` gets rows whose values stand for the columns and uses them only as values, in
 * `columns` order; everything else about the statement (RETURNING, ON CONFLICT) must not depend on the rows.
 */
export function prepareRowsInsert<Row, R>(
  columns: readonly (keyof Row & string)[],
  build: (db: Db, rows: Row[]) => Compilable<R>,
): PreparedRowsInsert<Row, R> {
  const compiled = new Map<string, Compiled>();

  const compile = (db: Db, count: number): Compiled => {
    const key = `${dialectOf(db)}:${count}`;
    let c = compiled.get(key);
    if (c) {
      // Most recently used last: Map order is the eviction order.
      compiled.delete(key);
    } else {
      let next = 0;
      const rows = Array.from(
        { length: count },
        () => Object.fromEntries(columns.map((col) => [col, new Slot(next++)])) as Row,
      );
      const q = build(db, rows).compile();
      const slots = q.parameters.filter((p) => p instanceof Slot).length;
      if (slots !== next) throw new Error(`prepareRowsInsert: ${next - slots} values are not parameters`);
      c = { sql: q.sql, query: q.query, parameters: q.parameters };
      if (compiled.size >= ROW_COUNTS_KEPT) compiled.delete(compiled.keys().next().value!);
    }
    compiled.set(key, c);
    return c;
  };

  return {
    async execute(db, rows) {
      if (rows.length === 0) return [];
      const c = compile(db, rows.length);
      const width = columns.length;
      const parameters = c.parameters.map((p) =>
        p instanceof Slot ? rows[Math.floor(p.index / width)][columns[p.index % width]] : p,
      );
      const direct = sqliteDirect(db)?.(c.sql, parameters);
      if (direct) return (direct as QueryResult<R>).rows;
      return (await db.executeQuery<R>({ sql: c.sql, query: c.query, parameters, queryId: createQueryId() }))
        .rows;
    },
  };
}
