import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { pgRowStream, type RowStream } from './connection.js';
import { createDb } from './create-db.js';
import { createPostgresDatabase, POSTGRES_URL, type TestDatabase } from '../../test/helpers/databases.js';

const collect = async (rows: RowStream) => {
  const all: Record<string, unknown>[] = [];
  for await (const row of rows) all.push(row);
  return all;
};

describe('pgRowStream: rows of a PostgreSQL query as they arrive', () => {
  it('is not offered on SQLite, whose queries run in the process', async () => {
    const sqlite = createDb('sqlite::memory:');
    expect(pgRowStream(sqlite)).toBeUndefined();
    await sqlite.destroy();
  });

  describe.skipIf(!POSTGRES_URL)('[postgres]', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      // The helper's pool holds five connections: a stream that kept one would show within a few calls.
      database = await createPostgresDatabase(POSTGRES_URL!);
    });
    afterAll(() => database.drop());

    it('yields every row in the query order', async () => {
      const rows = await collect(
        pgRowStream(database.db)!('select n from generate_series(1, $1::int) as n order by n desc', [5000]),
      );
      expect(rows).toHaveLength(5000);
      expect(rows[0]).toEqual({ n: 5000 });
      expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 5000 }, (_, i) => 5000 - i));
    });

    it('throws a failing query its error at the first read, and gives its connection back', async () => {
      for (let i = 0; i < 12; i++) {
        const rows = pgRowStream(database.db)!('select 1 / $1::int as x', [0]);
        await expect(rows.next()).rejects.toThrow(/division by zero/);
      }
      const ok = await sql<{ x: number }>`select 1 as x`.execute(database.db);
      expect(ok.rows).toEqual([{ x: 1 }]);
    });

    it('gives the connection back when nobody reads the rows', async () => {
      for (let i = 0; i < 12; i++)
        pgRowStream(database.db)!('select n from generate_series(1, 100) as n', []);
      const ok = await sql<{ x: number }>`select 2 as x`.execute(database.db);
      expect(ok.rows).toEqual([{ x: 2 }]);
      // And a stream read to its end after others were dropped still has every row.
      expect(await collect(pgRowStream(database.db)!('select 1 as x union all select 2', []))).toHaveLength(
        2,
      );
    });

    it('is not offered inside a transaction, which has its own connection', async () => {
      await database.db.transaction().execute(async (trx) => {
        expect(pgRowStream(trx)).toBeUndefined();
      });
    });
  });
});
