import { PRIORITIES } from '../../api/priorities';
import type { CaseType, ListSearch } from './api';

/**
 * The repository page's state that belongs in its address: a filtered view can be shared and reloaded.
 * Filters with several values are lists (OR within a filter, AND across them, as the API reads them);
 * `cf_<systemName>` keys filter by a custom field, named as the API names them.
 */
export interface RepositorySearch extends ListSearch {
  folder?: number;
  sort?: SortField;
}

export const SORT_FIELDS = {
  seq: 'Number',
  title: 'Title',
  priority: 'Priority',
  updatedAt: 'Last updated',
  createdAt: 'Created',
} as const;
export type SortField = keyof typeof SORT_FIELDS;

/** More values than anyone picks by hand; bounds what an edited address can ask for. */
const MAX_VALUES = 50;

const pick = <T extends string>(v: unknown, allowed: readonly T[]): T | undefined =>
  allowed.includes(v as T) ? (v as T) : undefined;
const id = (v: unknown): number | undefined => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};
const text = (v: unknown): string | undefined =>
  (typeof v === 'string' || typeof v === 'number') && String(v).trim()
    ? String(v).trim().slice(0, 255)
    : undefined;

/** A list from an address: `[a,b]` (what the page writes), or one value, or `a,b` typed by hand. */
function list<T>(v: unknown, one: (x: unknown) => T | undefined): T[] | undefined {
  const raw: unknown[] = Array.isArray(v)
    ? v
    : typeof v === 'string'
      ? v.split(',')
      : v === undefined
        ? []
        : [v];
  const out = [...new Set(raw.map(one).filter((x): x is T => x !== undefined))].slice(0, MAX_VALUES);
  return out.length > 0 ? out : undefined;
}

const TYPES: readonly CaseType[] = ['standalone', 'template', 'filled'];
/** A custom field's system name, as the API's `cf_` parameters take it. */
const CF_KEY = /^cf_[A-Za-z0-9_-]{1,255}$/;

export function validateRepositorySearch(search: Record<string, unknown>): RepositorySearch {
  const out: RepositorySearch = {
    folder: id(search.folder),
    q: typeof search.q === 'string' && search.q ? search.q.slice(0, 255) : undefined,
    tag: list(search.tag, id),
    priority: list(search.priority, (x) => pick(x, PRIORITIES)),
    type: list(search.type, (x) => pick(x, TYPES)),
    sort: pick(search.sort, Object.keys(SORT_FIELDS) as SortField[]),
    order: pick(search.order, ['asc', 'desc']),
  };
  for (const [k, v] of Object.entries(search)) {
    if (CF_KEY.test(k)) out[k as `cf_${string}`] = list(v, text);
  }
  // Absent keys stay out of the address.
  for (const k of Object.keys(out) as (keyof RepositorySearch)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** Whether the address narrows the list at all (the empty state and "Clear filters" say so). */
export const hasFilters = (s: RepositorySearch): boolean =>
  Object.entries(s).some(([k, v]) => k !== 'sort' && k !== 'order' && v !== undefined);
