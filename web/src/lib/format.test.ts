import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCount,
  formatCountOf,
  formatDay,
  formatDuration,
  formatPassRate,
  relativeWhen,
} from './format';

// The tests run in en-US (the web project's locale); what they check is the shape of each kind of figure.
describe('one way to write figures', () => {
  it('groups the digits of counts and says one thing in the singular', () => {
    expect(formatCount(2000)).toBe('2,000');
    expect(formatCount(0)).toBe('0');
    expect(formatCountOf(1, 'test case')).toBe('1 test case');
    expect(formatCountOf(2000, 'test case')).toBe('2,000 test cases');
  });

  it('writes a pass rate to a tenth, or whole for a headline, and nothing counted as a dash', () => {
    expect(formatPassRate(2 / 3)).toBe('66.7%');
    expect(formatPassRate(0.625)).toBe('62.5%');
    expect(formatPassRate(2 / 3, 'whole')).toBe('67%');
    expect(formatPassRate(0)).toBe('0%');
    expect(formatPassRate(1, 'whole')).toBe('100%');
    expect(formatPassRate(null)).toBe('—');
    expect(formatPassRate(undefined, 'whole')).toBe('—');
  });

  it('writes durations in the largest units that keep them short', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(2500)).toBe('2.5 s');
    expect(formatDuration(12_000)).toBe('12 s');
    expect(formatDuration(59_960)).toBe('1 min');
    expect(formatDuration(90_000)).toBe('1 min 30 s');
    expect(formatDuration(120_000)).toBe('2 min');
    expect(formatDuration(3_780_000)).toBe('1 h 3 min');
    expect(formatDuration(7_200_000)).toBe('2 h');
  });

  it('writes file sizes in bytes, KB or MB', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(12 * 1024)).toBe('12 KB');
    expect(formatBytes(3.4 * 1024 * 1024)).toBe('3.4 MB');
  });

  it('reads a report day as the same day in every time zone', () => {
    expect(formatDay('2026-03-01')).toBe(
      new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(
        Date.UTC(2026, 2, 1),
      ),
    );
    expect(formatDay('2026-03-01')).toContain('2026');
  });

  it('says a recent time as people do and an old one as a date', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(relativeWhen('2026-11-26T11:59:30Z', now).text).toBe('just now');
    expect(relativeWhen('2026-11-26T11:55:00Z', now).text).toBe('5 minutes ago');
    expect(relativeWhen('2026-11-25T12:00:00Z', now).text).toBe('yesterday');
    expect(relativeWhen('2026-10-01T12:00:00Z', now).text).toContain('2026');
  });
});
