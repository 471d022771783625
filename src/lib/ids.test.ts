import { describe, expect, it } from 'vitest';
import { newOrderedId, newTcaseId } from './ids.js';

describe('time-ordered ids', () => {
  it('sort in the order they were made, within one millisecond and across milliseconds', () => {
    const now = Date.UTC(2026, 10, 22);
    const made = [
      ...Array.from({ length: 50 }, () => newOrderedId(now)),
      ...Array.from({ length: 50 }, () => newOrderedId(now + 1)),
    ];
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it('keep their shapes: a test-case id is `t` and 19 more characters, never all digits', () => {
    const id = newTcaseId();
    expect(id).toMatch(/^t[0-9a-z]{19}$/);
    expect(newOrderedId()).toMatch(/^o[0-9a-z]{19}$/);
  });
});
