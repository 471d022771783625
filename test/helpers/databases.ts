import pg from 'pg';
import { createDb, type CreateDbOptions, type Db } from '../../src/db/create-db.js';
import { newId } from '../../src/lib/ids.js';

export interface TestDatabase {
  db: Db;
  url: string;
  drop: () => Promise<void>;
}

export interface DatabaseTarget {
  name: 'sqlite' | 'postgres';
  create: (options?: CreateDbOptions) => Promise<TestDatabase>;
}

export const POSTGRES_URL = process.env.CASEBOOK_TEST_POSTGRES_URL;

/** A fresh, empty database per test file: SQLite in memory, and PostgreSQL when CASEBOOK_TEST_POSTGRES_URL is set. */
export function databaseTargets(): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [
    {
      name: 'sqlite',
      create: async (options) => {
        const url = 'sqlite::memory:';
        const db = createDb(url, options);
        return { db, url, drop: () => db.destroy() };
      },
    },
  ];
  if (POSTGRES_URL)
    targets.push({ name: 'postgres', create: (options) => createPostgresDatabase(POSTGRES_URL, options) });
  return targets;
}

export async function createPostgresDatabase(
  adminUrl: string,
  options: CreateDbOptions = {},
): Promise<TestDatabase> {
  const name = `cbtest_${newId(10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { poolSize: 5, ...options });
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.destroy();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        // A pool's destroy() resolves before its sockets have closed; FORCE would kill them mid-close and
        // their 'terminating connection' errors would surface in whichever test runs next. Wait for them.
        for (let i = 0; i < 50; i++) {
          const { rows } = await c.query(
            'select count(*)::int as n from pg_stat_activity where datname = $1',
            [name],
          );
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
