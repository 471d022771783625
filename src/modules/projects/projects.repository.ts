import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { ProjectsTable } from '../../db/schema.js';
import { sql } from 'kysely';
import { dialectOf } from '../../db/dialect.js';
import { prepareQuery } from '../../db/prepared.js';

// Every project-scoped request starts here, so the lookup is prepared.
const projectByRef = prepareQuery((db: Db, tenantId: string, codeNorm: string, ref: string) =>
  db
    .selectFrom('projects')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('code_norm', '=', codeNorm), eb('id', '=', ref)])),
);
export const findProjectByRef = (db: Db, tenantId: string, ref: string) =>
  projectByRef.executeTakeFirst(db, tenantId, ref.toUpperCase(), ref);

export const listProjects = (db: Db, tenantId: string, memberUserId?: number) => {
  let q = db.selectFrom('projects as p').selectAll('p').where('p.tenant_id', '=', tenantId);
  if (memberUserId !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('project_members as m')
          .select('m.user_id')
          .whereRef('m.project_id', '=', 'p.id')
          .where('m.user_id', '=', memberUserId),
      ),
    );
  }
  return q.orderBy('p.created_at').orderBy('p.code_norm').execute();
};

const membership = prepareQuery((db: Db, projectId: string, userId: number) =>
  db
    .selectFrom('project_members')
    .select('user_id')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId),
);
export const isMember = async (db: Db, projectId: string, userId: number) =>
  (await membership.executeTakeFirst(db, projectId, userId)) !== undefined;

export const insertProject = (db: Db, row: Insertable<ProjectsTable>) =>
  db.insertInto('projects').values(row).execute();

export const updateProject = (db: Db, tenantId: string, id: string, values: Updateable<ProjectsTable>) =>
  db
    .updateTable('projects')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const insertMember = (db: Db, tenantId: string, projectId: string, userId: number, at: string) =>
  db
    .insertInto('project_members')
    .values({ tenant_id: tenantId, project_id: projectId, user_id: userId, created_at: at })
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
    .execute();

/** Makes a user a member of every project of the tenant (an invitation to all projects, D3). */
export const insertMemberOfAll = (db: Db, tenantId: string, userId: number, at: string) =>
  db
    .insertInto('project_members')
    .columns(['tenant_id', 'project_id', 'user_id', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('projects')
        .select((e) => ['tenant_id', 'id', e.val(userId).as('user_id'), e.val(at).as('created_at')])
        .where('tenant_id', '=', tenantId),
    )
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
    .execute();

/** Makes the active people who join every project members of a new one. */
export const insertMembersJoiningNew = (db: Db, tenantId: string, projectId: string, at: string) =>
  db
    .insertInto('project_members')
    .columns(['tenant_id', 'project_id', 'user_id', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select((e) => ['tenant_id', e.val(projectId).as('project_id'), 'id', e.val(at).as('created_at')])
        .where('tenant_id', '=', tenantId)
        .where('joins_new_projects', '=', 1)
        .where('deactivated_at', 'is', null),
    )
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
    .execute();

/** The projects of the tenant among `refs` (ids, or codes in any case). */
export const findProjectsByRefs = (db: Db, tenantId: string, refs: string[]) =>
  refs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('projects')
        .select(['id', 'code', 'title'])
        .where('tenant_id', '=', tenantId)
        .where((eb) =>
          eb.or([
            eb('id', 'in', refs),
            eb(
              'code_norm',
              'in',
              refs.map((r) => r.toUpperCase()),
            ),
          ]),
        )
        .execute();

export const findConflicting = (db: Db, tenantId: string, codeNorm: string, title: string) =>
  db
    .selectFrom('projects')
    .select(['id', 'code', 'title', 'code_norm'])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('code_norm', '=', codeNorm), eb('title', '=', title)]))
    .execute();

/** Hands out `count` consecutive test-case sequence numbers; the row lock keeps them unique across processes. */
export const allocateSeqs = async (db: Db, projectId: string, count: number): Promise<number> => {
  const row = await db
    .updateTable('projects')
    .set((eb) => ({ next_tcase_seq: eb('next_tcase_seq', '+', count) }))
    .where('id', '=', projectId)
    .returning('next_tcase_seq')
    .executeTakeFirstOrThrow();
  return row.next_tcase_seq - count;
};

// ---- administration (archive, delete, members) ----

/** Deletes the project; every project table cascades from `projects` through its foreign keys. */
export const removeProject = (db: Db, tenantId: string, id: string) =>
  db.deleteFrom('projects').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

export const listMembers = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.email', 'u.role', 'm.created_at'])
    .where('m.tenant_id', '=', tenantId)
    .where('m.project_id', '=', projectId)
    .orderBy('u.id')
    .execute();

export const removeMember = (db: Db, tenantId: string, projectId: string, userId: number) =>
  db
    .deleteFrom('project_members')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

// ---- what the project holds (the delete and archive confirmations) ----

/** Live test cases of the project (index tcases_folder_pos_idx leads with project_id). */
export const countLiveCases = async (db: Db, projectId: string) =>
  Number(
    (
      await db
        .selectFrom('tcases')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('project_id', '=', projectId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Every run and the open ones, in one read of the project's runs (runs_project_type_open_idx covers it). */
export const countRuns = async (db: Db, projectId: string) => {
  const row = await db
    .selectFrom('runs')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('runs'),
      eb.fn.count<number | string>('id').filterWhere('closed_at', 'is', null).as('open'),
    ])
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return { runs: Number(row.runs), openRuns: Number(row.open) };
};

/** Results of the project's runs: per run an index range of results_run_tcase_idx, never the table. */
export const countResults = async (db: Db, projectId: string) =>
  Number(
    (
      await db
        .selectFrom('runs as r')
        .innerJoin('results as x', 'x.run_id', 'r.id')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('r.project_id', '=', projectId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/**
 * The files attached to the project's test cases in any version, each once, and their bytes. A version's
 * `file_ids` is a JSON array; most are `[]` and are skipped before they are parsed.
 */
export const countCaseFiles = async (db: Db, tenantId: string, projectId: string) => {
  const ids =
    dialectOf(db) === 'postgres'
      ? sql`select jsonb_array_elements_text(v.file_ids::jsonb) from tcase_versions v
            join tcases t on t.id = v.tcase_id
            where t.project_id = ${projectId} and v.file_ids <> '[]'`
      : sql`select j.value from tcase_versions v join tcases t on t.id = v.tcase_id, json_each(v.file_ids) j
            where t.project_id = ${projectId} and v.file_ids <> '[]'`;
  const { rows } = await sql<{ n: number | string; bytes: number | string | null }>`
    select count(*) as n, sum(f.size) as bytes from files f
    where f.tenant_id = ${tenantId} and f.id in (${ids})`.execute(db);
  return { files: Number(rows[0]?.n ?? 0), fileBytes: Number(rows[0]?.bytes ?? 0) };
};
