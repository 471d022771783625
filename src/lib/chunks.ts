/**
 * Rows or ids per statement when a list is cut up: SQLite and PostgreSQL both cap the bound parameters of one
 * statement, so big `in (...)` lists and multi-row inserts go in pieces of this size.
 */
export const CHUNK = 1000;

/** `items` in consecutive pieces of at most `size`; none for an empty list. */
export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
