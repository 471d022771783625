import { todayLocal } from '../../../lib/format';

/*
 * docs/api-decisions.md#due-dates: overdue = a due date (YYYY-MM-DD) before the reader's today and the work not
 * done. The pages read it against the reader's own calendar day, not the API's UTC `overdue` (My work sends that
 * day to the API, which marks its cases with it).
 */

/** A run is overdue while open past its due date. */
export const isRunOverdue = (
  run: { dueAt?: string; closedAt?: string | null },
  today: string = todayLocal(),
): boolean => !!run.dueAt && !run.closedAt && run.dueAt < today;
