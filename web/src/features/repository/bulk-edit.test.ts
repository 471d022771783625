import { describe, expect, it } from 'vitest';
import { eachCase } from './bulk-edit';

describe('a bulk edit one case at a time', () => {
  it('edits every case, a few at a time, and reports each done', async () => {
    let inFlight = 0;
    let most = 0;
    const progress: number[] = [];
    const failures = await eachCase(
      ['a', 'b', 'c', 'd', 'e', 'f'],
      async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
      },
      (n) => progress.push(n),
      3,
    );
    expect(failures).toEqual([]);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
    expect(most).toBe(3);
  });

  it('keeps going past a failing case and says which failed and why, in the order given', async () => {
    const seen: string[] = [];
    const failures = await eachCase(
      ['a', 'b', 'c', 'd'],
      async (id) => {
        seen.push(id);
        if (id === 'd' || id === 'b') throw new Error(`${id} is not allowed`);
      },
      () => {},
      2,
    );
    expect([...seen].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(failures).toEqual([
      { id: 'b', message: 'b is not allowed' },
      { id: 'd', message: 'd is not allowed' },
    ]);
  });
});
