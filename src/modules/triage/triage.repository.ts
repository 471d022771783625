import type { Insertable } from 'kysely';
import type { Db } from '../../db/create-db.js';
import type { KnownFailuresTable } from '../../db/tables/triage.js';

/*
 * Triage owns `known_failures`. Everything else it reads belongs to the runs module — `failure_signatures` (which
 * runs writes with each failed or blocked result), `run_tcases`, `results`, `result_links`, `runs` — and to
 * test-cases (`tcases`) and users (`users`, for names): reads joined for speed, one statement per answer instead
 * of one per row (docs/architecture.md lists them). Links are written through the runs service.
 */

/**
 * The failures a run shows now: each in-run case's latest result, when that result is signed. The run's signatures
 * by their index, each joined to its case's row by `run_tcases`' key.
 */
export const listRunFailures = (db: Db, tenantId: string, runId: number) =>
  db
    .selectFrom('failure_signatures as f')
    .innerJoin('run_tcases as rt', (j) =>
      j
        .onRef('rt.run_id', '=', 'f.run_id')
        .onRef('rt.tcase_id', '=', 'f.tcase_id')
        .onRef('rt.latest_result_id', '=', 'f.result_id'),
    )
    .innerJoin('tcases as t', 't.id', 'f.tcase_id')
    .select(['f.signature', 'f.label', 'f.result_id', 'f.tcase_id', 'rt.status', 't.seq', 't.title'])
    .where('f.run_id', '=', runId)
    .where('f.tenant_id', '=', tenantId)
    .where('rt.in_run', '=', 1)
    .execute();

/** The signatures of the failures a run shows now. */
export async function listRunSignatures(db: Db, tenantId: string, runId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('failure_signatures as f')
    .innerJoin('run_tcases as rt', (j) =>
      j
        .onRef('rt.run_id', '=', 'f.run_id')
        .onRef('rt.tcase_id', '=', 'f.tcase_id')
        .onRef('rt.latest_result_id', '=', 'f.result_id'),
    )
    .select('f.signature')
    .distinct()
    .where('f.run_id', '=', runId)
    .where('f.tenant_id', '=', tenantId)
    .where('rt.in_run', '=', 1)
    .execute();
  return new Set(rows.map((r) => r.signature));
}

/** The known marks of these signatures in a project, with who marked them. */
export const listKnown = (db: Db, tenantId: string, projectId: string, signatures: string[]) =>
  signatures.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('known_failures as k')
        .leftJoin('users as u', (j) =>
          j.onRef('u.id', '=', 'k.marked_by').onRef('u.tenant_id', '=', 'k.tenant_id'),
        )
        .select([
          'k.signature',
          'k.run_id',
          'k.marked_by',
          'k.note',
          'k.marked_at',
          'u.name as marked_by_name',
        ])
        .where('k.tenant_id', '=', tenantId)
        .where('k.project_id', '=', projectId)
        .where('k.signature', 'in', signatures)
        .execute();

const groupColumns = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('failure_signatures')
    .select((eb) => [
      'signature',
      eb.fn.max('label').as('label'),
      eb.fn.min('created_at').as('first_seen'),
      eb.fn.max('created_at').as('last_seen'),
      eb.fn.count<number>('run_id').distinct().as('runs'),
      eb.fn.count<number>('tcase_id').distinct().as('cases'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .groupBy('signature');

/** A page of a project's failure groups, the most recently seen first. */
export const listProjectGroups = (
  db: Db,
  tenantId: string,
  projectId: string,
  offset: number,
  limit: number,
) =>
  groupColumns(db, tenantId, projectId)
    .orderBy('last_seen', 'desc')
    .orderBy('signature')
    .offset(offset)
    .limit(limit)
    .execute();

/** How many failure groups a project has. */
export async function countProjectGroups(db: Db, tenantId: string, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('failure_signatures')
    .select((eb) => eb.fn.count<number>('signature').distinct().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** One group of a project, or undefined. */
export const findProjectGroup = (db: Db, tenantId: string, projectId: string, signature: string) =>
  groupColumns(db, tenantId, projectId).where('signature', '=', signature).executeTakeFirst();

/** The runs a group was seen in, newest first, with how many cases failed so there. */
export const listGroupRuns = (
  db: Db,
  tenantId: string,
  projectId: string,
  signature: string,
  limit: number,
) =>
  db
    .selectFrom('failure_signatures as f')
    .innerJoin('runs as ru', 'ru.id', 'f.run_id')
    .select((eb) => [
      'f.run_id',
      'ru.title',
      'ru.created_at',
      eb.fn.count<number>('f.tcase_id').distinct().as('cases'),
    ])
    .where('f.tenant_id', '=', tenantId)
    .where('f.project_id', '=', projectId)
    .where('f.signature', '=', signature)
    .groupBy(['f.run_id', 'ru.title', 'ru.created_at'])
    .orderBy('ru.created_at', 'desc')
    .orderBy('f.run_id', 'desc')
    .limit(limit)
    .execute();

/** The cases a group was seen on, the most recently failed first, with how many runs each. */
export const listGroupCases = (
  db: Db,
  tenantId: string,
  projectId: string,
  signature: string,
  limit: number,
) =>
  db
    .selectFrom('failure_signatures as f')
    .innerJoin('tcases as t', 't.id', 'f.tcase_id')
    .select((eb) => [
      'f.tcase_id',
      't.seq',
      't.title',
      eb.fn.count<number>('f.run_id').distinct().as('runs'),
      eb.fn.max('f.created_at').as('last_seen'),
    ])
    .where('f.tenant_id', '=', tenantId)
    .where('f.project_id', '=', projectId)
    .where('f.signature', '=', signature)
    .groupBy(['f.tcase_id', 't.seq', 't.title'])
    .orderBy('last_seen', 'desc')
    .orderBy('t.seq')
    .limit(limit)
    .execute();

/** A result of the project (by its run), with its signature when it has one; undefined when it is not there. */
export const findResult = (db: Db, tenantId: string, projectId: string, resultId: number) =>
  db
    .selectFrom('results as r')
    .innerJoin('runs as ru', 'ru.id', 'r.run_id')
    .leftJoin('failure_signatures as f', 'f.result_id', 'r.id')
    .select(['r.id', 'r.run_id', 'f.signature', 'f.label'])
    .where('r.tenant_id', '=', tenantId)
    .where('ru.project_id', '=', projectId)
    .where('r.id', '=', resultId)
    .executeTakeFirst();

/**
 * Links on other results of the project with this signature: the decisions made before. Who linked is the link's
 * `linked_by` (added after the result) or else the result's author; when, likewise. Newest first, bounded.
 */
export const listSignatureLinks = (
  db: Db,
  tenantId: string,
  projectId: string,
  signature: string,
  exceptResultId: number,
  limit: number,
) =>
  db
    .selectFrom('failure_signatures as f')
    .innerJoin('result_links as l', 'l.result_id', 'f.result_id')
    .innerJoin('results as r', 'r.id', 'f.result_id')
    .innerJoin('runs as ru', 'ru.id', 'f.run_id')
    .innerJoin('tcases as t', 't.id', 'f.tcase_id')
    .leftJoin('users as u', (j) =>
      j
        .on((eb) => eb('u.id', '=', eb.fn.coalesce('l.linked_by', 'r.author_id')))
        .onRef('u.tenant_id', '=', 'f.tenant_id'),
    )
    .select((eb) => [
      'l.url',
      'l.text',
      'l.integration_id',
      'l.meta',
      'f.result_id',
      'f.run_id',
      'ru.title as run_title',
      'f.tcase_id',
      't.seq',
      'u.id as user_id',
      'u.name as user_name',
      eb.fn.coalesce('l.linked_at', 'r.created_at').as('linked_at'),
    ])
    .where('f.tenant_id', '=', tenantId)
    .where('f.project_id', '=', projectId)
    .where('f.signature', '=', signature)
    .where('f.result_id', '<>', exceptResultId)
    .orderBy('linked_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();

/** Marks a signature known in a project (again: the newer mark replaces the older). */
export const upsertKnown = (db: Db, row: Insertable<KnownFailuresTable>) =>
  db
    .insertInto('known_failures')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'signature']).doUpdateSet({
        label: row.label,
        run_id: row.run_id,
        marked_by: row.marked_by,
        note: row.note,
        marked_at: row.marked_at,
      }),
    )
    .execute();

/**
 * Copies the known mark of `from` to `to` in the project, when `from` has one and `to` has none: the same problem
 * under the signature a newer normaliser gives it stays known. The old mark stays for results not yet re-signed.
 */
export async function copyKnown(db: Db, tenantId: string, projectId: string, from: string, to: string) {
  const mark = await db
    .selectFrom('known_failures')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('signature', '=', from)
    .executeTakeFirst();
  if (!mark) return;
  await db
    .insertInto('known_failures')
    .values({ ...mark, signature: to })
    .onConflict((oc) => oc.columns(['project_id', 'signature']).doNothing())
    .execute();
}

/** Removes a known mark; answers whether there was one. */
export async function removeKnown(db: Db, tenantId: string, projectId: string, signature: string) {
  const r = await db
    .deleteFrom('known_failures')
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('signature', '=', signature)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
