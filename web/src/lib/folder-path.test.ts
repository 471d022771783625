import { describe, expect, it } from 'vitest';
import { folderPath, folderPaths, pathText, shortenPath, shortPathText } from './folder-path';

const folders = [
  { id: 1, parentId: 0, title: 'Shop' },
  { id: 2, parentId: 1, title: 'Payments and refunds' },
  { id: 3, parentId: 2, title: 'Checkout' },
  { id: 4, parentId: 3, title: 'Cards' },
  { id: 5, parentId: 0, title: 'Docs' },
];
const byId = new Map(folders.map((f) => [f.id, f]));

describe('folderPath', () => {
  it('answers the titles from the root down to the folder', () => {
    expect(folderPath(byId, 4)).toEqual(['Shop', 'Payments and refunds', 'Checkout', 'Cards']);
    expect(folderPath(byId, 5)).toEqual(['Docs']);
  });

  it('answers an empty path for an unknown folder and stops at a missing parent', () => {
    expect(folderPath(byId, 99)).toEqual([]);
    expect(folderPath(new Map([[7, { id: 7, parentId: 42, title: 'Orphan' }]]), 7)).toEqual(['Orphan']);
  });

  it('stops on a cycle instead of looping', () => {
    const loop = new Map([
      [1, { id: 1, parentId: 2, title: 'A' }],
      [2, { id: 2, parentId: 1, title: 'B' }],
    ]);
    expect(folderPath(loop, 1)).toEqual(['B', 'A']);
  });
});

describe('folderPaths', () => {
  it('answers every folder path by id, the same as folderPath one by one', () => {
    const all = folderPaths(folders);
    expect(all.size).toBe(5);
    for (const f of folders) expect(all.get(f.id)).toEqual(folderPath(byId, f.id));
  });
});

describe('shortenPath', () => {
  const long = ['Shop', 'Payments and refunds', 'Checkout', 'Cards'];

  it('keeps a path that fits whole', () => {
    expect(shortenPath(long, 100)).toEqual(long);
    expect(pathText(shortenPath(['Shop', 'Cards']))).toBe('Shop / Cards');
  });

  it('keeps the top folder and as many folders from the leaf up as fit, with … between', () => {
    expect(pathText(shortenPath(long, 30))).toBe('Shop / … / Checkout / Cards');
    expect(pathText(shortenPath(long, 20))).toBe('Shop / … / Cards');
  });

  it('never drops the top folder or the leaf, even when they alone are too long', () => {
    expect(shortenPath(long, 5)).toEqual(['Shop', '…', 'Cards']);
    expect(shortenPath(['A very long top folder name', 'An even longer leaf folder name'], 10)).toEqual([
      'A very long top folder name',
      'An even longer leaf folder name',
    ]);
  });

  it('says whether anything was left out', () => {
    expect(shortPathText(long, 30)).toEqual({ text: 'Shop / … / Checkout / Cards', shortened: true });
    expect(shortPathText(long, 100)).toEqual({ text: pathText(long), shortened: false });
  });
});
