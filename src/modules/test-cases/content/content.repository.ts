import type { Insertable, InsertObject } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { Database } from '../../../db/schema.js';
import { chunks } from '../../../lib/chunks.js';
import { deleteSearchDocs, rewriteSearchDocs } from '../../../db/search-docs.js';

/*
 * What a test-case version's content lives in or links to outside `tcase_versions`: standalone steps and
 * preconditions (their rows are written once per version), and the link rows of the latest version.
 */

// ---- standalone steps and preconditions ----

export const listStepsByIds = async (db: Db, tenantId: string, ids: number[]) => {
  const out = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await db
        .selectFrom('steps')
        .select(['id', 'description', 'expected'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', part)
        .execute()),
    );
  }
  return out;
};

/** Inserts steps and answers their ids in input order (ids grow with insertion order on both databases). */
export async function insertSteps(
  db: Db,
  tenantId: string,
  steps: { tcaseId: string; description: string; expected: string }[],
  at: string,
): Promise<number[]> {
  const ids: number[] = [];
  for (const part of chunks(steps, 200)) {
    const rows = await db
      .insertInto('steps')
      .values(
        part.map((s) => ({
          tenant_id: tenantId,
          tcase_id: s.tcaseId,
          description: s.description,
          expected: s.expected,
          created_at: at,
        })),
      )
      .returning('id')
      .execute();
    ids.push(...rows.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
  return ids;
}

export const listPreconditionsByIds = async (db: Db, tenantId: string, ids: number[]) => {
  const out = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await db
        .selectFrom('preconditions')
        .select(['id', 'project_id', 'text', 'created_at'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', part)
        .execute()),
    );
  }
  return out;
};

export async function insertPreconditions(
  db: Db,
  tenantId: string,
  projectId: string,
  items: { tcaseId: string; text: string }[],
  at: string,
): Promise<number[]> {
  const ids: number[] = [];
  for (const part of chunks(items, 200)) {
    const rows = await db
      .insertInto('preconditions')
      .values(
        part.map((p) => ({
          tenant_id: tenantId,
          project_id: projectId,
          tcase_id: p.tcaseId,
          text: p.text,
          created_at: at,
        })),
      )
      .returning('id')
      .execute();
    ids.push(...rows.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
  return ids;
}

// ---- latest-version link tables (filters and usage counts) ----

export interface LatestLinks {
  tcaseId: string;
  tagIds: number[];
  requirementIds: string[];
  sharedStepIds: number[];
  sharedPreconditionIds: number[];
  customValues: { fieldId: string; value: string }[];
}

/**
 * Replaces the link rows of these test cases with those of their latest version; `fresh` cases (inserted in
 * this transaction) have none to remove, which saves five statements per create.
 */
export async function replaceLatestLinks(
  db: Db,
  tenantId: string,
  fresh: boolean,
  links: LatestLinks[],
): Promise<void> {
  if (!fresh)
    await removeLatestLinks(
      db,
      tenantId,
      links.map((l) => l.tcaseId),
    );
  const insert = async <T extends keyof Database>(table: T, rows: Insertable<Database[T]>[]) => {
    for (const part of chunks(rows, 500)) {
      await db
        .insertInto(table)
        .values(part as InsertObject<Database, T>[])
        .execute();
    }
  };
  await insert(
    'tcase_tags',
    links.flatMap((l) =>
      [...new Set(l.tagIds)].map((tag_id) => ({ tenant_id: tenantId, tcase_id: l.tcaseId, tag_id })),
    ),
  );
  await insert(
    'tcase_requirements',
    links.flatMap((l) =>
      [...new Set(l.requirementIds)].map((requirement_id) => ({
        tenant_id: tenantId,
        tcase_id: l.tcaseId,
        requirement_id,
      })),
    ),
  );
  await insert(
    'tcase_shared_steps',
    links.flatMap((l) =>
      [...new Set(l.sharedStepIds)].map((shared_step_id) => ({
        tenant_id: tenantId,
        tcase_id: l.tcaseId,
        shared_step_id,
      })),
    ),
  );
  await insert(
    'tcase_shared_preconditions',
    links.flatMap((l) =>
      [...new Set(l.sharedPreconditionIds)].map((shared_precondition_id) => ({
        tenant_id: tenantId,
        tcase_id: l.tcaseId,
        shared_precondition_id,
      })),
    ),
  );
  await insert(
    'tcase_custom_values',
    links.flatMap((l) =>
      l.customValues.map((c) => ({
        tenant_id: tenantId,
        tcase_id: l.tcaseId,
        field_id: c.fieldId,
        value: c.value,
      })),
    ),
  );
}

/** Deleted cases leave the link tables and the full-text index, in the deleting transaction. */
export async function removeLatestLinks(db: Db, tenantId: string, tcaseIds: string[]): Promise<void> {
  await deleteSearchDocs(db, tenantId, tcaseIds);
  for (const part of chunks(tcaseIds)) {
    for (const table of [
      'tcase_tags',
      'tcase_requirements',
      'tcase_shared_steps',
      'tcase_shared_preconditions',
      'tcase_custom_values',
    ] as const) {
      await db.deleteFrom(table).where('tenant_id', '=', tenantId).where('tcase_id', 'in', part).execute();
    }
  }
}

/** The full-text documents of these cases, rebuilt from their latest version in the writing transaction. */
export const reindexCases = (db: Db, tenantId: string, tcaseIds: string[]): Promise<void> =>
  rewriteSearchDocs(db, tenantId, tcaseIds);
