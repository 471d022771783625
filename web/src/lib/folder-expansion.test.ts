import { beforeEach, describe, expect, it } from 'vitest';
import { readExpanded, writeExpanded } from './folder-expansion';

describe('remembered expanded folders', () => {
  beforeEach(() => localStorage.clear());

  it('reads back what was written, per project, whatever the case of its code', () => {
    writeExpanded('shop', [3, 1], () => true);
    writeExpanded('DOCS', [9], () => true);
    expect([...readExpanded('SHOP')]).toEqual([1, 3]);
    expect([...readExpanded('docs')]).toEqual([9]);
    expect(readExpanded('OTHER').size).toBe(0);
  });

  it('forgets folders that no longer exist, and the entry once nothing is expanded', () => {
    writeExpanded('SHOP', [1, 2, 3], (id) => id !== 2);
    expect([...readExpanded('SHOP')]).toEqual([1, 3]);
    writeExpanded('SHOP', [], () => true);
    expect(localStorage.getItem('casebook.folders.expanded.SHOP')).toBeNull();
  });

  it('reads a damaged entry as nothing expanded', () => {
    localStorage.setItem('casebook.folders.expanded.SHOP', '{not json');
    expect(readExpanded('SHOP').size).toBe(0);
    localStorage.setItem('casebook.folders.expanded.SHOP', '["a", 4, 1.5]');
    expect([...readExpanded('SHOP')]).toEqual([4]);
  });
});
