import type { Db } from '../../../db/create-db.js';

/**
 * A test case's latest result in every run that has one, newest first. One query across run_tcases, results,
 * runs and users on purpose (the exception of docs/architecture.md: a read that must be a single query): the
 * run test case's latest_result_id names the result, found by the run_tcases_tcase_idx index.
 */
export const listLatestResultsOfTcase = (
  db: Db,
  tenantId: string,
  tcaseId: string,
  offset: number,
  limit: number,
) =>
  db
    .selectFrom('run_tcases as rt')
    .innerJoin('results as r', 'r.id', 'rt.latest_result_id')
    .innerJoin('runs as ru', 'ru.id', 'rt.run_id')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'r.author_id').on('u.tenant_id', '=', tenantId))
    .select([
      'r.id',
      'r.status',
      'r.comment',
      'r.author_id',
      'r.created_at',
      'r.tcase_version',
      'r.time_taken',
      'rt.in_run',
      'ru.id as run_id',
      'ru.title as run_title',
      'ru.type as run_type',
      'ru.closed_at as run_closed_at',
      'u.name as author_name',
      'u.email as author_email',
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.tcase_id', '=', tcaseId)
    // Newest first by time (a backdated result, extensions.md §7a, sits where its time puts it), then id.
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();

/** How many runs hold a result of the test case. */
export const countRunsWithResultsOfTcase = async (
  db: Db,
  tenantId: string,
  tcaseId: string,
): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('run_tcases')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('tcase_id', '=', tcaseId)
        .where('latest_result_id', 'is not', null)
        .executeTakeFirstOrThrow()
    ).n,
  );
