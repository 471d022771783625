import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';

/** Every figure of the dashboard is written one way: grouped digits, pass rates as whole percentages. */
export const numberFormat = new Intl.NumberFormat();
const percentFormat = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export const formatNumber = (n: number) => numberFormat.format(n);
/** A pass rate (0–1), or a dash when nothing counted (all open or skipped). */
export const formatRate = (rate: number | null) => (rate === null ? '—' : percentFormat.format(rate));
export const formatDay = (iso: string) => dayFormat.format(new Date(iso));

/** Milliseconds as people read a duration: 850 ms, 12.4 s, 3 min 5 s. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${numberFormat.format(Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const min = Math.floor(ms / 60_000);
  return `${numberFormat.format(min)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A folder's whole path, root first, as the page writes it. */
export const pathText = (path: string[]) => (path.length ? path.join(' / ') : '(no folder)');

export type Counts = Record<string, number>;

/** The statuses shown in charts: the tenant's order with `open` last (it sits on top of a stack). */
export function chartStatuses(statuses: StatusSetting[]): StatusSetting[] {
  return [...statuses.filter((s) => s.id !== 'open'), ...statuses.filter((s) => s.id === 'open')];
}

export const fillOf = (s: StatusSetting) => STATUS_FILL[s.color] ?? STATUS_FILL.gray;

/** "3 Passed, 1 Failed": the non-zero counts in the statuses' own names. */
export function countsText(counts: Counts | null | undefined, statuses: StatusSetting[]): string {
  const parts = chartStatuses(statuses)
    .filter((s) => counts?.[s.id])
    .map((s) => `${formatNumber(counts![s.id])} ${s.name}`);
  return parts.length ? parts.join(', ') : 'nothing yet';
}
