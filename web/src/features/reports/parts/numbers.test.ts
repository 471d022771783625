import { describe, expect, it } from 'vitest';
import { formatDuration, formatPassRate } from './numbers';

describe('report numbers', () => {
  it('writes durations in the largest units that keep them short', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1250)).toBe('1.3 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(3_780_000)).toBe('1 h 3 min');
  });

  it('says a pass rate that counts nothing as a dash, not as 0 %', () => {
    expect(formatPassRate(null)).toBe('—');
    expect(formatPassRate(0)).toBe('0%');
    expect(formatPassRate(2 / 3)).toBe('66.7%');
  });
});
