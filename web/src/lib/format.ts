/**
 * Every number, percentage, duration and date of the web app, written one way: the reader's locale groups digits
 * (`2,000`), a pass rate is a percentage, a duration is in the largest units that keep it short, a date is in the
 * reader's words. Pages call these rather than `toLocaleString` or their own `Intl` formats.
 */
const count = new Intl.NumberFormat(undefined);
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const percentTenth = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const percentWhole = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dayOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const fullDateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** A count with the reader's grouping: `2,000`. */
export const formatCount = (n: number): string => count.format(n);

/** "1 test case", "2,000 test cases": a count with its noun, singular for one. */
export const formatCountOf = (n: number, one: string, many = `${one}s`): string =>
  `${formatCount(n)} ${n === 1 ? one : many}`;

/**
 * A pass rate (0–1) as a percentage, to a tenth (`66.7%`); `whole` where a figure stands alone in a chart or a
 * headline (`67%`). `null` (nothing counts: every case open or skipped) reads as a dash, never as 0 %.
 */
export function formatPassRate(
  rate: number | null | undefined,
  precision: 'tenth' | 'whole' = 'tenth',
): string {
  if (rate === null || rate === undefined) return '—';
  return (precision === 'whole' ? percentWhole : percentTenth).format(rate);
}

/** Milliseconds as a person reads a duration: `850 ms`, `2.5 s`, `1 min 30 s`, `2 min`, `1 h 5 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${count.format(Math.round(ms))} ms`;
  // Under a minute a tenth still says something; 59.96 s rounds up to a minute, not to "60 s".
  if (Math.round(ms / 100) < 600) return `${decimal.format(ms / 1000)} s`;
  const whole = Math.round(ms / 1000);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (h > 0) return m ? `${count.format(h)} h ${m} min` : `${count.format(h)} h`;
  return rest ? `${m} min ${rest} s` : `${m} min`;
}

/** A file's size: `512 bytes`, `12 KB`, `3.4 MB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${count.format(n)} ${n === 1 ? 'byte' : 'bytes'}`;
  if (n < 1024 * 1024) return `${count.format(Math.round(n / 1024))} KB`;
  return `${decimal.format(n / (1024 * 1024))} MB`;
}

/** A moment (ISO time) as the reader's date and time: `Nov 26, 2026, 1:05 PM`. */
export const formatDateTime = (iso: string | Date): string => dateTime.format(new Date(iso));

/** A moment (ISO time) as the reader's date, in their time zone: `Nov 26, 2026`. */
export const formatDate = (iso: string | Date): string => dateOnly.format(new Date(iso));

/** The reader's today as a calendar date, YYYY-MM-DD (a due date is a day, not a moment). */
export function todayLocal(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** A `YYYY-MM-DD` day of the reports (a UTC day) as a date, the same day in every time zone. */
export const formatDay = (day: string): string => dayOnly.format(new Date(`${day.slice(0, 10)}T00:00:00Z`));

/** A moment in full, for a tooltip: `Thursday, November 26, 2026 at 1:05:00 PM UTC`. */
export const formatFullDateTime = (iso: string | Date): string => fullDateTime.format(new Date(iso));

/** A time as people say it ("just now", "5 minutes ago", "yesterday"; a date after a week) and in full. */
export function relativeWhen(iso: string, now = Date.now()): { text: string; full: string } {
  const at = new Date(iso);
  const seconds = Math.round((at.getTime() - now) / 1000);
  const ago = -seconds;
  const text =
    ago < 45
      ? 'just now'
      : ago < 3600
        ? relative.format(Math.round(seconds / 60), 'minute')
        : ago < 86400
          ? relative.format(Math.round(seconds / 3600), 'hour')
          : ago < 7 * 86400
            ? relative.format(Math.round(seconds / 86400), 'day')
            : dateTime.format(at);
  return { text, full: fullDateTime.format(at) };
}
