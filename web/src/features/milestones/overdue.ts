import { todayLocal } from '../../lib/format';

export { todayLocal };
interface MilestoneLike {
  due?: string;
  archivedAt?: string;
}

/**
 * docs/api-decisions.md#plans-and-milestones: a milestone is complete when it has runs and every one is closed;
 * it is overdue when its due date is before today, it is not archived and it is not complete.
 */
export function isComplete(runs: readonly { closedAt?: string | null }[]): boolean {
  return runs.length > 0 && runs.every((r) => !!r.closedAt);
}

export function isOverdue(
  milestone: MilestoneLike,
  runs: readonly { closedAt?: string | null }[],
  today: string = todayLocal(),
): boolean {
  return !!milestone.due && milestone.due < today && !milestone.archivedAt && !isComplete(runs);
}
