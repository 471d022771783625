import { Migrator, sql, type MigrationResultSet } from 'kysely';
import type { Db } from './create-db.js';
import { migrations } from './migrations/index.js';

function migrator(db: Db): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

function unwrap(result: MigrationResultSet): string[] {
  if (result.error) throw result.error;
  return (result.results ?? []).map((r) => `${r.direction} ${r.migrationName}`);
}

/** A migration that only adds (tables, nullable or defaulted columns, indexes) says so in its name. */
export const ADDITIVE_SUFFIX = '_additive';

/** Brings the schema to the newest version; safe to run on every start and from several processes. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  return unwrap(await migrator(db).migrateToLatest());
}

/**
 * Whether this code runs on a database whose migrations are ahead of it: true when every applied migration it does
 * not know is additive, which the migration's name says (`…_additive`), so no newer version need record anything
 * (a row it wrote would travel with `casebook copy` and meet the target's own).
 */
export async function runsOnNewerSchema(db: Db): Promise<boolean> {
  const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const unknown = rows.rows.map((r) => r.name).filter((name) => !(name in migrations));
  return unknown.length > 0 && unknown.every((name) => name.endsWith(ADDITIVE_SUFFIX));
}

/** Undoes every migration (used by the up/down/up test). */
export async function migrateDownAll(db: Db): Promise<string[]> {
  const { NO_MIGRATIONS } = await import('kysely');
  return unwrap(await migrator(db).migrateTo(NO_MIGRATIONS));
}

/** The newest migration this code ships. */
export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1)!;

/**
 * The newest migration the database has applied (undefined on an empty one), in one indexed read of Kysely's
 * own table: `/readyz` asks it on every probe.
 */
export async function latestAppliedMigration(db: Db): Promise<string | undefined> {
  try {
    const row = await sql<{ name: string }>`select max(name) as name from kysely_migration`.execute(db);
    return row.rows[0]?.name ?? undefined;
  } catch (err) {
    // No migration table yet: nothing applied. Anything else (the database is down) is the caller's to answer.
    if (/kysely_migration/.test(String((err as Error).message))) return undefined;
    throw err;
  }
}
