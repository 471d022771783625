/** Timestamps are stored and returned as ISO 8601 UTC strings with milliseconds (they sort as text). */
export const nowIso = (): string => new Date().toISOString();

/** Whether a string is a real calendar day written YYYY-MM-DD (due dates are days, not moments). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Today's calendar day in UTC, YYYY-MM-DD: "overdue" when the caller names no day of its own. */
export const todayUtc = (now: Date = new Date()): string => now.toISOString().slice(0, 10);
