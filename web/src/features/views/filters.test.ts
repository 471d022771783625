import { describe, expect, it } from 'vitest';
import { filtersOf, sameFilters } from './filters';

describe('saved view filters', () => {
  it('leaves absent keys and empty lists out of what is saved', () => {
    expect(filtersOf({ q: 'login', tag: [], folder: undefined, priority: ['high'] })).toEqual({
      q: 'login',
      priority: ['high'],
    });
  });

  it('takes two searches as alike whatever the order of their keys and list values', () => {
    expect(sameFilters({ q: 'a', tag: [2, 1] }, { tag: [1, 2], q: 'a', folder: undefined })).toBe(true);
    expect(sameFilters({ milestone: '3' }, { milestone: 3 })).toBe(true);
  });

  it('tells searches apart by any key or value, the sort included', () => {
    expect(sameFilters({ q: 'a' }, { q: 'a', sort: 'title' })).toBe(false);
    expect(sameFilters({ tag: [1] }, { tag: [1, 2] })).toBe(false);
    expect(sameFilters({}, { q: 'a' })).toBe(false);
    expect(sameFilters({}, {})).toBe(true);
  });
});
