import type { Db } from '../../../db/create-db.js';
import { parseJson } from '../../../lib/json.js';
import { bumpStatus } from '../../../lib/statuses.js';
import { nowIso } from '../../../lib/time.js';
import * as runTcasesRepo from '../run-tcases/run-tcases.repository.js';
import * as repo from '../runs.repository.js';
import type { QueryPlan } from '../runs.schemas.js';
import { evaluatePlans } from '../run-creation.service.js';

/*
 * Propagation of test-case changes into open live runs (D17). It sits above both modules: runs select test
 * cases through the test-case service, and test cases learn of runs only through the function the application
 * context hands their writes, so neither imports the other in a circle.
 */

/**
 * D17: handed to the test-case writes (AppContext.tcasesChanged) and called inside their transaction, after test cases were created,
 * edited, moved, tagged or deleted. Open live runs re-evaluate their query plans for those cases: a case
 * that starts matching joins (or comes back with its results and latest status), one that stops matching
 * leaves (its row and results are kept). Versions, folders and positions need nothing here: open runs read
 * them from the test case (unless pinned), closed runs from their frozen columns.
 */
export async function onTcasesChanged(
  db: Db,
  tenantId: string,
  projectId: string,
  tcaseIds: string[],
): Promise<void> {
  const ids = [...new Set(tcaseIds)];
  if (ids.length === 0) return;
  const runs = await repo.listOpenLiveRuns(db, tenantId, projectId);
  if (runs.length === 0) return;
  // Many live runs share their query plans ("everything", "smoke"): each distinct set is evaluated once.
  const matchingByPlans = new Map<string, Set<string>>();
  for (const run of runs) {
    if (matchingByPlans.has(run.query_plans)) continue;
    const plans = parseJson<QueryPlan[]>(run.query_plans, []);
    matchingByPlans.set(run.query_plans, new Set(await evaluatePlans(db, tenantId, projectId, plans, ids)));
  }
  const membership = new Map<number, Map<string, number>>(runs.map((run) => [run.id, new Map()]));
  for (const row of await runTcasesRepo.listMembershipInRuns(
    db,
    tenantId,
    runs.map((run) => run.id),
    ids,
  )) {
    membership.get(row.run_id)!.set(row.tcase_id, row.in_run);
  }
  const changes = runs
    .map((run) => {
      const matching = matchingByPlans.get(run.query_plans)!;
      const rows = membership.get(run.id)!;
      return {
        runId: run.id,
        join: ids.filter((id) => matching.has(id) && !rows.has(id)),
        // A returning case keeps its row: status, pinned version and latest result are those of its last result (D18).
        back: ids.filter((id) => matching.has(id) && rows.get(id) === 0),
        leave: ids.filter((id) => !matching.has(id) && rows.get(id) === 1),
      };
    })
    .filter((c) => c.join.length + c.back.length + c.leave.length > 0);
  if (changes.length === 0) return;
  // Every changed run is locked first (in id order), then written with a few statements for all of them: one
  // round trip per step, not per run (50 open live runs on PostgreSQL).
  const open = new Set(
    await repo.lockOpenRuns(
      db,
      tenantId,
      changes.map((c) => c.runId),
    ),
  );
  const locked = changes.filter((c) => open.has(c.runId));
  if (locked.length === 0) return;
  const now = nowIso();
  // Under the run locks, the counters move by exactly the rows that changed (no recount of the whole run).
  const moves = new Map<number, repo.CounterMove>(
    locked.map((c) => [c.runId, { counts: {}, membershipChanged: true }]),
  );
  const bump = (runId: number, status: string, by: number) =>
    bumpStatus(moves.get(runId)!.counts, status, by);
  const joins = locked.flatMap((c) => c.join.map((tcaseId) => ({ runId: c.runId, tcaseId })));
  for (const [runId, count] of await runTcasesRepo.insertOpenRunTcases(db, tenantId, joins, now)) {
    bump(runId, 'open', count);
  }
  for (const c of locked) {
    for (const status of await runTcasesRepo.setInRun(db, tenantId, c.runId, c.back, 1, now)) {
      bump(c.runId, status, 1);
    }
    for (const status of await runTcasesRepo.setInRun(db, tenantId, c.runId, c.leave, 0, now)) {
      bump(c.runId, status, -1);
    }
  }
  await repo.addToRunCounters(db, tenantId, moves, now);
}
