import type { Db } from '../../../db/create-db.js';
import type { Actor } from '../../../auth/actor.js';
import { atLeast } from '../../../auth/roles.js';
import { badRequest } from '../../../errors.js';
import { isCalendarDate, todayUtc } from '../../../lib/time.js';
import * as repo from './my-work.repository.js';
import {
  MY_WORK_LIMIT_DEFAULT,
  type MyWorkItem,
  type MyWorkPage,
  type MyWorkQuery,
} from './my-work.schemas.js';

/**
 * The caller's open assigned cases across the open runs of every project they can open (docs/api-decisions.md#my-work),
 * grouped by run and ordered by due date, with their open and done counts; a page is one query.
 */
export async function listMyWork(db: Db, actor: Actor, query: MyWorkQuery): Promise<MyWorkPage> {
  const today = query.today ?? todayUtc();
  if (!isCalendarDate(today)) throw badRequest('today must be a calendar date written YYYY-MM-DD', '/today');
  const offset = query.offset ?? 0;
  const limit = query.limit ?? MY_WORK_LIMIT_DEFAULT;
  const scope = { tenantId: actor.tenantId, userId: actor.userId, allProjects: atLeast(actor.role, 'admin') };
  const rows = await repo.listMyWork(db, { ...scope, today, offset, limit });
  const first = rows[0];
  // Every row carries the whole list's counts; a page past the end (or nothing open) reads the done count alone.
  const open = first ? Number(first.all_open) : 0;
  const done = first ? Number(first.all_done) : await repo.countMyDone(db, scope);
  const data = rows.map((r): MyWorkItem => ({
    run: {
      id: r.run_id,
      title: r.run_title,
      project: { id: r.project_id, code: r.project_code, title: r.project_title },
      ...(r.run_due_at !== null ? { dueAt: r.run_due_at, overdue: r.run_due_at < today } : {}),
      open: Number(r.run_open),
      done: Number(r.run_done),
    },
    tcase: { id: r.tcase_id, seq: r.seq, title: r.title, priority: r.priority },
    ...(r.due_at !== null ? { dueAt: r.due_at } : {}),
    overdue: r.due_at !== null && r.due_at < today,
  }));
  return {
    total: open,
    offset,
    limit,
    open,
    done,
    overdue: first ? Number(first.all_overdue) : 0,
    data,
  };
}
