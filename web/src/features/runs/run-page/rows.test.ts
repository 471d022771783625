import { describe, expect, it } from 'vitest';
import type { RunTestCase } from '../api';
import { toRows } from './rows';

const tcase = (over: Partial<RunTestCase>): RunTestCase =>
  ({
    id: 'x',
    seq: 1,
    title: 'A case',
    folderId: 1,
    status: 'open',
    priority: 'medium',
    ...over,
  }) as RunTestCase;

const cases = [
  tcase({ id: 'a', seq: 1, title: 'Log in', folderId: 1, status: 'passed', priority: 'high' }),
  tcase({ id: 'b', seq: 2, title: 'Log out', folderId: 1, status: 'failed', priority: 'low' }),
  tcase({ id: 'c', seq: 3, title: 'Pay by card', folderId: 2, status: 'open', priority: 'high' }),
];
const titles = new Map([
  [1, ['Accounts', 'Sign-in']],
  [2, ['Checkout']],
]);
const none = new Set<string>();
/** What the list shows, one line a row: folder headers with their count, cases by number. */
const shown = (rows: ReturnType<typeof toRows>['rows']) =>
  rows.map((r) => (r.kind === 'folder' ? `${r.title} (${r.count})` : `  #${r.c.seq}`));

describe('run page rows', () => {
  it('puts each folder’s whole path above its cases, with how many of them are shown', () => {
    const { rows, visible } = toRows(cases, none, '', none, undefined, titles);
    expect(shown(rows)).toEqual(['Accounts / Sign-in (2)', '  #1', '  #2', 'Checkout (1)', '  #3']);
    expect(visible.map((c) => c.id)).toEqual(['a', 'b', 'c']);
  });

  it('leaves out folders none of whose cases pass the filters, and counts only the cases that do', () => {
    const { rows } = toRows(cases, new Set(['passed', 'open']), '', new Set(['high']), undefined, titles);
    expect(shown(rows)).toEqual(['Accounts / Sign-in (1)', '  #1', 'Checkout (1)', '  #3']);
    expect(shown(toRows(cases, new Set(['failed']), '', none, undefined, titles).rows)).toEqual([
      'Accounts / Sign-in (1)',
      '  #2',
    ]);
  });

  it('finds cases by words of their title, any case, or by their number with or without the project code', () => {
    expect(shown(toRows(cases, none, '  LOG ', none, undefined, titles).rows)).toEqual([
      'Accounts / Sign-in (2)',
      '  #1',
      '  #2',
    ]);
    expect(shown(toRows(cases, none, 'WEB-3', none, undefined, titles).rows)).toEqual([
      'Checkout (1)',
      '  #3',
    ]);
    expect(shown(toRows(cases, none, '2', none, undefined, titles).rows)).toEqual([
      'Accounts / Sign-in (1)',
      '  #2',
    ]);
  });

  it('shows only the tagged cases when a tag is chosen, and nothing at all when no case carries it', () => {
    expect(shown(toRows(cases, none, '', none, new Set(['c']), titles).rows)).toEqual([
      'Checkout (1)',
      '  #3',
    ]);
    expect(toRows(cases, none, '', none, new Set(), titles)).toEqual({ rows: [], visible: [] });
  });

  it('names a folder the page has not loaded by its number', () => {
    expect(shown(toRows([tcase({ folderId: 9 })], none, '', none, undefined, new Map()).rows)[0]).toBe(
      'Folder 9 (1)',
    );
  });

  it('keeps the cases of one assignee, or those nobody is assigned', () => {
    const assigned = [
      tcase({ id: 'a', seq: 1, assignee: { id: 7, name: 'Ada' } }),
      tcase({ id: 'b', seq: 2, assignee: null }),
      tcase({ id: 'c', seq: 3, assignee: { id: 8, name: 'Bo' } }),
    ];
    const seqs = (assigneeId: number | null | undefined) =>
      toRows(assigned, none, '', none, undefined, titles, assigneeId).visible.map((c) => c.seq);
    expect(seqs(7)).toEqual([1]);
    expect(seqs(null)).toEqual([2]);
    expect(seqs(undefined)).toEqual([1, 2, 3]);
  });
});
