import type { RunsSort } from '../search';

type Counts = Record<string, number> | null | undefined;

/**
 * A run's pass rate as the reports compute it (extensions.md §6): passed ÷ (all − open − skipped), so the list,
 * the run page and the run's report agree; null while nothing counts.
 */
export function passRateOf(counts: Counts): number | null {
  const counted = (counts?.all ?? 0) - (counts?.open ?? 0) - (counts?.skipped ?? 0);
  return counted > 0 ? (counts?.passed ?? 0) / counted : null;
}

interface Listed {
  id: number;
  title: string;
  createdAt: string;
  statusCounts?: Counts;
}

/** The runs whose title holds every searched word (any case, any order). */
export function searchRuns<T extends Listed>(runs: readonly T[], q: string): T[] {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...runs];
  return runs.filter((r) => {
    const title = r.title.toLowerCase();
    return words.every((w) => title.includes(w));
  });
}

const byNewest = (a: Listed, b: Listed) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id;
const byTitle = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** The runs in the chosen order; runs without a pass rate come last either way, newest first among ties. */
export function sortRuns<T extends Listed>(runs: readonly T[], sort: RunsSort = 'newest'): T[] {
  const out = [...runs];
  if (sort === 'newest') return out.sort(byNewest);
  if (sort === 'oldest') return out.sort((a, b) => -byNewest(a, b));
  if (sort === 'title') return out.sort((a, b) => byTitle.compare(a.title, b.title) || byNewest(a, b));
  const sign = sort === 'pass-high' ? -1 : 1;
  return out.sort((a, b) => {
    const ra = passRateOf(a.statusCounts);
    const rb = passRateOf(b.statusCounts);
    if (ra === null || rb === null) return ra === rb ? byNewest(a, b) : ra === null ? 1 : -1;
    return sign * (ra - rb) || byNewest(a, b);
  });
}
