import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/create-db.js';
import { dialectOf } from '../src/db/dialect.js';
import { migrateDownAll, migrateToLatest } from '../src/db/migrator.js';
import { migrations } from '../src/db/migrations/index.js';
import { firstStart } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { databaseTargets } from './helpers/databases.js';

/** Tables of the first migrations, which every later schema keeps. */
const CORE_TABLES = [
  'tenants',
  'users',
  'api_keys',
  'sessions',
  'projects',
  'project_members',
  'folders',
  'audit_events',
  'tags',
  'milestones',
  'configurations',
  'tcases',
  'tcase_versions',
  'tcase_tags',
  'tcase_custom_values',
  'custom_fields',
  'statuses',
];

interface SchemaShape {
  tables: Record<string, string[]>;
  indexes: string[];
}

/** The application's tables with their columns (name:type:nullable), and index names; the migrator's own tables left out. */
async function schemaShape(db: Db): Promise<SchemaShape> {
  const tables: Record<string, string[]> = {};
  for (const table of await db.introspection.getTables()) {
    tables[table.name] = table.columns.map((c) => `${c.name}:${c.dataType}:${c.isNullable}`).sort();
  }
  // Index names: a dialect-specific catalogue query, allowed in tests.
  const rows =
    dialectOf(db) === 'postgres'
      ? await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db);
  const indexes = rows.rows
    .map((r) => r.name)
    .filter((n) => !/kysely_migration/.test(n))
    .sort();
  return { tables, indexes };
}

for (const target of databaseTargets()) {
  describe(`migrations [${target.name}]`, () => {
    let db: Db;
    let drop: () => Promise<void>;
    let firstUp: SchemaShape;

    beforeAll(async () => {
      ({ db, drop } = await target.create());
    });
    afterAll(async () => {
      await drop?.();
    });

    it('applies every migration in order on an empty database and creates the tables', async () => {
      expect(await migrateToLatest(db)).toEqual(Object.keys(migrations).map((name) => `Up ${name}`));
      firstUp = await schemaShape(db);
      expect(Object.keys(firstUp.tables)).toEqual(expect.arrayContaining(CORE_TABLES));
      expect(firstUp.tables.folders).toEqual(
        expect.arrayContaining([expect.stringMatching(/^parent_id:/), expect.stringMatching(/^pos:/)]),
      );
      expect(firstUp.indexes).toEqual(
        expect.arrayContaining(['folders_parent_pos_idx', 'api_keys_user_idx']),
      );
      expect(await migrateToLatest(db)).toEqual([]);
    });

    it('undoes every migration, newest first, leaving no application table', async () => {
      expect(await migrateDownAll(db)).toEqual(
        Object.keys(migrations)
          .reverse()
          .map((name) => `Down ${name}`),
      );
      const after = await schemaShape(db);
      expect(after).toEqual({ tables: {}, indexes: [] });
    });

    it('migrates up again to the very same schema, which then works', async () => {
      await migrateToLatest(db);
      expect(await schemaShape(db)).toEqual(firstUp);
      const config = loadConfig({
        CASEBOOK_LOG_LEVEL: 'silent',
        CASEBOOK_DATA_DIR: '/tmp/casebook-migrations',
      });
      const first = await firstStart(db, config);
      expect(first?.apiKey).toMatch(/^default\./);
    });
  });
}
