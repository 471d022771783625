/**
 * Numbers on the report pages, written one way: counts with the reader's grouping (2,000), the pass rate as a
 * percentage, durations in the largest units that keep them short, dates in the reader's words.
 */
const count = new Intl.NumberFormat(undefined);
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

export const formatCount = (n: number): string => count.format(n);

/** passRate is null when nothing counts (all open or skipped): said as a dash, never as 0 %. */
export const formatPassRate = (rate: number | null | undefined): string =>
  rate === null || rate === undefined ? '—' : percent.format(rate);

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${count.format(Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${decimal.format(s)} s`;
  const whole = Math.round(s);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (h > 0) return m ? `${count.format(h)} h ${m} min` : `${count.format(h)} h`;
  return rest ? `${m} min ${rest} s` : `${m} min`;
}

export const formatDateTime = (iso: string): string => dateTime.format(new Date(iso));

/** A `YYYY-MM-DD` day of the reports (UTC), as a date. */
export const formatDay = (day: string): string => dateOnly.format(new Date(`${day}T00:00:00Z`));
