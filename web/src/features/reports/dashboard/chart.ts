import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';
import { formatCount } from '../../../lib/format';

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
    .map((s) => `${formatCount(counts![s.id])} ${s.name}`);
  return parts.length ? parts.join(', ') : 'nothing yet';
}
