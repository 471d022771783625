import { Migrator, sql, type MigrationResultSet } from 'kysely';
import type { Db } from './create-db.js';
import { readSetting, writeSetting } from './instance-settings.js';
import { migrations } from './migrations/index.js';

function migrator(db: Db): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

function unwrap(result: MigrationResultSet): string[] {
  if (result.error) throw result.error;
  return (result.results ?? []).map((r) => `${r.direction} ${r.migrationName}`);
}

/** The newest migration that is not additive: code that knows it runs on the schema of any later additive one. */
export const COMPATIBLE_FROM = Object.keys(migrations)
  .sort()
  .filter((name) => migrations[name].additive !== true)
  .at(-1)!;

/** The instance setting where the database tells older code which version it still serves (see below). */
const COMPATIBLE_FROM_SETTING = 'schema_compatible_from';

/**
 * Brings the schema to the newest version; safe to run on every start and from several processes. It then
 * records the oldest code the schema still serves, so instances of the version before stay ready while the new
 * version's migrations only add.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const applied = unwrap(await migrator(db).migrateToLatest());
  const now = new Date().toISOString();
  await writeSetting(db, COMPATIBLE_FROM_SETTING, COMPATIBLE_FROM, now);
  return applied;
}

/**
 * Whether this code runs on a database whose migrations are ahead of it: true when every migration it lacks is
 * additive, as recorded by the version that applied them. Unrecorded means unknown: not compatible.
 */
export async function runsOnNewerSchema(db: Db): Promise<boolean> {
  const from = await readSetting(db, COMPATIBLE_FROM_SETTING);
  return from !== undefined && from <= LATEST_MIGRATION;
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
