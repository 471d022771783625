import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb } from '../src/db/create-db.js';
import { CommitOutcomeUnknownError } from '../src/db/dialect.js';
import { createProject } from './helpers/factories.js';
import { createRun } from './helpers/run-factories.js';
import { createTcase } from './helpers/tcase-factories.js';
import { describeEachDb } from './helpers/test-app.js';
import { resultRowsOf, statementLog } from './helpers/statement-log.js';

/**
 * The errors a database or disk raises, as the error handler answers them (D7): what each dialect's driver
 * throws is raised by the statement that inserts a result, in its transaction (a test-only query log,
 * statement-log.ts), so the request goes the whole way a real failure would. The real thing is in
 * full-disk.test.ts and database-outage.test.ts.
 */
const statements = statementLog();

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describeEachDb(
  'errors of the storage and the database answer in words',
  (t) => {
    let url: string;
    const stored = async () =>
      Number(
        (
          await t.db
            .selectFrom('results')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    async function post(error: unknown) {
      if (!url) {
        const project = await createProject(t);
        const tcase = await createTcase(t, project);
        const run = await createRun(t, project, { tcaseIds: [tcase.id] });
        url = `/project/${project.code}/run/${run.id}/tcase/${tcase.id}/result`;
      }
      const before = await stored();
      statements.failWhen((q) => (resultRowsOf(q) > 0 ? error : undefined));
      try {
        const res = await t.post(url, { status: 'passed' });
        expect(await stored()).toBe(before);
        return res;
      } finally {
        statements.failWhen(undefined);
      }
    }

    it.each([
      ['SQLite', withCode('database or disk is full', 'SQLITE_FULL')],
      ['PostgreSQL', withCode('could not extend file "base/16384/2619": No space left on device', '53100')],
      ['the file system', withCode('ENOSPC: no space left on device, write', 'ENOSPC')],
    ])('answers 507 STORAGE_FULL when %s says the disk is full, storing nothing', async (_, error) => {
      const res = await post(error);
      expect(res.status).toBe(507);
      expect(res.body).toEqual({
        code: 'STORAGE_FULL',
        message:
          "The service's storage is full: nothing of this request was stored. Try again once an administrator has freed space.",
      });
    });

    it.each([
      [
        'a server shut down (57P01)',
        withCode('terminating connection due to administrator command', '57P01'),
      ],
      ['a server starting up (57P03)', withCode('the database system is starting up', '57P03')],
      ['a lost connection', new Error('Connection terminated unexpectedly')],
      [
        'a refused connection',
        new AggregateError([withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')]),
      ],
    ])('answers 503 DATABASE_UNAVAILABLE with Retry-After for %s', async (_, error) => {
      const res = await post(error);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toEqual({
        code: 'DATABASE_UNAVAILABLE',
        message: expect.stringMatching(
          /^The database is unavailable .*nothing of this request was stored\. Retry/,
        ),
      });
    });

    it('answers a 500 that says the outcome is unknown, not a 503, for a connection lost during COMMIT', async () => {
      const res = await post(new CommitOutcomeUnknownError(withCode('terminating connection', '57P01')));
      expect(res.status).toBe(500);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.body).toEqual({
        code: 'INTERNAL',
        message: expect.stringMatching(/may or may not have been stored/),
        requestId: expect.any(String),
      });
    });

    it('still answers any other failure with the generic 500', async () => {
      const res = await post(new Error('something internal'));
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        code: 'INTERNAL',
        message: 'Internal server error',
        requestId: expect.any(String),
      });
    });
  },
  { db: { log: statements.log } },
);

describe('a transaction that SQLite rolled back by itself', () => {
  it('fails with the error that made it roll back, not with the ROLLBACK that follows', async () => {
    const db = createDb('sqlite::memory:');
    try {
      const failure = db.transaction().execute(async (trx) => {
        await sql`create table t (a integer)`.execute(trx);
        // What SQLITE_FULL does: the transaction is gone when the error reaches the caller.
        await sql`rollback`.execute(trx);
        throw withCode('database or disk is full', 'SQLITE_FULL');
      });
      await expect(failure).rejects.toMatchObject({
        code: 'SQLITE_FULL',
        message: 'database or disk is full',
      });
      // The connection is usable afterwards.
      expect((await sql<{ n: number }>`select 1 as n`.execute(db)).rows).toEqual([{ n: 1 }]);
    } finally {
      await db.destroy();
    }
  });
});
