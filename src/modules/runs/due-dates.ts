import type { ErrorDetail } from '../../errors.js';
import { isCalendarDate, todayUtc } from '../../lib/time.js';

// Due dates of runs and of case assignments (docs/api-decisions.md#due-dates): their one body rule, beside both
// writers (run creation and edit, assignments) without either importing the other.

/**
 * A due date of a body (docs/api-decisions.md#due-dates): a real calendar day YYYY-MM-DD, or null (none);
 * undefined when not given. A bad one is pushed onto `errors` under `path`.
 */
export function checkDueAt(
  value: string | null | undefined,
  path: string,
  errors: ErrorDetail[],
): string | null | undefined {
  if (value === undefined || value === null) return value;
  const day = value.trim();
  if (isCalendarDate(day)) return day;
  errors.push({ path, message: 'dueAt must be a calendar date written YYYY-MM-DD, or null' });
  return undefined;
}

/**
 * A run's `dueAt` and `overdue` as reads answer them: both left out when it has none (#response-shapes). `overdue`
 * is the API's reading on the UTC day; the pages read `dueAt` against the reader's own day.
 */
export const runDueFields = (row: { due_at: string | null; closed_at: string | null }) =>
  row.due_at === null
    ? {}
    : { dueAt: row.due_at, overdue: row.closed_at === null && row.due_at < todayUtc() };
