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

/**
 * Rows per multi-row statement of `columns` bound values each, for the hot writes of thousands of rows (results):
 * SQLite binds at most 32,766 variables per statement and PostgreSQL 65,535; a budget of 16,000 keeps both far
 * away while writing thousands of rows in a few statements.
 */
export const rowsPerStatement = (columns: number): number => Math.max(1, Math.floor(16_000 / columns));
