import { formatDay } from '../../../lib/format';

/** "Due Dec 24, 2026" and, when overdue, the word "Overdue" in a badge (never colour alone). */
export function DueDate({ dueAt, overdue }: { dueAt: string; overdue: boolean }) {
  return (
    <span className="due-date">
      Due <time dateTime={dueAt}>{formatDay(dueAt)}</time>
      {overdue && <span className="badge badge-overdue">Overdue</span>}
    </span>
  );
}
