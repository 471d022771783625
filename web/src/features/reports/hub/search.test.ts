import { describe, expect, it } from 'vitest';
import { validateReportsSearch } from './search';

describe('the reports page address', () => {
  it('keeps the choices it knows and drops the rest', () => {
    expect(validateReportsSearch({ last: '50', by: 'day', milestone: '3', config: 'chrome-1' })).toEqual({
      last: 50,
      by: 'day',
      milestone: 3,
      config: 'chrome-1',
    });
    expect(validateReportsSearch({ last: '37', by: 'week', milestone: '-1', config: 'a b', x: 1 })).toEqual(
      {},
    );
  });

  it('leaves the default number of runs out of the address', () => {
    expect(validateReportsSearch({ last: 20 })).toEqual({});
  });
});
