import { Migrator, type MigrationResultSet } from 'kysely';
import type { Db } from './create-db.js';
import { migrations } from './migrations/index.js';

function migrator(db: Db): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

function unwrap(result: MigrationResultSet): string[] {
  if (result.error) throw result.error;
  return (result.results ?? []).map((r) => `${r.direction} ${r.migrationName}`);
}

/** Brings the schema to the newest version; safe to run on every start and from several processes. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  return unwrap(await migrator(db).migrateToLatest());
}

/** Undoes every migration (used by the up/down/up test). */
export async function migrateDownAll(db: Db): Promise<string[]> {
  const { NO_MIGRATIONS } = await import('kysely');
  return unwrap(await migrator(db).migrateTo(NO_MIGRATIONS));
}
