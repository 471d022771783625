import type { Db } from '../../db/create-db.js';
import { inFewIds } from '../../db/dialect.js';

/*
 * The flaky score's reads (a deliberate cross-module read, as reports.repository.ts): run cases of a window of
 * runs, through the run index, and the names of configurations.
 */

/** Titles of these configurations of the project (a deleted one is absent). */
export const listConfigurationTitles = (db: Db, tenantId: string, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('configurations')
        .select(['id', 'title'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids)
        .execute();

/**
 * The last `last` runs of the project with this configuration (none: runs without one) up to `run` itself —
 * created no later than it, by `createdAt` then id, as the reports order runs — newest first.
 */
export const runsUpTo = (
  db: Db,
  tenantId: string,
  projectId: string,
  run: { id: number; created_at: string; configuration_id: string | null },
  last: number,
) =>
  db
    .selectFrom('runs')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where((eb) =>
      run.configuration_id === null
        ? eb('configuration_id', 'is', null)
        : eb('configuration_id', '=', run.configuration_id),
    )
    .where((eb) =>
      eb.or([
        eb('created_at', '<', run.created_at),
        eb.and([eb('created_at', '=', run.created_at), eb('id', '<=', run.id)]),
      ]),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(last);

/** The status of every in-run case of these runs, with its run's time (the score's sequences). */
export const listStatusesOfRuns = (db: Db, tenantId: string, runs: ReturnType<typeof runsUpTo>) =>
  db
    .selectFrom('run_tcases as rt')
    .innerJoin('runs as ru', 'ru.id', 'rt.run_id')
    .select(['rt.tcase_id', 'rt.run_id', 'rt.status', 'ru.created_at as run_created_at'])
    .where('rt.tenant_id', '=', tenantId)
    .where('rt.in_run', '=', 1)
    .where(inFewIds(db, 'rt.run_id', runs))
    .execute();
