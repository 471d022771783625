import { describe, expect, it } from 'vitest';
import { isRunOverdue } from './due';

describe('due dates', () => {
  it('marks an open run overdue only after its day, and never a closed one', () => {
    expect(isRunOverdue({ dueAt: '2026-03-09' }, '2026-03-10')).toBe(true);
    expect(isRunOverdue({ dueAt: '2026-03-10' }, '2026-03-10')).toBe(false);
    expect(isRunOverdue({ dueAt: '2026-03-09', closedAt: '2026-03-11T00:00:00Z' }, '2026-03-12')).toBe(false);
    expect(isRunOverdue({}, '2026-03-12')).toBe(false);
  });
});
