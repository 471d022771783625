import type { Db } from '../../../db/create-db.js';
import { chunks } from '../../../lib/chunks.js';

/*
 * Assignees of run test cases (run_tcases.assignee_id, migration 0028). Writes happen under the run's lock
 * (runs.repository.ts lockRunForWrite). Reads users and project_members for the people who may be assigned:
 * one query, as the run list joins users.
 */

/** Which of these cases are in the run now. */
export const listInRun = async (db: Db, tenantId: string, runId: number, tcaseIds: string[]) => {
  const found = new Set<string>();
  for (const part of chunks(tcaseIds, 500)) {
    const rows = await db
      .selectFrom('run_tcases')
      .select('tcase_id')
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('in_run', '=', 1)
      .where('tcase_id', 'in', part)
      .execute();
    for (const r of rows) found.add(r.tcase_id);
  }
  return found;
};

/** Sets the assignee of cases in the run; answers how many rows had another one (or none) before. */
export const setAssignee = async (
  db: Db,
  tenantId: string,
  runId: number,
  tcaseIds: string[],
  assigneeId: number | null,
): Promise<number> => {
  let changed = 0;
  for (const part of chunks(tcaseIds, 500)) {
    const rows = await db
      .updateTable('run_tcases')
      .set({ assignee_id: assigneeId })
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('in_run', '=', 1)
      .where('tcase_id', 'in', part)
      .where((eb) =>
        assigneeId === null
          ? eb('assignee_id', 'is not', null)
          : eb.or([eb('assignee_id', 'is', null), eb('assignee_id', '!=', assigneeId)]),
      )
      .returning('tcase_id')
      .execute();
    changed += rows.length;
  }
  return changed;
};

/** Sets the due date of assignments in the run (null: none); answers how many rows had another one before. */
export const setDueAt = async (
  db: Db,
  tenantId: string,
  runId: number,
  tcaseIds: string[],
  dueAt: string | null,
): Promise<number> => {
  let changed = 0;
  for (const part of chunks(tcaseIds, 500)) {
    const rows = await db
      .updateTable('run_tcases')
      .set({ due_at: dueAt })
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .where('in_run', '=', 1)
      .where('tcase_id', 'in', part)
      .where((eb) =>
        dueAt === null
          ? eb('due_at', 'is not', null)
          : eb.or([eb('due_at', 'is', null), eb('due_at', '!=', dueAt)]),
      )
      .returning('tcase_id')
      .execute();
    changed += rows.length;
  }
  return changed;
};

/** Active users above viewer who see the project: its members, and admins and owners (D3), by name. */
export const listAssignable = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('users as u')
    .select(['u.id', 'u.name', 'u.email', 'u.role'])
    .where('u.tenant_id', '=', tenantId)
    .where('u.deactivated_at', 'is', null)
    .where('u.role', '!=', 'viewer')
    .where((eb) =>
      eb.or([
        eb('u.role', 'in', ['admin', 'owner']),
        eb.exists(
          eb
            .selectFrom('project_members as m')
            .select('m.user_id')
            .where('m.project_id', '=', projectId)
            .whereRef('m.user_id', '=', 'u.id'),
        ),
      ]),
    )
    .orderBy('u.name')
    .orderBy('u.id')
    .execute();

/** One user who may be assigned in the project, with the reason when not (undefined: no such user). */
export const findCandidate = (db: Db, tenantId: string, projectId: string, userId: number) =>
  db
    .selectFrom('users as u')
    .select((eb) => [
      'u.id',
      'u.name',
      'u.role',
      'u.deactivated_at',
      eb
        .exists(
          eb
            .selectFrom('project_members as m')
            .select('m.user_id')
            .where('m.project_id', '=', projectId)
            .whereRef('m.user_id', '=', 'u.id'),
        )
        .as('is_member'),
      // For the refusal's words only: the project's code, as the caller knows it.
      eb.selectFrom('projects as p').select('p.code').where('p.id', '=', projectId).as('project_code'),
    ])
    .where('u.tenant_id', '=', tenantId)
    .where('u.id', '=', userId)
    .executeTakeFirst();
