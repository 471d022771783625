import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/keys';
import type { ListedCase } from './api';

/** Edits a bulk edit makes one case at a time (priority, custom fields): at most this many per go. */
export const BULK_EDIT_MAX = 500;
/** Requests in flight at once: quick for a few hundred cases, without crowding the service. */
const PARALLEL = 4;

export interface CaseFailure {
  id: string;
  message: string;
}

/**
 * Runs `work` for each id, a few at a time, and tells `onProgress` how many are done after each; a case that
 * fails does not stop the others: its message is kept and returned, in the order of `ids`.
 */
export async function eachCase(
  ids: string[],
  work: (id: string) => Promise<unknown>,
  onProgress: (done: number) => void,
  parallel = PARALLEL,
): Promise<CaseFailure[]> {
  const failures = new Map<string, string>();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        await work(id);
      } catch (e) {
        failures.set(id, e instanceof Error ? e.message : String(e));
      }
      onProgress(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, ids.length) }, worker));
  return ids.filter((id) => failures.has(id)).map((id) => ({ id, message: failures.get(id)! }));
}

/** The rows of the repository's lists already loaded, by id: how a bulk result names a case ("SHOP-5 Pay"). */
export function loadedCases(qc: QueryClient, code: string): Map<string, ListedCase> {
  const out = new Map<string, ListedCase>();
  for (const [, page] of qc.getQueriesData<{ data: ListedCase[] }>({ queryKey: queryKeys.caseLists(code) }))
    for (const c of page?.data ?? []) out.set(c.id, c);
  return out;
}

/** A case as people name it: its marker and title, or its id when it is not among the loaded rows. */
export const caseName = (code: string, known: Map<string, ListedCase>, id: string) => {
  const c = known.get(id);
  return c ? `${code.toUpperCase()}-${c.seq} ${c.title}` : `test case ${id}`;
};
