import pg from 'pg';
import type { Kysely, QueryExecutorProvider, QueryResult } from 'kysely';
import type { Database } from './schema.js';

/*
 * What create-db.ts knows about an open database that the query helpers (prepared.ts, dialect.ts) use: the
 * statement names of prepared queries, the direct SQLite runner and the PostgreSQL pool. It sits below all
 * three so that none of them imports another in a circle.
 */

export type Db = Kysely<Database>;

/**
 * SQL texts of prepared queries compiled for PostgreSQL, with the statement name create-db.ts gives them: the
 * server parses and plans each once per connection (a named statement) instead of on every call.
 */
const pgStatementNames = new Map<string, string>();

/** Gives a SQL text compiled by prepareQuery for PostgreSQL its statement name (once). */
export function namePreparedStatement(sqlText: string): void {
  if (!pgStatementNames.has(sqlText)) pgStatementNames.set(sqlText, `casebook_${pgStatementNames.size + 1}`);
}

/** The name under which PostgreSQL keeps this statement prepared, when it is one of prepareQuery's. */
export const preparedStatementName = (sqlText: string): string | undefined => pgStatementNames.get(sqlText);

/** A statement run on SQLite outside Kysely: what the driver would answer for it. */
export type DirectSqlite = (
  sqlText: string,
  parameters: readonly unknown[],
) => QueryResult<unknown> | undefined;

const directSqlite = new WeakMap<Db, DirectSqlite>();

/** create-db.ts: this SQLite database's connection can run a statement at once. */
export const attachSqliteDirect = (db: Db, runner: DirectSqlite): void => {
  directSqlite.set(db, runner);
};

/**
 * A way to run one statement on this database's SQLite connection at once, or undefined (PostgreSQL). It answers
 * undefined while a transaction is open on the connection, so the caller goes through Kysely and waits its turn:
 * the statement then never runs inside another request's transaction. See prepareQuery (db/prepared.ts).
 */
export const sqliteDirect = (db: Db): DirectSqlite | undefined => directSqlite.get(db);

const pgPools = new WeakMap<Db, pg.Pool>();

/** create-db.ts: the pool behind this PostgreSQL database, for pgRowStream. */
export const attachPgPool = (db: Db, pool: pg.Pool): void => {
  pgPools.set(db, pool);
};

/** The pool behind a PostgreSQL database (its use is a metric), undefined on SQLite. */
export const pgPoolOf = (db: Db): pg.Pool | undefined => pgPools.get(db);

/** A query's rows as they arrive (pgRowStream). */
export type RowStream = AsyncIterableIterator<Record<string, unknown>>;

/**
 * A way to run a query on PostgreSQL and take its rows as they arrive, not all at the end: a response can send
 * the first part of a long list while the database still builds the rest. Undefined on SQLite and for a
 * transaction (a query there runs on the transaction's connection, through Kysely).
 *
 * The connection goes back to the pool when the query ends, whether or not anyone reads the rows: a reader that
 * stops early (the client went away) holds nothing. Rows not yet read wait in memory, as a whole result would.
 */
export function pgRowStream(
  db: Db,
): ((sqlText: string, parameters: readonly unknown[]) => RowStream) | undefined {
  const pool = pgPools.get(db);
  if (!pool) return undefined;
  return (sqlText, parameters) => {
    const queue: Record<string, unknown>[] = [];
    let done = false;
    let failure: unknown;
    let wake: (() => void) | undefined;
    const settle = (err?: unknown) => {
      if (done) return;
      done = true;
      failure = err;
      wake?.();
    };
    pool.connect().then(
      (client) => {
        const query = new pg.Query({ text: sqlText, values: parameters as unknown[] });
        query.on('row', (row: Record<string, unknown>) => {
          queue.push(row);
          wake?.();
        });
        // A query ends with 'end' or with 'error' (a server error, a lost connection), and with both when its
        // parameters cannot be sent: release once, at the first. The pool drops a connection that is lost.
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          client.release();
        };
        query.on('error', (err: Error) => {
          release();
          settle(err);
        });
        query.on('end', () => {
          release();
          settle();
        });
        try {
          client.query(query);
        } catch (err) {
          release();
          settle(err);
        }
      },
      (err) => settle(err),
    );
    return (async function* () {
      for (;;) {
        if (queue.length > 0) yield queue.shift()!;
        else if (done) {
          if (failure !== undefined) throw failure;
          return;
        } else {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      }
    })();
  };
}

/**
 * What a database handle shares with every transaction opened on it (Kysely's adapter, one per handle), so state
 * kept for a database (the job wakers of its app, outbox/wakers.ts) is found from a transaction too.
 */
export const handleKey = (db: QueryExecutorProvider): object => db.getExecutor().adapter;
