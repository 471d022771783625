/** A page's address search as a saved view keeps it: absent keys left out (the API takes no `undefined`). */
export function filtersOf(search: object): Record<string, string | number | (string | number)[]> {
  const out: Record<string, string | number | (string | number)[]> = {};
  for (const [k, v] of Object.entries(search)) {
    if (typeof v === 'string' || typeof v === 'number') out[k] = v;
    else if (Array.isArray(v) && v.length > 0) out[k] = v as (string | number)[];
  }
  return out;
}

/** One spelling of a set of filters: keys sorted, lists sorted (a list's order filters nothing). */
function canonical(filters: object): string {
  const entries = Object.entries(filtersOf(filters))
    .map(([k, v]): [string, unknown] => [k, Array.isArray(v) ? [...v].map(String).sort() : String(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

/** Whether two searches filter and sort alike: what makes a saved view the active one. */
export const sameFilters = (a: object, b: object): boolean => canonical(a) === canonical(b);
