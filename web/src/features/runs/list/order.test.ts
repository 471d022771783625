import { describe, expect, it } from 'vitest';
import { passRateOf, searchRuns, sortRuns } from './order';

const counts = (passed: number, failed: number, open = 0, skipped = 0) => ({
  all: passed + failed + open + skipped,
  passed,
  failed,
  open,
  skipped,
});
const runs = [
  { id: 1, title: 'Smoke 9', createdAt: '2026-01-01T10:00:00Z', statusCounts: counts(1, 1) },
  { id: 2, title: 'smoke 10', createdAt: '2026-01-03T10:00:00Z', statusCounts: counts(3, 1) },
  { id: 3, title: 'Regression login', createdAt: '2026-01-02T10:00:00Z', statusCounts: counts(0, 0, 4) },
  { id: 4, title: 'Login smoke', createdAt: '2026-01-02T10:00:00Z', statusCounts: counts(0, 2, 1, 5) },
];
const ids = (list: { id: number }[]) => list.map((r) => r.id);

describe('a run’s pass rate', () => {
  it('is passed of the results that count, leaving open and skipped cases out', () => {
    expect(passRateOf(counts(3, 1, 10, 6))).toBe(0.75);
  });

  it('is null while nothing counts, never zero', () => {
    expect(passRateOf(counts(0, 0, 3, 2))).toBeNull();
    expect(passRateOf(null)).toBeNull();
  });
});

describe('the runs list’s search', () => {
  it('keeps runs whose title holds every word, in any case and order', () => {
    expect(ids(searchRuns(runs, 'SMOKE login'))).toEqual([4]);
    expect(ids(searchRuns(runs, 'smoke'))).toEqual([1, 2, 4]);
    expect(ids(searchRuns(runs, '  '))).toEqual([1, 2, 3, 4]);
  });
});

describe('the runs list’s order', () => {
  it('is newest first by default, the later id first on the same moment', () => {
    expect(ids(sortRuns(runs))).toEqual([2, 4, 3, 1]);
    expect(ids(sortRuns(runs, 'oldest'))).toEqual([1, 3, 4, 2]);
  });

  it('sorts titles as people read them: any case, numbers by value', () => {
    expect(ids(sortRuns(runs, 'title'))).toEqual([4, 3, 1, 2]);
  });

  it('sorts by pass rate either way, runs without one last', () => {
    expect(ids(sortRuns(runs, 'pass-high'))).toEqual([2, 1, 4, 3]);
    expect(ids(sortRuns(runs, 'pass-low'))).toEqual([4, 1, 2, 3]);
  });
});
