/** Numbers as every report page writes them: one locale's grouping (`2,000`), a pass rate as a percentage. */
const integer = new Intl.NumberFormat(undefined);
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export const formatCount = (n: number) => integer.format(n);

/** `null` (nothing counts: every case open or skipped) reads as a dash, not as 0 %. */
export const formatPassRate = (rate: number | null) => (rate === null ? '—' : percent.format(rate));

export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
export const formatDate = (iso: string) => dateOnly.format(new Date(iso));

/** Milliseconds as a person reads a duration: `1 h 5 min`, `3 min 20 s`, `12 s`, `0 s`. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return m > 0 ? `${formatCount(h)} h ${m} min` : `${formatCount(h)} h`;
  if (m > 0) return rest > 0 ? `${m} min ${rest} s` : `${m} min`;
  return `${rest} s`;
}
