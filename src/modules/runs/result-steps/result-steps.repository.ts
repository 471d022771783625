import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { ResultStepsTable } from '../../../db/tables/execution.js';
import { chunks, rowsPerStatement } from '../../../lib/chunks.js';

/* The `result_steps` table (extensions.md §8): written beside its results, read by result id. */

export async function insertResultSteps(db: Db, rows: Insertable<ResultStepsTable>[]): Promise<void> {
  for (const part of chunks(rows, rowsPerStatement(7)))
    await db.insertInto('result_steps').values(part).execute();
}

/** The steps of the given results, by result then position. */
export const listResultSteps = (db: Db, tenantId: string, resultIds: number[]) =>
  resultIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('result_steps')
        .select(['result_id', 'position', 'step_id', 'status', 'comment'])
        .where('tenant_id', '=', tenantId)
        .where('result_id', 'in', resultIds)
        .orderBy('result_id')
        .orderBy('position')
        .execute();

export type ResultStepRow = Awaited<ReturnType<typeof listResultSteps>>[number];
