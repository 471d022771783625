import { sql, type CompiledQuery, type LogEvent } from 'kysely';
import type { Db } from '../../src/db/create-db.js';

/**
 * A query log for a test app's database (`describeEachDb(..., { db: { log } })`): it keeps the statements the app
 * ran, and it can make one fail. A failing statement has run, but its caller gets the given error instead of its
 * answer (Kysely's log runs inside the statement's call), so the transaction around it rolls back as it would
 * for an error of the driver. Production code knows nothing of it.
 */
export function statementLog() {
  const seen: { sql: string; parameters: readonly unknown[]; failed: boolean }[] = [];
  let fault: ((q: CompiledQuery) => unknown) | undefined;
  const log = (event: LogEvent) => {
    seen.push({ sql: event.query.sql, parameters: event.query.parameters, failed: event.level === 'error' });
    const error = event.level === 'query' ? fault?.(event.query) : undefined;
    if (error) throw error;
  };
  return {
    log,
    /** The statements since the last clear, failed ones included. */
    statements: () => seen,
    clear: () => void seen.splice(0),
    /** From now on, `error` for every statement `when` matches (until `failWhen(undefined)`). */
    failWhen(when: ((q: CompiledQuery) => unknown) | undefined) {
      fault = when;
    },
  };
}

/** The rows an `insert into "results"` statement writes (one per tuple of values), 0 for any other statement. */
export function resultRowsOf(statement: { sql: string }): number {
  if (!/^insert into "results"/.test(statement.sql)) return 0;
  return statement.sql.split(' values ')[1].split('), (').length;
}

/**
 * Makes the database itself refuse any result whose comment is `comment` (a trigger raising an error), as a real
 * fault would: the statement fails in the database, on PostgreSQL aborting the transaction. Answers its undoing.
 */
export async function refuseResultsWithComment(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  comment: string,
): Promise<() => Promise<void>> {
  const text = sql.lit(comment);
  if (dialect === 'sqlite') {
    await sql`create trigger refuse_result before insert on results when new.comment = ${text}
      begin select raise(abort, 'refused by the test'); end`.execute(db);
    return async () => void (await sql`drop trigger refuse_result`.execute(db));
  }
  await sql`create function refuse_result() returns trigger language plpgsql as $$
      begin if new.comment = ${text} then raise exception 'refused by the test'; end if; return new; end $$`.execute(
    db,
  );
  await sql`create trigger refuse_result before insert on results for each row execute function refuse_result()`.execute(
    db,
  );
  return async () => {
    await sql`drop trigger refuse_result on results`.execute(db);
    await sql`drop function refuse_result()`.execute(db);
  };
}
