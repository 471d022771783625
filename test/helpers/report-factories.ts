import type { TestEnv } from './test-app.js';
import { createRun, addResult } from './run-factories.js';
import { createTcase } from './tcase-factories.js';

/** What the report tests (src/modules/reports) seed: cases, runs with known results, and expected counts. */

export type Project = { id: string; code: string };

/** The nine status counts and `all`, zero but for `c`. */
export const counts = (c: Partial<Record<string, number>>) => {
  const all = Object.values(c).reduce((a: number, b) => a + (b ?? 0), 0);
  return {
    all,
    open: 0,
    passed: 0,
    failed: 0,
    blocked: 0,
    skipped: 0,
    custom1: 0,
    custom2: 0,
    custom3: 0,
    custom4: 0,
    ...c,
  };
};

/** `n` test cases (in `folderId`, or the default folder). */
export async function cases(t: TestEnv, p: Project, n: number, folderId?: number) {
  const out: { id: string; seq: number }[] = [];
  for (let i = 0; i < n; i++) out.push(await createTcase(t, p, folderId ? { folderId } : {}));
  return out;
}

/** A run of `tcases` with one result per case as given (null: no result, the case stays open). */
export async function runWith(
  t: TestEnv,
  p: Project,
  results: [{ id: string }, string | null, Record<string, unknown>?][],
  overrides: Record<string, unknown> = {},
) {
  const { id } = await createRun(t, p, { tcaseIds: results.map(([c]) => c.id), ...overrides });
  for (const [c, status, extra] of results) if (status) await addResult(t, p, id, c.id, status, extra);
  return id;
}

export async function ownerName(t: TestEnv) {
  const row = await t.db
    .selectFrom('users')
    .select('name')
    .where('id', '=', t.ownerId)
    .executeTakeFirstOrThrow();
  return row.name;
}
