import type { Db } from '../../../db/create-db.js';

/** The run's counters and state, for the changes poll (never its long query_plans). */
export const findRunCounters = (db: Db, tenantId: string, projectId: string, runId: number) =>
  db
    .selectFrom('runs')
    .select([
      'id',
      'closed_at',
      'membership_version',
      'cnt_open',
      'cnt_passed',
      'cnt_failed',
      'cnt_blocked',
      'cnt_skipped',
      'cnt_custom1',
      'cnt_custom2',
      'cnt_custom3',
      'cnt_custom4',
    ])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', runId)
    .executeTakeFirst();

/** The newest latest-result id among the run's test cases (0 with none): the cursor of "now". */
export const maxLatestResultId = async (db: Db, tenantId: string, runId: number): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('run_tcases')
        .select((eb) => eb.fn.max('latest_result_id').as('m'))
        .where('tenant_id', '=', tenantId)
        .where('run_id', '=', runId)
        .executeTakeFirst()
    )?.m ?? 0,
  );

/**
 * The run test cases whose latest result is in (after, upTo], oldest change first, at most `limit`. One query
 * over run_tcases, results and tcases on purpose (the exception of docs/architecture.md: a read polled every few
 * seconds by every open run page must be a single query). It reads the run's run_tcases rows by their primary key
 * prefix: O(cases in the run), a few ms for 10,000.
 */
export const listChangedRunTcases = (
  db: Db,
  tenantId: string,
  runId: number,
  after: number,
  upTo: number,
  limit: number,
) =>
  db
    .selectFrom('run_tcases as rt')
    .innerJoin('results as r', 'r.id', 'rt.latest_result_id')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .select([
      'rt.tcase_id',
      't.seq',
      'rt.status',
      'rt.in_run',
      'rt.is_automated',
      'r.id as result_id',
      'r.status as result_status',
      'r.author_id',
      'r.created_at',
      'r.time_taken',
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.run_id', '=', runId)
    .where('rt.latest_result_id', '>', after)
    .where('rt.latest_result_id', '<=', upTo)
    .orderBy('rt.latest_result_id')
    .limit(limit)
    .execute();
