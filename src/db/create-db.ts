import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  PostgresDriver,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type LogConfig,
  type PostgresDialectConfig,
  type SqliteDialectConfig,
} from 'kysely';
import {
  attachPgPool,
  attachSqliteDirect,
  preparedStatementName,
  type Db,
  type DirectSqlite,
} from './connection.js';
import type { Database } from './schema.js';
import { CommitOutcomeUnknownError, isDatabaseUnavailable } from './dialect.js';

export type { Db } from './connection.js';

// COUNT(*) and bigserial ids come back as strings by default; our ids and counts fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * SQLite transactions start with BEGIN IMMEDIATE: a transaction that reads and then writes takes the write lock
 * up front and waits (busy_timeout) for other processes, instead of failing with SQLITE_BUSY when it upgrades.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    settings: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
  ) {
    super(settings);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL: the disk is full). Kysely rolls back
   * after any failure, and the ROLLBACK's own error ("cannot rollback - no transaction is active") would replace
   * the one that says what happened.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.inTransaction()) await super.rollbackTransaction(connection);
  }
}

/**
 * A connection lost while COMMIT was under way leaves the outcome unknown (the server may have committed): it
 * is told apart from a connection lost earlier, after which nothing was written (error-handler.ts answers 503
 * for that one, and clients send the request again).
 */
class CommitAwarePostgresDriver extends PostgresDriver {
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } catch (err) {
      throw isDatabaseUnavailable(err) ? new CommitOutcomeUnknownError(err) : err;
    }
  }
}

class CommitAwarePostgresDialect extends PostgresDialect {
  constructor(private readonly settings: PostgresDialectConfig) {
    super(settings);
  }
  override createDriver() {
    return new CommitAwarePostgresDriver(this.settings);
  }
}

/**
 * Kysely runs SQLite migrations outside a transaction and without a lock (it assumes one process). SQLite's DDL
 * is transactional, so running them in one (BEGIN IMMEDIATE) makes several processes starting at once on one
 * file take turns: the second sees the first's migrations as done instead of creating the tables again.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
  ) {
    super(settings);
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.settings, this.inTransaction);
  }
  override createAdapter() {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** Prepared statements kept per connection; Kysely's SQL text repeats, so a few hundred cover every hot query. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every statement anew (parsing and planning the SQL: about a third of a small
 * query's time). The driver uses one connection behind a mutex and reads each statement to completion before the
 * next, so a statement can be reused by its SQL text; the least recently used ones are finalised by the GC.
 */
function withStatementCache(database: SQLite.Database): {
  close: () => void;
  prepare: (sqlText: string) => SQLite.Statement;
} {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare: (sqlText: string) => {
      let stmt = cache.get(sqlText);
      if (stmt) {
        // Move to the end: Map iteration order is the eviction order.
        cache.delete(sqlText);
      } else {
        stmt = database.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sqlText, stmt);
      return stmt;
    },
  };
}

function directRunner(
  database: SQLite.Database,
  prepare: (sqlText: string) => SQLite.Statement,
): DirectSqlite {
  return (sqlText, parameters) => {
    if (database.inTransaction) return undefined;
    const stmt = prepare(sqlText);
    if (stmt.reader) return { rows: stmt.all(parameters as unknown[]) };
    const { changes, lastInsertRowid } = stmt.run(parameters as unknown[]);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  };
}

/**
 * Runs the statements of prepareQuery (db/prepared.ts) as named statements on this connection: PostgreSQL
 * parses and plans them once per connection instead of on every call (node-postgres prepares a name the first
 * time it is used on a client). Everything else goes through unchanged.
 */
function usePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof text === 'string' && callback === undefined ? preparedStatementName(text) : undefined;
    if (name !== undefined && (values === undefined || Array.isArray(values))) {
      return query({ name, text, values });
    }
    return callback === undefined ? query(text, values) : query(text, values, callback);
  };
}

export interface CreateDbOptions {
  /** PostgreSQL pool size per process. */
  poolSize?: number;
  /** Kysely's query log (bench/trace.ts times every statement with it). */
  log?: LogConfig;
}

/** Opens the database named by a `sqlite:` or `postgres://` URL. */
export function createDb(url: string, options: CreateDbOptions = {}): Db {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const database = new SQLite(file);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 10000');
    // WAL with synchronous=NORMAL survives a process crash (SIGKILL); only an OS crash may lose the last commit.
    database.pragma('synchronous = NORMAL');
    // Hot pages and sorts stay in memory: 32 MiB of page cache (the default 2 MiB holds less than one
    // 10,000-case run list, which then reads its pages from the OS on every request) and temporary B-trees in RAM.
    // No memory map: it measured no faster here and counts every page it touched in the server's RSS.
    database.pragma('cache_size = -32768');
    database.pragma('temp_store = MEMORY');
    // Checkpoint every 4,000 pages (16 MiB of WAL) instead of 1,000: a batch of results rewrites the same index
    // pages as the batches before it, which a checkpoint then copies once instead of four times (+12 % results/s).
    database.pragma('wal_autocheckpoint = 4000');
    const cached = withStatementCache(database);
    const db = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect({ database: cached }, () => database.inTransaction),
      log: options.log,
    });
    // With a query log (bench/trace.ts, tests) every statement goes through Kysely, so the log sees it.
    if (!options.log) attachSqliteDirect(db, directRunner(database, cached.prepare));
    return db;
  }
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  pool.on('connect', (client) => {
    usePreparedStatements(client);
    // A connection lost while checked out: the query running on it fails with the error, but pg also emits it
    // on the client, where the pool listens only while the client is idle; unheard, it would end the process.
    client.on('error', () => {});
  });
  // An idle connection that the server closes (restart, failover, pg_terminate_backend) is dropped from the
  // pool and replaced on the next query; without this listener pg's 'error' event would crash the process.
  pool.on('error', (err) => process.emitWarning(`PostgreSQL connection lost: ${err.message}`));
  const db = new Kysely<Database>({ dialect: new CommitAwarePostgresDialect({ pool }), log: options.log });
  // With a query log (bench/trace.ts, tests) every statement goes through Kysely, so the log sees it.
  if (!options.log) attachPgPool(db, pool);
  return db;
}

/** Redacts the password of a database URL for logs and messages. */
export function describeDatabaseUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:****@');
}
