import { sql } from 'kysely';
import type { Db } from '../../../db/create-db.js';

/*
 * "My work" (docs/api-decisions.md#my-work): a person's assigned cases in the open runs of the projects they can
 * open, ONE query per page. Window functions count each run's open and done cases and the whole list's before the
 * page is cut, and order runs by their earliest open due date, so grouping needs no second read; titles are read
 * for the page's rows only (bench/my-work.ts: 12,400 assigned cases, a page in ~100 ms instead of ~300 ms).
 */

export interface MyWorkFilter {
  tenantId: string;
  userId: number;
  /** Admins and owners open every project (D3); others only those they are members of. */
  allProjects: boolean;
  today: string;
  offset: number;
  limit: number;
}

const OPEN = sql`rt.status = 'open'`;
const DUE = sql<string | null>`coalesce(rt.due_at, r.due_at)`;

export const listMyWork = (db: Db, f: MyWorkFilter) => {
  const mine = db
    .selectFrom('run_tcases as rt')
    .innerJoin('runs as r', (j) => j.onRef('r.id', '=', 'rt.run_id').on('r.tenant_id', '=', f.tenantId))
    .innerJoin('projects as p', (j) =>
      j.onRef('p.id', '=', 'r.project_id').on('p.tenant_id', '=', f.tenantId),
    )
    .innerJoin('tcases as t', 't.id', 'rt.tcase_id')
    .select([
      'rt.run_id',
      'rt.status',
      'r.title as run_title',
      'r.due_at as run_due_at',
      'p.id as project_id',
      'p.code as project_code',
      'p.title as project_title',
      't.id as tcase_id',
      't.seq',
      sql<number>`coalesce(rt.version, t.version)`.as('version'),
      DUE.as('due_at'),
      sql<number>`sum(case when ${OPEN} then 1 else 0 end) over (partition by rt.run_id)`.as('run_open'),
      sql<number>`sum(case when ${OPEN} then 0 else 1 end) over (partition by rt.run_id)`.as('run_done'),
      // A run's place: its earliest open due date (the most overdue first).
      sql<string | null>`min(case when ${OPEN} then ${DUE} end) over (partition by rt.run_id)`.as('run_key'),
      sql<number>`sum(case when ${OPEN} then 1 else 0 end) over ()`.as('all_open'),
      sql<number>`sum(case when ${OPEN} then 0 else 1 end) over ()`.as('all_done'),
      sql<number>`sum(case when ${OPEN} and ${DUE} < ${f.today} then 1 else 0 end) over ()`.as('all_overdue'),
    ])
    .where('rt.tenant_id', '=', f.tenantId)
    .where('rt.assignee_id', '=', f.userId)
    .where('rt.in_run', '=', 1)
    // Closed runs are finished work; archived projects are read-only (nothing can be recorded there).
    .where('r.closed_at', 'is', null)
    .where('p.archived_at', 'is', null)
    .$if(!f.allProjects, (q) =>
      q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('project_members as m')
            .select('m.user_id')
            .whereRef('m.project_id', '=', 'p.id')
            .where('m.user_id', '=', f.userId),
        ),
      ),
    );
  // Runs by their earliest open due date (none last), then cases by due date (none last) and sequence number.
  const keys = (a: 'w' | 'pg') => [
    sql`case when ${sql.ref(`${a}.run_key`)} is null then 1 else 0 end`,
    sql.ref(`${a}.run_key`),
    sql.ref(`${a}.run_id`),
    sql`case when ${sql.ref(`${a}.due_at`)} is null then 1 else 0 end`,
    sql.ref(`${a}.due_at`),
    sql.ref(`${a}.seq`),
  ];
  let page = db.selectFrom(mine.as('w')).selectAll('w').where('w.status', '=', 'open');
  for (const k of keys('w')) page = page.orderBy(k);
  // The shown version's title and priority for the page's rows only, not for every case the counts read.
  let shown = db
    .selectFrom(page.limit(f.limit).offset(f.offset).as('pg'))
    .innerJoin('tcase_versions as v', (j) =>
      j.onRef('v.tcase_id', '=', 'pg.tcase_id').onRef('v.version', '=', 'pg.version'),
    )
    .selectAll('pg')
    .select(['v.title', 'v.priority']);
  for (const k of keys('pg')) shown = shown.orderBy(k);
  return shown.execute();
};

/** How many of the person's cases in open runs have a result: only for a page with no open case on it. */
export const countMyDone = async (db: Db, f: Omit<MyWorkFilter, 'today' | 'offset' | 'limit'>) => {
  const row = await db
    .selectFrom('run_tcases as rt')
    .innerJoin('runs as r', (j) => j.onRef('r.id', '=', 'rt.run_id').on('r.tenant_id', '=', f.tenantId))
    .innerJoin('projects as p', (j) =>
      j.onRef('p.id', '=', 'r.project_id').on('p.tenant_id', '=', f.tenantId),
    )
    .select(sql<number>`count(*)`.as('n'))
    .where('rt.tenant_id', '=', f.tenantId)
    .where('rt.assignee_id', '=', f.userId)
    .where('rt.in_run', '=', 1)
    .where('rt.status', '!=', 'open')
    .where('r.closed_at', 'is', null)
    .where('p.archived_at', 'is', null)
    .$if(!f.allProjects, (q) =>
      q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('project_members as m')
            .select('m.user_id')
            .whereRef('m.project_id', '=', 'p.id')
            .where('m.user_id', '=', f.userId),
        ),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
};
