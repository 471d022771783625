/**
 * The reports page keeps its choices in the address, so a lead can send the view they look at and a reload
 * keeps it. Anything unknown or malformed is dropped, never an error.
 */
export const LAST_CHOICES = [10, 20, 50, 100, 200] as const;
/** The API's own default (extensions.md §6): left out of the address. */
export const DEFAULT_LAST = 20;

export interface ReportsSearch {
  /** How many of the latest runs (days, for the trend by day) the reports look at. */
  last?: number;
  /** The trend by UTC day instead of by run. */
  by?: 'day';
  /** The trend of one milestone's runs. */
  milestone?: number;
  /** The trend of one configuration's runs. */
  config?: string;
}

export function validateReportsSearch(search: Record<string, unknown>): ReportsSearch {
  const last = Number(search.last);
  const milestone = Number(search.milestone);
  const config = typeof search.config === 'string' ? search.config : undefined;
  return {
    ...((LAST_CHOICES as readonly number[]).includes(last) && last !== DEFAULT_LAST ? { last } : {}),
    ...(search.by === 'day' ? { by: 'day' as const } : {}),
    ...(Number.isInteger(milestone) && milestone > 0 ? { milestone } : {}),
    ...(config && /^[A-Za-z0-9_-]{1,64}$/.test(config) ? { config } : {}),
  };
}
