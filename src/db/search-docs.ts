import type { Db } from './connection.js';
import { chunks } from '../lib/chunks.js';
import { htmlToText, wordsOf } from '../lib/search-text.js';
import { searchDocColumns } from './full-text.js';

/*
 * The full-text documents of test cases (tcase_search_docs, migration 0024): built from what is stored, so the
 * writes of test cases (src/modules/test-cases, in their transaction), the migration's backfill and the test that
 * compares the index with a rebuild all make the same document.
 */

export interface SearchDoc {
  tenant_id: string;
  project_id: string;
  tcase_id: string;
  title: string;
  body: string;
}

type StepRef = { type: 'standalone'; id: number } | { type: 'shared'; id: number; version: number };

const SEPARATOR = ' · ';

/** The documents of the live ones among these cases, at their latest version (deleted or unknown ids: none). */
export async function readSearchDocs(db: Db, tenantId: string, ids: string[]): Promise<SearchDoc[]> {
  const out: SearchDoc[] = [];
  for (const part of chunks(ids)) {
    const rows = await db
      .selectFrom('tcases as t')
      .innerJoin('tcase_versions as v', (j) =>
        j.onRef('v.tcase_id', '=', 't.id').onRef('v.version', '=', 't.version'),
      )
      .select(['t.id', 't.tenant_id', 't.project_id', 'v.title', 'v.comment', 'v.steps'])
      .where('t.tenant_id', '=', tenantId)
      .where('t.id', 'in', part)
      .where('t.deleted_at', 'is', null)
      .execute();
    const refs = new Map(rows.map((r) => [r.id, JSON.parse(r.steps) as StepRef[]]));
    const all = [...refs.values()].flat();
    const standaloneIds = all.flatMap((s) => (s.type === 'standalone' ? [s.id] : []));
    const sharedIds = [...new Set(all.flatMap((s) => (s.type === 'shared' ? [s.id] : [])))];
    const standalone = new Map<number, { description: string; expected: string }>();
    for (const ids of chunks(standaloneIds)) {
      const steps = await db
        .selectFrom('steps')
        .select(['id', 'description', 'expected'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids)
        .execute();
      for (const s of steps) standalone.set(Number(s.id), s);
    }
    const shared = new Map<string, { description: string; expected: string }[]>();
    for (const ids of chunks(sharedIds)) {
      const subs = await db
        .selectFrom('shared_sub_steps')
        .select(['shared_step_id', 'version', 'description', 'expected'])
        .where('tenant_id', '=', tenantId)
        .where('shared_step_id', 'in', ids)
        .orderBy('pos')
        .execute();
      for (const s of subs) {
        const key = `${s.shared_step_id}:${s.version}`;
        shared.set(key, [...(shared.get(key) ?? []), s]);
      }
    }
    for (const r of rows) {
      const texts = [htmlToText(r.comment)];
      for (const ref of refs.get(r.id)!) {
        const steps =
          ref.type === 'standalone'
            ? [standalone.get(ref.id)]
            : (shared.get(`${ref.id}:${ref.version}`) ?? []);
        for (const s of steps) if (s) texts.push(htmlToText(s.description), htmlToText(s.expected));
      }
      out.push({
        tenant_id: r.tenant_id,
        project_id: r.project_id,
        tcase_id: r.id,
        title: r.title,
        body: texts.filter((t) => t !== '').join(SEPARATOR),
      });
    }
  }
  return out;
}

/**
 * Rewrites every live case's document, a bounded batch of cases at a time (the migration's backfill, and
 * `casebook copy`, which rebuilds the index in the target instead of copying one database's form into the other).
 */
export async function rebuildSearchDocs(db: Db, batch = 500): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('tcases')
      .select(['id', 'tenant_id'])
      .where('deleted_at', 'is', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(batch)
      .execute();
    if (rows.length === 0) return;
    const byTenant = new Map<string, string[]>();
    for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), r.id]);
    for (const [tenantId, ids] of byTenant) await rewriteSearchDocs(db, tenantId, ids);
    after = rows[rows.length - 1].id;
  }
}

/** Rewrites the documents of these cases from what is stored: live ones get theirs, deleted ones lose it. */
export async function rewriteSearchDocs(db: Db, tenantId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await deleteSearchDocs(db, tenantId, ids);
  const docs = await readSearchDocs(db, tenantId, ids);
  for (const part of chunks(docs, 200)) {
    await db
      .insertInto('tcase_search_docs')
      .values(part.map((d) => ({ ...d, ...searchDocColumns(db, wordsOf(d.title), wordsOf(d.body)) })))
      .execute();
  }
}

export async function deleteSearchDocs(db: Db, tenantId: string, ids: string[]): Promise<void> {
  for (const part of chunks(ids)) {
    await db
      .deleteFrom('tcase_search_docs')
      .where('tenant_id', '=', tenantId)
      .where('tcase_id', 'in', part)
      .execute();
  }
}
