import { Migrator } from 'kysely';
import { migrations } from './migrations/index.js';
function migrator(db) {
    return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}
function unwrap(result) {
    if (result.error)
        throw result.error;
    return (result.results ?? []).map((r) => `${r.direction} ${r.migrationName}`);
}
/** Brings the schema to the newest version; safe to run on every start and from several processes. */
export async function migrateToLatest(db) {
    return unwrap(await migrator(db).migrateToLatest());
}
/** Undoes every migration (used by the up/down/up test). */
export async function migrateDownAll(db) {
    const { NO_MIGRATIONS } = await import('kysely');
    return unwrap(await migrator(db).migrateTo(NO_MIGRATIONS));
}
//# sourceMappingURL=migrator.js.map