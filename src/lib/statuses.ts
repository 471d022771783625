/**
 * The nine status ids (docs/api-decisions.md#shapes, D23), the one list every layer uses: the API's enums and
 * status settings (modules/statuses), the run's counters (`runs.cnt_<id>`) and the results that move them.
 */
export const BUILT_IN_STATUS_IDS = ['open', 'passed', 'failed', 'blocked', 'skipped'] as const;
export const CUSTOM_STATUS_IDS = ['custom1', 'custom2', 'custom3', 'custom4'] as const;
export const STATUS_IDS = [...BUILT_IN_STATUS_IDS, ...CUSTOM_STATUS_IDS] as const;
export type StatusId = (typeof STATUS_IDS)[number];

/** How many cases of a run are (or move by) each status. */
export type StatusCounts = Partial<Record<StatusId, number>>;

/** Adds `by` to `status` in `counts` (a status outside the nine is ignored: it has no counter). */
export function bumpStatus(counts: StatusCounts, status: string, by: number): void {
  if (!(STATUS_IDS as readonly string[]).includes(status)) return;
  const s = status as StatusId;
  counts[s] = (counts[s] ?? 0) + by;
}
