import { DueDate } from './DueDate';
import { isRunOverdue } from './due';

/** Under the run page's title: its milestone and its due date (overdue said in words). */
export function RunSubtitle({
  milestone,
  dueAt,
  closedAt,
}: {
  milestone: { title: string } | null;
  dueAt?: string;
  closedAt: string | null;
}) {
  return (
    <>
      {milestone && <p className="page-subtitle">Milestone: {milestone.title}</p>}
      {dueAt && (
        <p className="page-subtitle" data-testid="run-due">
          <DueDate dueAt={dueAt} overdue={isRunOverdue({ dueAt, closedAt })} />
        </p>
      )}
    </>
  );
}
