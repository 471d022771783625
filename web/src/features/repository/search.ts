import type { CaseType, Priority } from './repository-api';

/** The repository page's state that belongs in its address: a filtered view can be shared and reloaded. */
export interface RepositorySearch {
  folder?: number;
  q?: string;
  tag?: number;
  priority?: Priority;
  type?: CaseType;
  sort?: SortField;
  order?: 'asc' | 'desc';
}

export const SORT_FIELDS = {
  seq: 'Number',
  title: 'Title',
  priority: 'Priority',
  updatedAt: 'Last updated',
  createdAt: 'Created',
} as const;
export type SortField = keyof typeof SORT_FIELDS;

const pick = <T extends string>(v: unknown, allowed: readonly T[]): T | undefined =>
  allowed.includes(v as T) ? (v as T) : undefined;
const id = (v: unknown): number | undefined => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export function validateRepositorySearch(search: Record<string, unknown>): RepositorySearch {
  const out: RepositorySearch = {
    folder: id(search.folder),
    q: typeof search.q === 'string' && search.q ? search.q.slice(0, 255) : undefined,
    tag: id(search.tag),
    priority: pick(search.priority, ['high', 'medium', 'low']),
    type: pick(search.type, ['standalone', 'template', 'filled']),
    sort: pick(search.sort, Object.keys(SORT_FIELDS) as SortField[]),
    order: pick(search.order, ['asc', 'desc']),
  };
  // Absent keys stay out of the address.
  for (const k of Object.keys(out) as (keyof RepositorySearch)[]) if (out[k] === undefined) delete out[k];
  return out;
}
