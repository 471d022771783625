import {
  PostgresAdapter,
  sql,
  type ColumnDefinitionBuilder,
  type Expression,
  type RawBuilder,
  type CreateTableBuilder,
  type QueryExecutorProvider,
  type SelectQueryBuilder,
} from 'kysely';
import { pgRowStream, type Db } from './connection.js';

/**
 * The few places where SQLite and PostgreSQL differ. No other file asks which database it is on.
 */
export type DialectName = 'sqlite' | 'postgres';

/**
 * A select over any tables, for the helpers that take a query and add to it (locks, a JSON body). Kysely's own
 * way to say so: its builder types are invariant in the tables, so no narrower type accepts every query.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

export function dialectOf(db: QueryExecutorProvider): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Adds an auto-incrementing integer primary key named `id`. */
export function withIdColumn<T extends string, C extends string>(
  db: QueryExecutorProvider,
  table: CreateTableBuilder<T, C>,
): CreateTableBuilder<T, C | 'id'> {
  return dialectOf(db) === 'postgres'
    ? table.addColumn('id', 'serial', (c: ColumnDefinitionBuilder) => c.primaryKey())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}

/**
 * SQLite: the table is stored in its primary-key B-tree (WITHOUT ROWID), so a lookup by the key reads the row
 * itself instead of a key index and then the table. For a text key looked up far more than scanned, with small
 * rows. PostgreSQL: nothing changes.
 */
export function storedByPrimaryKey<T extends string, C extends string>(
  db: QueryExecutorProvider,
  table: CreateTableBuilder<T, C>,
): CreateTableBuilder<T, C> {
  return dialectOf(db) === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table;
}

/**
 * `column` is one of the few ids `ids` selects (the last N runs of a report). PostgreSQL estimates `in (select …)`
 * from the table's statistics: when those runs hold a tenth of the rows it reads the whole table rather than the
 * column's index. `= any(array(select …))` it takes for a handful of values and reads through the index. SQLite
 * reads `in (select …)` through the index already (and has no arrays).
 */
export function inFewIds(
  db: QueryExecutorProvider,
  column: string,
  ids: Expression<unknown>,
): RawBuilder<boolean> {
  return dialectOf(db) === 'postgres'
    ? sql<boolean>`${sql.ref(column)} = any(array(${ids}))`
    : sql<boolean>`${sql.ref(column)} in (${ids})`;
}

/** Kysely data type for a 64-bit counter (audit ids reach billions on busy tenants). */
export function bigIdColumn(db: QueryExecutorProvider): 'bigserial' | 'integer' {
  return dialectOf(db) === 'postgres' ? 'bigserial' : 'integer';
}

interface DbErrorLike {
  code?: string;
  message?: string;
  detail?: string;
  constraint?: string;
}

/** True for a unique or primary-key violation on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as DbErrorLike;
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** True for a foreign-key violation on either database. */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as DbErrorLike;
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** The error itself, then what it wraps (`cause`, an AggregateError's `errors`: Node's connect to every address). */
function someError(err: unknown, test: (e: DbErrorLike) => boolean, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 3) return false;
  const e = err as DbErrorLike & { cause?: unknown; errors?: unknown[] };
  if (test(e)) return true;
  if (someError(e.cause, test, depth + 1)) return true;
  return Array.isArray(e.errors) && e.errors.some((inner) => someError(inner, test, depth + 1));
}

/**
 * True when a write failed for want of space: SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100), or ENOSPC /
 * EDQUOT from a file write (the file store). Such a write changed nothing: SQLite rolled its transaction back,
 * PostgreSQL aborted it, and a file is written beside the store and renamed in only when complete.
 */
export function isStorageFull(err: unknown): boolean {
  return someError(err, (e) => ['SQLITE_FULL', '53100', 'ENOSPC', 'EDQUOT'].includes(e.code ?? ''));
}

/**
 * The connection was lost while COMMIT was on its way: the server may have committed before it went, so this is
 * not "nothing was written" (a 503 tells clients to send it again, which could store it twice).
 */
export class CommitOutcomeUnknownError extends Error {
  readonly commitOutcomeUnknown = true;
  constructor(cause: unknown) {
    super(`connection lost during COMMIT: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

export const isCommitOutcomeUnknown = (err: unknown): boolean =>
  (err as { commitOutcomeUnknown?: boolean } | undefined)?.commitOutcomeUnknown === true;

const CONNECTION_ERRNOS = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'];
const CONNECTION_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery)/i;

/**
 * True when PostgreSQL could not be reached or the connection was lost: a server shutting down or restarting
 * (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now), class 08 connection exceptions, a refused
 * or reset socket, and node-postgres's own "Connection terminated". Only the database is reached during a request
 * (outbound HTTP runs in background jobs), so a socket error here is the database's.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (isCommitOutcomeUnknown(err)) return false;
  return someError(err, (e) => {
    const code = e.code ?? '';
    return (
      /^57P0[123]$/.test(code) ||
      /^08[0-9A-Z]{3}$/.test(code) ||
      CONNECTION_ERRNOS.includes(code) ||
      CONNECTION_MESSAGES.test(e.message ?? '')
    );
  });
}

/** True when the database asked us to retry (serialization failure, deadlock, or SQLite busy). */
export function isRetryableTransactionError(err: unknown): boolean {
  const e = err as DbErrorLike;
  return e?.code === '40001' || e?.code === '40P01' || e?.code === 'SQLITE_BUSY';
}

/** Case-insensitive substring match, portable: LIKE is case-sensitive on PostgreSQL. */
export function containsInsensitive(column: string, needle: string) {
  const escaped = needle.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<boolean>`lower(${sql.ref(column)}) like ${'%' + escaped + '%'} escape '\\'`;
}

/**
 * A JSON-object text column holds `key` at its top level (a JSON string key; any value). SQLite: json_type;
 * PostgreSQL: the text read as jsonb.
 */
export function jsonTextHasKey(db: QueryExecutorProvider, column: string, key: string) {
  return dialectOf(db) === 'postgres'
    ? sql<boolean>`(${sql.ref(column)}::jsonb -> ${key}) is not null`
    : sql<boolean>`json_type(${sql.ref(column)}, ${jsonPathOfKey(key)}) is not null`;
}

/** The JSON-object text of `column` without its top-level `key` (the text may be spelled differently after). */
export function jsonTextWithoutKey(db: QueryExecutorProvider, column: string, key: string) {
  return dialectOf(db) === 'postgres'
    ? sql<string>`(${sql.ref(column)}::jsonb - ${key})::text`
    : sql<string>`json_remove(${sql.ref(column)}, ${jsonPathOfKey(key)})`;
}

/** SQLite's JSON path of one top-level key, double-quoted (the keys passed are identifiers: no quote inside). */
const jsonPathOfKey = (key: string) => `$.${JSON.stringify(key)}`;

/**
 * Row locks for the rest of the transaction, taken in the query's ORDER BY order (one order for every writer,
 * so two transactions cannot deadlock). PostgreSQL: SELECT ... FOR NO KEY UPDATE, the lock an UPDATE of the
 * row's other columns takes (foreign-key checks of inserts referencing the row still pass). SQLite has no row
 * locks; its writing transactions (BEGIN IMMEDIATE) hold the database's write lock already.
 */
export function forUpdate<QB extends AnySelect>(db: QueryExecutorProvider, qb: QB): QB {
  return dialectOf(db) === 'postgres' ? (qb.forNoKeyUpdate() as QB) : qb;
}

/**
 * Shared row locks for the rest of the transaction (PostgreSQL: SELECT ... FOR SHARE): the rows cannot be
 * updated or deleted (forUpdate waits) until it ends, while other readers that share them go on. SQLite: see
 * forUpdate.
 */
export function forShare<QB extends AnySelect>(db: QueryExecutorProvider, qb: QB): QB {
  return dialectOf(db) === 'postgres' ? (qb.forShare() as QB) : qb;
}

/**
 * Serialises the transactions that pass the same `key` until they end (PostgreSQL: a transaction-level advisory
 * lock). For work a row lock cannot cover, such as "the next position among siblings" read and then written.
 * SQLite needs nothing: its writing transactions (BEGIN IMMEDIATE) already take turns.
 */
export async function lockKeyForTransaction(db: QueryExecutorProvider, key: string): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(db);
}

/**
 * A table in a FROM or JOIN, aliased; on SQLite with INDEXED BY `index`: for a covering index the planner would
 * pass over in favour of a unique index on the same leading columns (it has no statistics to know better).
 * PostgreSQL chooses by its own statistics. Cast the result to the `'table as alias'` Kysely expects.
 */
export function tableIndexedBy(db: QueryExecutorProvider, table: string, alias: string, index: string) {
  return dialectOf(db) === 'sqlite'
    ? sql`${sql.table(table)} as ${sql.id(alias)} indexed by ${sql.id(index)}`
    : sql`${sql.table(table)} as ${sql.id(alias)}`;
}

/**
 * The JSON text of an object with an integer `id` and a text `name`, or NULL when `id` is NULL: a small related
 * object (a person) of each row for selectJsonArray's `json` fields. PostgreSQL concatenates it, as selectJsonArray
 * writes its objects (json_build_object looks up how to write each type on every call).
 */
export function jsonIdNameOrNull(db: QueryExecutorProvider, id: string, name: string) {
  const i = sql.ref(id);
  const n = sql.ref(name);
  return dialectOf(db) === 'sqlite'
    ? sql<string | null>`case when ${i} is null then null else json_object('id', ${i}, 'name', ${n}) end`
    : sql<
        string | null
      >`case when ${i} is null then null else '{"id":' || ${i}::text || ',"name":' || to_json(${n}::text)::text || '}' end`;
}

/** A field of a JSON object built by the database (selectJsonArray). */
export interface JsonField {
  key: string;
  /** A column of the rows' subquery, aliased `x`. */
  column: string;
  /**
   * How the value is written. `text`: a JSON string, escaped (free text such as titles). `token`: a JSON string
   * written as it is: only for values that can hold no quote, backslash or control character (ids the service
   * generates, names from a closed set that the API checks on the way in; a row written around the API with
   * such a character would make the body invalid JSON). `integer`. `boolean`: an integer column, 1 shown as true
   * and anything else as false. `json`: a column holding the JSON text of a value the query built (jsonObjectOf),
   * written as that value; null as null.
   */
  type: 'text' | 'token' | 'integer' | 'boolean' | 'json';
  /** Left out of the object when null (else null is written as null). Never the first field. */
  optional?: boolean;
}

/**
 * A response body the database built: one Buffer (SQLite), or pieces of text to be sent one after another as
 * they come from the database (PostgreSQL), never joined into one string.
 */
export type JsonBody = Buffer | AsyncIterable<string>;

/** PostgreSQL sends a long array in rows of this many objects (see selectJsonArray). */
const PG_JSON_ITEMS_PER_ROW = 1000;

/**
 * The JSON text of an array with one object per row of `rows`, in `orderBy` order (columns of `rows`), built
 * entirely by the database: a list of 10,000 or 50,000 rows then costs no row objects, no serialisation and a
 * fraction of the memory in Node. The same JSON value as JSON.stringify of the same objects (escapes may be
 * spelled differently). The array comes wrapped in an object under the key `wrapIn` (a response body). `rows`
 * must not be ordered or limited by the caller (pass `limit`).
 *
 * SQLite: one BLOB, ordered in the subquery and aggregated in that order (its ORDER BY inside an aggregate sorts
 * through a temporary B-tree, a third slower for 10,000 rows, and SQLite keeps a subquery's order for an
 * order-sensitive aggregate such as json_group_array; runs' list tests check the order on both databases).
 *
 * PostgreSQL: the objects numbered in order and aggregated PG_JSON_ITEMS_PER_ROW to a row, so that no message
 * of the protocol holds the whole body (node-postgres grows its receive buffer by doubling until one message
 * fits, which for a 50,000-case run, 12 MB, left 30 MB of buffers behind per request), and the rows are handed
 * on as they arrive (connection.ts pgRowStream): the client receives the first thousand objects while the
 * database builds the next. A failure before the first row is thrown here, so it is answered as any error;
 * one after it can only cut the body short.
 */
export async function selectJsonArray<QB extends AnySelect>(
  db: Db,
  rows: QB,
  fields: JsonField[],
  orderBy: { column: string; desc?: boolean }[],
  options: {
    limit?: number;
    wrapIn: string;
    /**
     * PostgreSQL only: a column of `rows` holding a 64-bit hash of each row (what it was made from). Once the last
     * piece has been read, the rows' fingerprint (`<count>:<sum of hashes>`, as fingerprintText writes it) is handed
     * to `done` with the pieces of the body, or without them when they came to more than `maxBytes` characters
     * (they are kept only up to that). Not called when reading stops or fails before the end.
     */
    fingerprint?: {
      column: string;
      maxBytes: number;
      done: (fingerprint: string, pieces?: string[]) => void;
    };
  },
): Promise<JsonBody> {
  const { limit, wrapIn, fingerprint } = options;
  if (fingerprint && dialectOf(db) === 'sqlite') throw new Error('selectJsonArray: no fingerprint on SQLite');
  const sqlite = dialectOf(db) === 'sqlite';
  const col = (name: string) => sql.ref(`x.${name}`);
  let inner: AnySelect = rows;
  if (sqlite || limit !== undefined) {
    for (const o of orderBy) inner = inner.orderBy(sql.ref(o.column), o.desc ? 'desc' : 'asc');
    if (limit !== undefined) inner = inner.limit(limit);
  }
  // The whole body `{"<wrapIn>":[...]}`.
  const prefix = `{${JSON.stringify(wrapIn)}:`;
  // PostgreSQL writes the separator before every field but the first, so the first one is always there.
  if (fields.length === 0 || fields[0].optional)
    throw new Error('selectJsonArray: the first field must not be optional');
  if (sqlite) {
    const always = fields.filter((f) => !f.optional);
    const optional = fields.filter((f) => f.optional);
    if (optional.length > 1) throw new Error('selectJsonArray: at most one optional field on SQLite');
    const value = (f: JsonField) =>
      f.type === 'boolean'
        ? sql`json(case when ${col(f.column)} = 1 then 'true' else 'false' end)`
        : // json(): a JSON value read back from the subquery is text again until it is marked as JSON.
          f.type === 'json'
          ? sql`json(${col(f.column)})`
          : col(f.column);
    const object = (list: JsonField[]) =>
      sql`json_object(${sql.join(list.flatMap((f) => [sql.lit(f.key), value(f)]))})`;
    // An optional field makes two shapes of the object: with it, or without it when it is null.
    const item =
      optional.length === 0
        ? object(always)
        : sql`case when ${col(optional[0].column)} is null then ${object(always)} else ${object([...always, optional[0]])} end`;
    // A BLOB: one Buffer outside the JS heap, sent as it is, instead of a string of up to 11 MB (50,000 cases)
    // copied again to encode it for the socket.
    const json = sql<Buffer>`cast(${prefix} || coalesce(json_group_array(${item}), '[]') || '}' as blob)`;
    return (await db.selectFrom(inner.as('x')).select(json.as('json')).executeTakeFirstOrThrow()).json;
  }
  // PostgreSQL: each object is literal keys and values written by their type joined with ||, every part never
  // NULL (a NULL would void the whole object). Its JSON functions (to_json of a row, json_build_object) look up how
  // to write each value's type on every call: a third of the time of a 10,000-row list; concat() (variadic "any")
  // cost 4 % more than ||. Only free text goes through to_json, for its escaping.
  const value = (f: JsonField) => {
    const c = col(f.column);
    if (f.type === 'boolean') return sql`case when ${c} = 1 then 'true' else 'false' end`;
    const written =
      f.type === 'text'
        ? // An empty string (legacy ids mostly are) needs no call at all: a few per cent of a long list.
          sql`case when ${c} = '' then '""' else to_json(${c})::text end`
        : f.type === 'token'
          ? sql`'"' || ${c} || '"'`
          : f.type === 'json'
            ? c
            : sql`${c}::text`;
    return f.optional ? written : sql`coalesce(${written}, 'null')`;
  };
  const parts = fields.map((f, i) => {
    const key = sql.lit(`${i === 0 ? '' : ','}${JSON.stringify(f.key)}:`);
    return f.optional
      ? sql`case when ${col(f.column)} is null then '' else ${key} || ${value(f)} end`
      : sql`${key} || ${value(f)}`;
  });
  const item = sql`('{' || ${sql.join(parts, sql` || `)} || '}')`;
  const order = sql.join(
    orderBy.map((o) => (o.desc ? sql`${sql.ref(`w.${o.column}`)} desc` : sql.ref(`w.${o.column}`))),
  );
  const group = sql`(x.rn - 1) / ${sql.lit(PG_JSON_ITEMS_PER_ROW)}`;
  // Each row of the result also counts its objects and sums their hashes: the fingerprint costs no second query.
  // The sum as text: numerics are read as numbers (create-db.ts), which would round a sum of 64-bit hashes.
  const hashes = fingerprint
    ? sql`, count(*) as n, sum(${sql.ref(`x.${fingerprint.column}`)})::text as s`
    : sql``;
  const query = sql<{
    chunk: string;
    n?: number;
    s?: string;
  }>`select string_agg(${item}, ',' order by x.rn) as chunk${hashes}
    from (select w.*, row_number() over (order by ${order}) as rn from (${inner}) as w) as x
    group by ${group} order by ${group}`;
  const compiled = query.compile(db);
  const stream = pgRowStream(db)?.(compiled.sql, compiled.parameters);
  // In a transaction: the whole result at once, on the transaction's connection.
  type Piece = { chunk?: unknown; n?: unknown; s?: unknown };
  const pieces: AsyncIterator<Piece> | Iterator<Piece> = stream ?? (await query.execute(db)).rows.values();
  const first = await pieces.next();
  return (async function* () {
    // With a fingerprint, the pieces are also kept and each row's count and sum of hashes added up.
    const kept: string[] | undefined = fingerprint ? [] : undefined;
    let keptLength = 0;
    let count = 0;
    let sum = 0n;
    const emit = (text: string) => {
      if (kept && keptLength <= fingerprint!.maxBytes) {
        kept.push(text);
        keptLength += text.length;
        // Too long to keep: what was kept goes now, not at the end of the body.
        if (keptLength > fingerprint!.maxBytes) kept.length = 0;
      }
      return text;
    };
    yield emit(`${prefix}[`);
    for (let row = first, i = 0; !row.done; row = await pieces.next(), i++) {
      if (i > 0) yield emit(',');
      if (fingerprint) {
        count += Number(row.value.n);
        sum += BigInt(row.value.s as string);
      }
      yield emit(row.value.chunk as string);
    }
    yield emit(']}');
    if (fingerprint)
      fingerprint.done(fingerprintText(count, sum), keptLength <= fingerprint.maxBytes ? kept : undefined);
  })();
}

/**
 * A set of rows' fingerprint as selectJsonArray's `fingerprint` and runTcasesFingerprint write it: how many, and the sum
 * of their 64-bit hashes (PostgreSQL's sum of bigints is a numeric: no overflow).
 */
export const fingerprintText = (count: number, sum: bigint | string | null): string =>
  `${count}:${BigInt(sum ?? 0)}`;

/**
 * Whether a job claim (src/outbox/outbox.ts) holds the database's write lock while it runs: SQLite's write
 * transactions (BEGIN IMMEDIATE) do, so a claim first checks, with a read, that there is something to claim.
 */
export const claimsTakeWriteLock = (db: QueryExecutorProvider): boolean => dialectOf(db) === 'sqlite';

/**
 * The URL to LISTEN on for new jobs (outbox/pg-listen.ts), or undefined for a database that cannot notify
 * (SQLite): its runners find new jobs of other processes by polling.
 */
export const jobNotificationsUrl = (databaseUrl: string): string | undefined =>
  databaseUrl.startsWith('postgres') ? databaseUrl : undefined;

/**
 * Job claims (src/outbox/outbox.ts). PostgreSQL: SELECT ... FOR UPDATE SKIP LOCKED, so processes claiming at once
 * each take other rows instead of waiting for one another. SQLite: the claim's transaction (BEGIN IMMEDIATE)
 * holds the database's write lock, so claims take turns.
 */
export function forUpdateSkipLocked<QB extends AnySelect>(db: QueryExecutorProvider, qb: QB): QB {
  return dialectOf(db) === 'postgres' ? (qb.forUpdate().skipLocked() as QB) : qb;
}
