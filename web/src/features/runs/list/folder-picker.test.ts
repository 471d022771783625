import { describe, expect, it } from 'vitest';
import { checkStates, chosenCases, pickerTree, toggleFolder, visibleRows } from './folder-picker';

// Shop (pos 0) > Checkout > Cards, Shop > Account; Docs (pos 1).
const tree = pickerTree([
  { id: 5, parentId: 0, pos: 1, title: 'Docs' },
  { id: 1, parentId: 0, pos: 0, title: 'Shop' },
  { id: 3, parentId: 2, pos: 0, title: 'Cards' },
  { id: 2, parentId: 1, pos: 0, title: 'Checkout' },
  { id: 4, parentId: 1, pos: 1, title: 'Account' },
]);
const counts = new Map([
  [1, { subtree: 10 }],
  [2, { subtree: 6 }],
  [3, { subtree: 4 }],
  [4, { subtree: 3 }],
  [5, { subtree: 2 }],
]);
const states = (chosen: number[]) => Object.fromEntries(checkStates(tree, chosen));

describe('new-run folder picker', () => {
  it('shows the roots and the children of expanded folders, with their level and place among siblings', () => {
    const line = (rows: ReturnType<typeof visibleRows>) =>
      rows.map(
        (r) =>
          `${r.level}:${r.folder.title} ${r.posInSet}/${r.setSize}${r.hasChildren ? (r.expanded ? ' ▾' : ' ▸') : ''}`,
      );
    expect(line(visibleRows(tree, new Set()))).toEqual(['1:Shop 1/2 ▸', '1:Docs 2/2']);
    expect(line(visibleRows(tree, new Set([1, 2])))).toEqual([
      '1:Shop 1/2 ▾',
      '2:Checkout 1/2 ▾',
      '3:Cards 1/1',
      '2:Account 2/2',
      '1:Docs 2/2',
    ]);
    // A collapsed parent hides an expanded child's rows too.
    expect(visibleRows(tree, new Set([2])).map((r) => r.folder.id)).toEqual([1, 5]);
  });

  it('marks a chosen folder checked, its subtree inherited and its ancestors mixed', () => {
    expect(states([2])).toEqual({ 1: 'mixed', 2: 'checked', 3: 'inherited', 4: 'unchecked', 5: 'unchecked' });
    expect(states([])).toEqual({
      1: 'unchecked',
      2: 'unchecked',
      3: 'unchecked',
      4: 'unchecked',
      5: 'unchecked',
    });
  });

  it('checks a folder with its subtree, in place of the folders chosen under it, and unchecks it again', () => {
    expect(toggleFolder(tree, [3, 5], 1)).toEqual([5, 1]);
    expect(toggleFolder(tree, [5, 1], 1)).toEqual([5]);
    expect(toggleFolder(tree, [], 3)).toEqual([3]);
  });

  it('leaves a folder inside a chosen one as it is', () => {
    expect(toggleFolder(tree, [1], 3)).toEqual([1]);
  });

  it('counts the cases of the chosen folders once each, subfolders included', () => {
    expect(chosenCases(tree, [2, 5], counts)).toBe(8);
    expect(chosenCases(tree, [1, 3], counts)).toBe(10);
    expect(chosenCases(tree, [], counts)).toBe(0);
    expect(chosenCases(tree, [1], undefined)).toBeUndefined();
  });
});
