import { describe, expect, it } from 'vitest';
import { failWith, failuresSummary, linkTextOr } from './words';

describe('triage wording', () => {
  it('says one case in the singular and many with their count', () => {
    expect(failWith(1)).toBe('1 case fails with');
    expect(failWith(14)).toBe('14 cases fail with');
  });

  it('sums the cases of every group', () => {
    expect(failuresSummary([{ count: 4 }, { count: 2 }])).toBe('6 failing cases in 2 groups');
    expect(failuresSummary([{ count: 1 }])).toBe('1 failing case in 1 group');
    expect(failuresSummary([])).toBe('0 failing cases in 0 groups');
  });

  it('takes the address as the text of a link given none', () => {
    expect(linkTextOr('  ', ' https://t.example/1 ')).toBe('https://t.example/1');
    expect(linkTextOr('Checkout bug', 'https://t.example/1')).toBe('Checkout bug');
  });
});
