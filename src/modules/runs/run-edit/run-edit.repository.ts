import type { Updateable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { RunsTable } from '../../../db/tables/execution.js';

/** Changes the details of an open run (no counters, no cases); false when the run is closed (or gone). */
export async function updateOpenRunDetails(
  db: Db,
  tenantId: string,
  runId: number,
  values: Pick<
    Updateable<RunsTable>,
    'title' | 'description' | 'assignment_id' | 'milestone_id' | 'due_at' | 'updated_at'
  >,
): Promise<boolean> {
  const res = await db
    .updateTable('runs')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', runId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
