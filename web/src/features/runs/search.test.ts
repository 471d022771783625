import { describe, expect, it } from 'vitest';
import { validateRunPageSearch, validateRunsPageSearch } from './search';

describe('the run page’s address', () => {
  it('keeps the filters a shared link carries', () => {
    expect(
      validateRunPageSearch({
        tcase: '12',
        status: 'failed,custom1',
        q: 'login',
        priority: 'high,low',
        tag: 3,
      }),
    ).toEqual({ tcase: 12, status: 'failed,custom1', q: 'login', priority: 'high,low', tag: 3 });
  });

  it('drops what is malformed instead of failing, keeping the valid part of a list', () => {
    expect(
      validateRunPageSearch({
        tcase: '-1',
        status: 'failed,<script>',
        q: '   ',
        priority: 'urgent',
        tag: 'x',
      }),
    ).toEqual({ status: 'failed' });
  });
});

describe('the runs list’s address', () => {
  it('keeps plain ids and names and drops anything else', () => {
    expect(validateRunsPageSearch({ milestone: 'm-1', assignee: 7, type: 'a b' })).toEqual({
      milestone: 'm-1',
      assignee: '7',
    });
  });
});

describe('the runs list’s search and sort in the address', () => {
  it('keeps the searched words and a known sort', () => {
    expect(validateRunsPageSearch({ q: 'smoke login', sort: 'pass-low' })).toEqual({
      q: 'smoke login',
      sort: 'pass-low',
    });
  });

  it('drops an unknown sort, the default one and blank words', () => {
    expect(validateRunsPageSearch({ q: '  ', sort: 'random' })).toEqual({});
    expect(validateRunsPageSearch({ sort: 'newest' })).toEqual({});
  });
});
