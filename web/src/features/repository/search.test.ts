import { describe, expect, it } from 'vitest';
import { hasFilters, validateRepositorySearch } from './search';

describe('the repository page’s address', () => {
  it('reads lists written by the page, typed by hand, or given once', () => {
    expect(validateRepositorySearch({ tag: [1, 2], priority: 'high,low', type: 'template' })).toEqual({
      tag: [1, 2],
      priority: ['high', 'low'],
      type: ['template'],
    });
  });

  it('drops unknown values and keys, and repeated values', () => {
    expect(
      validateRepositorySearch({ folder: '0', tag: ['1', '1', 'x'], sort: 'colour', order: 'up', other: 1 }),
    ).toEqual({ tag: [1] });
  });

  it('keeps custom field filters by their system name, trimmed', () => {
    expect(validateRepositorySearch({ cf_env: ' staging ', 'cf_bad key': 'x' })).toEqual({
      cf_env: ['staging'],
    });
  });

  it('counts sorting as no filter, so the list says it is empty rather than filtered', () => {
    expect(hasFilters(validateRepositorySearch({ sort: 'title', order: 'desc' }))).toBe(false);
    expect(hasFilters(validateRepositorySearch({ q: 'login' }))).toBe(true);
  });
});
