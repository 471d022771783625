import { sql } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import { recentRuns } from '../reports.repository.js';

/*
 * The folders report's read: run cases of the project's last N runs per folder and status. A deliberate
 * cross-module read like every report's (reports.repository.ts): `runs`, `run_tcases` and `tcases` in one
 * statement, bounded by the last N runs.
 */

/** Cases of the last `last` runs per folder (the frozen one once a run is closed, D17) and latest status. */
export const countRecentCasesByFolder = (db: Db, tenantId: string, projectId: string, last: number) =>
  db
    .with('recent', () => recentRuns(db, tenantId, projectId, last))
    .selectFrom('recent')
    .innerJoin('run_tcases as rt', 'rt.run_id', 'recent.id')
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .select((eb) => [
      eb.fn.coalesce('rt.frozen_folder_id', 't.folder_id').as('folder_id'),
      'rt.status',
      eb.fn.countAll<number | string>().as('n'),
    ])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.in_run', '=', 1)
    .groupBy([sql`1`, 'rt.status'])
    .execute();
