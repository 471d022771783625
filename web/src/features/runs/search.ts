import { isPriority } from '../../api/priorities';

/**
 * The runs pages keep their filters in the address, so a filtered view can be shared and survives a reload.
 * Each route validates its own search: anything unknown or malformed is dropped, never an error.
 */

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : undefined;

export interface RunPageSearch {
  /** `?tcase=<seq>`: the case selected when the page opens (tracker comments link there). */
  tcase?: number;
  /** Status ids shown, comma-separated; all when absent. */
  status?: string;
  /** The search of the run's cases. */
  q?: string;
  /** Priorities shown, comma-separated. */
  priority?: string;
  /** A tag id the cases carry. */
  tag?: number;
  /** `me`: the cases assigned to the signed-in person; `none`: the cases nobody is assigned. */
  assignee?: 'me' | 'none';
}

export function validateRunPageSearch(search: Record<string, unknown>): RunPageSearch {
  const tcase = Number(search.tcase);
  const status = text(search.status)
    ?.split(',')
    .filter((s) => /^[a-z0-9_]{1,32}$/.test(s))
    .join(',');
  const q = text(search.q);
  const priority = text(search.priority)?.split(',').filter(isPriority).join(',');
  const tag = Number(search.tag);
  const assignee = search.assignee === 'me' || search.assignee === 'none' ? search.assignee : undefined;
  return {
    ...(assignee ? { assignee } : {}),
    ...(priority ? { priority } : {}),
    ...(Number.isInteger(tag) && tag > 0 ? { tag } : {}),
    ...(Number.isInteger(tcase) && tcase > 0 ? { tcase } : {}),
    ...(status ? { status } : {}),
    ...(q ? { q } : {}),
  };
}

/** How the runs list is ordered (the list endpoint has no sort parameters: the page sorts what it loaded). */
export const RUNS_SORTS = ['newest', 'oldest', 'title', 'pass-high', 'pass-low'] as const;
export type RunsSort = (typeof RUNS_SORTS)[number];

export interface RunsPageSearch {
  milestone?: string;
  assignee?: string;
  type?: string;
  /** Words the run titles contain. */
  q?: string;
  /** Absent: newest first. */
  sort?: RunsSort;
}

export function validateRunsPageSearch(search: Record<string, unknown>): RunsPageSearch {
  const out: RunsPageSearch = {};
  for (const key of ['milestone', 'assignee', 'type'] as const) {
    const v = text(search[key]);
    if (v && /^[A-Za-z0-9_-]{1,64}$/.test(v)) out[key] = v;
  }
  const q = text(search.q);
  if (q) out.q = q.slice(0, 255);
  const sort = RUNS_SORTS.find((s) => s === search.sort);
  if (sort && sort !== 'newest') out.sort = sort;
  return out;
}
