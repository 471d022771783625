import { describe, expect, it } from 'vitest';
import { isComplete, isOverdue, todayLocal } from './overdue';

describe('overdue milestones', () => {
  const open = { closedAt: null };
  const closed = { closedAt: '2026-01-02T00:00:00.000Z' };

  it("writes the reader's today as YYYY-MM-DD", () => {
    expect(todayLocal(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05');
  });

  it('is overdue from the day after the due date while runs are open or there are none', () => {
    expect(isOverdue({ due: '2026-03-01' }, [open], '2026-03-02')).toBe(true);
    expect(isOverdue({ due: '2026-03-01' }, [], '2026-03-02')).toBe(true);
    expect(isOverdue({ due: '2026-03-01' }, [open], '2026-03-01')).toBe(false);
  });

  it('is never overdue without a due date, archived, or complete (every run closed)', () => {
    expect(isOverdue({}, [open], '2030-01-01')).toBe(false);
    expect(isOverdue({ due: '2026-03-01', archivedAt: '2026-03-05' }, [open], '2026-04-01')).toBe(false);
    expect(isOverdue({ due: '2026-03-01' }, [closed, closed], '2026-04-01')).toBe(false);
    expect(isComplete([closed, open])).toBe(false);
    expect(isComplete([])).toBe(false);
  });
});
