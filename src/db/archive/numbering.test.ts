import { describe, expect, it } from 'vitest';
import { Numbering } from './numbering.js';

describe("the export's archive numbers", () => {
  it('numbers increasing integer ids in the order they come, and finds each', () => {
    const n = new Numbering<number>();
    const ids = Array.from({ length: 1000 }, (_, i) => 7 + i * 3);
    ids.forEach((id, i) => expect(n.add(id)).toBe(i + 1));
    ids.forEach((id, i) => expect(n.of(id)).toBe(i + 1));
    expect([n.of(8), n.of(0), n.of(99999), n.of(null), n.of(undefined)]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(n.size).toBe(1000);
    expect(n.ids()).toEqual(ids);
  });

  it('keeps its numbers when integer ids come out of order, and numbers string ids', () => {
    const n = new Numbering<number>();
    for (const id of [5, 9, 2, 40, 3]) n.add(id);
    expect([5, 9, 2, 40, 3].map((id) => n.of(id))).toEqual([1, 2, 3, 4, 5]);
    expect(n.ids()).toEqual([5, 9, 2, 40, 3]);
    const s = new Numbering<string>();
    for (const id of ['b', 'a', 'c']) s.add(id);
    expect([s.of('a'), s.of('b'), s.of('c'), s.of('d')]).toEqual([2, 1, 3, null]);
  });
});
